package openfinance_test

import (
	"cmp"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"io"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-jose/go-jose/v4"
	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"pixretry/internal/testkeys"
	"pixretry/pix"
	"pixretry/pix/openfinance"
)

// A key of 2023-06-30T03:34:18.518Z, and the endToEndId of a payment under it for the ISPB
// 99999999: the minute 202306300334, then the first 64 bits of the key's SHA-256 in base 62.
const (
	fixedKey      = "01890a5d-ac96-774b-bcce-b302099a8057"
	fixedEndToEnd = "E99999999202306300334BeXV9wPBXly"
)

var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// Validate names the first field out of its rules; a valid Dialect passes.
func TestValidateNamesTheWrongField(t *testing.T) {
	small := testkeys.Small(0)
	curve, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		change func(*openfinance.Dialect)
		want   string
	}{
		{"valid", func(*openfinance.Dialect) {}, "<nil>"},
		{"no Key", func(d *openfinance.Dialect) { d.Key = nil }, "openfinance: invalid Dialect: Key is nil"},
		{"an ECDSA Key", func(d *openfinance.Dialect) { d.Key = curve }, "openfinance: invalid Dialect: Key is not an RSA key"},
		{"a 1024-bit Key", func(d *openfinance.Dialect) { d.Key = small },
			"openfinance: invalid Dialect: Key has 1024 bits, want 2048 or more"},
		{"no KeyID", func(d *openfinance.Dialect) { d.KeyID = "" }, "openfinance: invalid Dialect: KeyID is empty"},
		{"no Issuer", func(d *openfinance.Dialect) { d.Issuer = "" }, "openfinance: invalid Dialect: Issuer is empty"},
		{"no PSPIssuer", func(d *openfinance.Dialect) { d.PSPIssuer = "" },
			"openfinance: invalid Dialect: PSPIssuer is empty"},
		{"no PSPKeys", func(d *openfinance.Dialect) { d.PSPKeys = jose.JSONWebKeySet{} },
			"openfinance: invalid Dialect: PSPKeys has no key"},
		{"a CNPJInitiator of 13 digits", func(d *openfinance.Dialect) { d.CNPJInitiator = "5068536200013" },
			`openfinance: invalid Dialect: CNPJInitiator "5068536200013" is not 14 digits`},
		{"a CNPJInitiator of 15 digits", func(d *openfinance.Dialect) { d.CNPJInitiator = "506853620001355" },
			`openfinance: invalid Dialect: CNPJInitiator "506853620001355" is not 14 digits`},
		{"an ISPB of 7 digits", func(d *openfinance.Dialect) { d.ISPB = "9999999" },
			`openfinance: invalid Dialect: ISPB "9999999" is not 8 digits`},
		{"no Creditors", func(d *openfinance.Dialect) { d.Creditors = nil },
			"openfinance: invalid Dialect: Creditors is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDialect()
			tt.change(d)
			if got := errorText(d.Validate()); got != tt.want {
				t.Errorf("Validate() = %s, want %s", got, tt.want)
			}
		})
	}
}

// Pay writes one attempt: POST to the payments path under the base URL's own path, the key in
// x-idempotency-key, a fresh x-fapi-interaction-id, and a body signed by the client's key. The
// signature's header names the key's id and the token type. Its claims name the endpoint as
// the audience and the Dialect's Issuer field as the signer, carry a random UUID that identifies this one
// token, the time it was signed (now), and the payment's data, its endToEndId made from the
// key.
func TestPayWritesOneSignedAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		base, _ := url.Parse("http://psp.test/sandbox")
		req, err := newDialect().Pay(t.Context(), base, fixedKey, payment)
		if err != nil {
			t.Fatalf("Pay() error = %v", err)
		}
		const endpoint = "http://psp.test/sandbox/open-banking/payments/v4/pix/payments"
		if req.Method != "POST" || req.URL.String() != endpoint {
			t.Errorf("Pay() request = %s %s, want POST %s", req.Method, req.URL, endpoint)
		}
		for name, want := range map[string]string{"Content-Type": "application/jwt", "x-idempotency-key": fixedKey,
			"Accept": "application/jwt, application/json"} {
			if got := req.Header.Get(name); got != want {
				t.Errorf("Pay() header %s = %q, want %q", name, got, want)
			}
		}
		if id := req.Header.Get("x-fapi-interaction-id"); !uuidPattern.MatchString(id) {
			t.Errorf("Pay() x-fapi-interaction-id = %q, want a UUID", id)
		}
		got := decode(t, req)
		if got.Header.KeyID != clientKID || got.Header.ExtraHeaders["typ"] != "JWT" {
			t.Errorf("the JWS's kid and typ = %q and %v, want %q and JWT", got.Header.KeyID, got.Header.ExtraHeaders["typ"],
				clientKID)
		}
		jti, _ := got.Claims["jti"].(string)
		if u, err := uuid.Parse(jti); err != nil || u.Version() != 4 {
			t.Errorf("the jti = %q, want a UUIDv4", jti)
		}
		delete(got.Claims, "jti")
		delete(got.Claims, "data")
		want := map[string]any{"aud": endpoint, "iss": clientOrg, "iat": float64(time.Now().Unix())}
		if diff := gocmp.Diff(want, got.Claims); diff != "" {
			t.Errorf("the claims but jti and data differ (-want +got):\n%s", diff)
		}
		data := compact(t, `[{"endToEndId":"`+fixedEndToEnd+`","localInstrument":"DICT",
			"payment":{"amount":"150.00","currency":"BRL"},
			"creditorAccount":{"ispb":"12345678","issuer":"0001","number":"1234567","accountType":"CACC"},
			"remittanceInformation":"aluguel","proxy":"pix@example.com","cnpjInitiator":"50685362000135",
			"consentId":"urn:pixretry:c1"}]`)
		if got.Data != data {
			t.Errorf("the data claim = %s, want %s", got.Data, data)
		}
	})
}

// Each attempt is signed anew: a new jti, iat and interaction id, the same data. A payment
// without a description sends no remittanceInformation, and a prepaid account no issuer.
func TestPaySignsEachAttemptAnew(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newDialect()
		d.Creditors = func(string) (openfinance.Creditor, error) {
			return openfinance.Creditor{Account: openfinance.Account{ISPB: "12345678", Number: "1", Type: "TRAN"}}, nil
		}
		p := payment
		p.Description = ""
		base, _ := url.Parse("http://psp.test")
		first, err := d.Pay(t.Context(), base, fixedKey, p)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(30 * time.Second)
		second, err := d.Pay(t.Context(), base, fixedKey, p)
		if err != nil {
			t.Fatal(err)
		}
		a, b := decode(t, first), decode(t, second)
		if a.Claims["jti"] == b.Claims["jti"] {
			t.Errorf("two attempts share the jti %v", a.Claims["jti"])
		}
		if iat := b.Claims["iat"].(float64) - a.Claims["iat"].(float64); iat != 30 {
			t.Errorf("the second attempt's iat is %v s after the first's, want 30", iat)
		}
		if first.Header.Get("x-fapi-interaction-id") == second.Header.Get("x-fapi-interaction-id") {
			t.Errorf("two attempts share the x-fapi-interaction-id %s", first.Header.Get("x-fapi-interaction-id"))
		}
		data := compact(t, `[{"endToEndId":"`+fixedEndToEnd+`","localInstrument":"DICT",
			"payment":{"amount":"150.00","currency":"BRL"},
			"creditorAccount":{"ispb":"12345678","number":"1","accountType":"TRAN"},
			"proxy":"pix@example.com","cnpjInitiator":"50685362000135","consentId":"urn:pixretry:c1"}]`)
		if a.Data != data || b.Data != data {
			t.Errorf("the data claims = %s and %s, want %s twice", a.Data, b.Data, data)
		}
	})
}

// The endToEndId is a function of the key: another key of the same minute differs only in
// its last 11 characters, and the amount is written in reais with two decimals.
func TestPayMakesTheEndToEndIDFromTheKey(t *testing.T) {
	tests := []struct {
		key   string
		cents int64
		want  string
	}{
		{fixedKey, 1, `"endToEndId":"E99999999202306300334BeXV9wPBXly","localInstrument":"DICT","payment":{"amount":"0.01"`},
		{"01890a5d-ac96-774b-bcce-b302099a8058", 999_999_999_999,
			`"endToEndId":"E99999999202306300334KY8oR1n94BY","localInstrument":"DICT","payment":{"amount":"9999999999.99"`},
	}
	base, _ := url.Parse("http://psp.test")
	for _, tt := range tests {
		p := payment
		p.AmountCents = tt.cents
		req, err := newDialect().Pay(t.Context(), base, tt.key, p)
		if err != nil {
			t.Fatal(err)
		}
		if got := decode(t, req).Data; !strings.HasPrefix(got, `[{`+tt.want) {
			t.Errorf("Pay(%q, %d cents) data = %s, want it to begin [{%s", tt.key, tt.cents, got, tt.want)
		}
	}
}

// Pay writes nothing for a payment without a consent, with a consentId that is not a URN of
// at most 256 characters, or whose creditor is unknown or has a wrong account; nor for an
// invalid Dialect.
func TestPayRefusesWhatItCannotWrite(t *testing.T) {
	urn := func(n int) string { return "urn:pixretry:" + strings.Repeat("c", n-len("urn:pixretry:")) }
	account := func(change func(*openfinance.Account)) func(string) (openfinance.Creditor, error) {
		return func(string) (openfinance.Creditor, error) {
			c := payee
			change(&c.Account)
			return c, nil
		}
	}
	under := func(consentID string) *pix.Payment {
		p := payment
		p.ConsentID = consentID
		return &p
	}
	const creditor = `openfinance: pix: invalid payment: the creditor of Pix key "pix@example.com": `
	tests := []struct {
		name      string
		payment   *pix.Payment // nil: payment
		creditors func(string) (openfinance.Creditor, error)
		want      string
	}{
		{"a URN of 256 characters", under(urn(256)), nil, "<nil>"},
		{"no consent", under(""), nil,
			"openfinance: pix: invalid payment: the payment has no ConsentID, and every payment consumes a consent"},
		{"a consent that is not a URN", under("c1"), nil,
			`openfinance: pix: invalid payment: ConsentID "c1" is not a URN of at most 256 characters`},
		{"a URN of 257 characters", under(urn(257)), nil,
			`openfinance: pix: invalid payment: ConsentID "` + urn(257) + `" is not a URN of at most 256 characters`},
		{"an unknown creditor", nil, func(string) (openfinance.Creditor, error) {
			return openfinance.Creditor{}, errors.New("no such key")
		}, creditor + "no such key"},
		{"an ISPB of 7 digits", nil, account(func(a *openfinance.Account) { a.ISPB = "1234567" }),
			creditor + `its Account.ISPB "1234567" is not 8 digits`},
		{"an unknown type", nil, account(func(a *openfinance.Account) { a.Type = "SLRY" }),
			creditor + `its Account.Type "SLRY" is not CACC, SVGS or TRAN`},
		{"a current account without issuer", nil, account(func(a *openfinance.Account) { a.Issuer = "" }),
			creditor + "its Account.Issuer is empty, and a CACC account needs one"},
		{"a savings account without issuer", nil, account(func(a *openfinance.Account) { a.Issuer, a.Type = "", "SVGS" }),
			creditor + "its Account.Issuer is empty, and a SVGS account needs one"},
		{"an issuer of 5 digits", nil, account(func(a *openfinance.Account) { a.Issuer = "12345" }),
			creditor + `its Account.Issuer "12345" is not 1 to 4 digits`},
		{"a number of 20 digits", nil, account(func(a *openfinance.Account) { a.Number = strings.Repeat("9", 20) }),
			"<nil>"},
		{"a number of 21 digits", nil, account(func(a *openfinance.Account) { a.Number = strings.Repeat("9", 21) }),
			creditor + `its Account.Number "` + strings.Repeat("9", 21) + `" is not 1 to 20 digits`},
		{"no number", nil, account(func(a *openfinance.Account) { a.Number = "" }),
			creditor + `its Account.Number "" is not 1 to 20 digits`},
	}
	base, _ := url.Parse("http://psp.test")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDialect()
			if tt.creditors != nil {
				d.Creditors = tt.creditors
			}
			p := cmp.Or(tt.payment, &payment)
			req, err := d.Pay(t.Context(), base, fixedKey, *p)
			if got := errorText(err); got != tt.want {
				t.Errorf("Pay() error = %s, want %s", got, tt.want)
			}
			if err != nil && (req != nil || !errors.Is(err, pix.ErrInvalidPayment)) {
				t.Errorf("Pay() = %v, %v, want no request and an error matching ErrInvalidPayment", req, err)
			}
		})
	}
	d := newDialect()
	d.ISPB = ""
	if req, err := d.Pay(t.Context(), base, fixedKey, payment); req != nil ||
		errorText(err) != `openfinance: invalid Dialect: ISPB "" is not 8 digits` {
		t.Errorf("Pay() with no ISPB = %v, %v, want no request and the ISPB named", req, err)
	}
}

// failingSigner is a key whose signatures fail, as an HSM out of reach does.
type failingSigner struct{ *rsa.PrivateKey }

func (failingSigner) Sign(io.Reader, []byte, crypto.SignerOpts) ([]byte, error) {
	return nil, errors.New("hsm: out of reach")
}

// A key that cannot sign writes no request: Pay, and CreateConsent, fail with its error, and a
// Client sends nothing.
func TestPayFailsWithTheSignersError(t *testing.T) {
	d := newDialect()
	d.Key = failingSigner{testKeys().client}
	base, _ := url.Parse("http://psp.test")
	const want = "openfinance: signing with Key: hsm: out of reach"
	if req, err := d.Pay(t.Context(), base, fixedKey, payment); req != nil || errorText(err) != want {
		t.Errorf("Pay() = %v, %v, want no request and %s", req, err, want)
	}
	fake := &canned{}
	if _, err := d.CreateConsent(t.Context(), fake.client(), payer, payment); errorText(err) != want || len(fake.sent) != 0 {
		t.Errorf("CreateConsent() = %v after %d requests, want %s and none", err, len(fake.sent), want)
	}
	c := fake.client()
	c.Dialect = d
	if _, err := c.Send(t.Context(), payment); errorText(err) != "pix: writing the request: "+want || len(fake.sent) != 0 {
		t.Errorf("Send() = %v after %d requests, want the signer's error and none", err, len(fake.sent))
	}
}
