package openfinance_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
	"testing/synctest"
	"time"

	"github.com/go-jose/go-jose/v4"

	"pixretry/pix"
	"pixretry/pix/openfinance"
	"pixretry/retry"
)

// canned is a PSP that answers every request with answer, or fails as fail or readFail say,
// through the Client it makes. It keeps the requests, and counts the answers' bodies closed.
type canned struct {
	answer   pix.Answer
	fail     error // the transport's error, instead of an answer, if not nil
	readFail error // the error of reading the answer's body, once read, if not nil
	sent     []*http.Request
	closed   int
}

// client is a Client of c at http://psp.test.
func (c *canned) client() *pix.Client {
	return &pix.Client{BaseURL: "http://psp.test", Token: "tok", Policy: retry.Policy{AttemptsMax: 1},
		HTTPClient: &http.Client{Transport: c}}
}

func (c *canned) RoundTrip(r *http.Request) (*http.Response, error) {
	c.sent = append(c.sent, r)
	if c.fail != nil {
		return nil, c.fail
	}
	var body io.Reader = bytes.NewReader(c.answer.Body)
	if c.readFail != nil {
		body = io.MultiReader(body, iotest.ErrReader(c.readFail))
	}
	return &http.Response{StatusCode: c.answer.Status, Header: c.answer.Header, Body: &cannedBody{body, c},
		Request: r}, nil
}

// cannedBody is the body of a canned answer, which counts its Close.
type cannedBody struct {
	io.Reader
	c *canned
}

func (b *cannedBody) Close() error {
	b.c.closed++
	return nil
}

// CreateConsent signs one POST /consents under a fresh key, with the bearer token, for the
// payment today in Brasília, and returns the consentId of the signed 201.
func TestCreateConsentSignsOneRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := &canned{answer: signed(t, http.StatusCreated, map[string]any{"data": consentView("AUTHORISED")})}
		c := fake.client()
		id, err := newDialect().CreateConsent(t.Context(), c, "11122233396", payment)
		if id != payment.ConsentID || err != nil {
			t.Fatalf("CreateConsent() = %q, %v, want %q", id, err, payment.ConsentID)
		}
		if len(fake.sent) != 1 {
			t.Fatalf("CreateConsent() sent %d requests, want 1", len(fake.sent))
		}
		req := fake.sent[0]
		const endpoint = "http://psp.test/open-banking/payments/v4/consents"
		if fake.closed != 1 || req.URL.RequestURI() != "/open-banking/payments/v4/consents" {
			t.Errorf("CreateConsent() sent to %q and closed %d answers, want an absolute path and 1", req.URL.RequestURI(),
				fake.closed)
		}
		if req.Method != "POST" || req.URL.String() != endpoint || req.Header.Get("Authorization") != "Bearer tok" ||
			req.Header.Get("Content-Type") != "application/jwt" || newDialect().CheckKey(req.Header.Get("x-idempotency-key")) != nil {
			t.Errorf("CreateConsent() sent %s %s with %v, want POST %s, the token, a JWS and a UUIDv7 key", req.Method,
				req.URL, req.Header, endpoint)
		}
		got := decode(t, req)
		if got.Claims["aud"] != endpoint || got.Claims["iss"] != clientOrg {
			t.Errorf("the consent's aud and iss = %v and %v, want %s and %s", got.Claims["aud"], got.Claims["iss"],
				endpoint, clientOrg)
		}
		// 2000-01-01T00:00:00Z is still 1999-12-31 in Brasília.
		want := compact(t, `{"loggedUser":{"document":{"identification":"11122233396","rel":"CPF"}},
			"creditor":{"personType":"PESSOA_NATURAL","cpfCnpj":"12345678909","name":"Maria da Silva"},
			"payment":{"type":"PIX","date":"1999-12-31","currency":"BRL","amount":"150.00",
				"details":{"localInstrument":"DICT","proxy":"pix@example.com",
					"creditorAccount":{"ispb":"12345678","issuer":"0001","number":"1234567","accountType":"CACC"}}}}`)
		if got.Data != want {
			t.Errorf("the consent's data = %s, want %s", got.Data, want)
		}
	})
}

// A creditor with a CNPJ is a legal person.
func TestCreateConsentNamesALegalPerson(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := &canned{answer: signed(t, http.StatusCreated, map[string]any{"data": consentView("AUTHORISED")})}
		c := fake.client()
		d := newDialect()
		d.Creditors = func(string) (openfinance.Creditor, error) {
			c := payee
			c.Document = "50685362000135"
			return c, nil
		}
		if _, err := d.CreateConsent(t.Context(), c, "11122233396", payment); err != nil {
			t.Fatal(err)
		}
		if got := decode(t, fake.sent[0]).Data; !strings.Contains(got, `"personType":"PESSOA_JURIDICA","cpfCnpj":"50685362000135"`) {
			t.Errorf("the consent's data = %s, want a PESSOA_JURIDICA of CNPJ 50685362000135", got)
		}
	})
}

// CreateConsent sends nothing for a bad payer, payment, creditor, Client or Dialect.
func TestCreateConsentRefusesWhatItCannotWrite(t *testing.T) {
	holder := func(name, document string) func(string) (openfinance.Creditor, error) {
		return func(string) (openfinance.Creditor, error) {
			c := payee
			c.Name, c.Document = name, document
			return c, nil
		}
	}
	const creditor = `openfinance: pix: invalid payment: the creditor of Pix key "pix@example.com": `
	tests := []struct {
		name      string
		payer     string
		p         pix.Payment
		creditors func(string) (openfinance.Creditor, error)
		baseURL   string
		want      string
		invalid   bool
	}{
		{"a payer of 10 digits", "1112223339", payment, nil, "", `openfinance: pix: invalid payment: the payer's CPF ` +
			`"1112223339" is not 11 digits`, true},
		{"a payer of 12 digits", "111222333960", payment, nil, "", `openfinance: pix: invalid payment: the payer's ` +
			`CPF "111222333960" is not 11 digits`, true},
		{"an invalid payment", "11122233396", pix.Payment{PixKey: payment.PixKey}, nil, "",
			"pix: invalid payment: AmountCents 0 is not between 1 and 999999999999", true},
		{"a name of 121 characters", "11122233396", payment, holder(strings.Repeat("á", 121), payee.Document), "",
			creditor + `its Name "` + strings.Repeat("á", 121) + `" is not 1 to 120 letters, digits, spaces and punctuation`,
			true},
		{"no name", "11122233396", payment, holder("", payee.Document), "",
			creditor + `its Name "" is not 1 to 120 letters, digits, spaces and punctuation`, true},
		{"a name with a line break", "11122233396", payment, holder("Maria\nSilva", payee.Document), "",
			creditor + `its Name "Maria\nSilva" is not 1 to 120 letters, digits, spaces and punctuation`, true},
		{"a document of 12 digits", "11122233396", payment, holder(payee.Name, "123456789012"), "",
			creditor + `its Document "123456789012" is not a CPF of 11 digits or a CNPJ of 14`, true},
		{"a bad account", "11122233396", payment, func(string) (openfinance.Creditor, error) {
			c := payee
			c.Account.ISPB = ""
			return c, nil
		}, "", creditor + `its Account.ISPB "" is not 8 digits`, true},
		{"a relative BaseURL", "11122233396", payment, nil, "/psp",
			`openfinance: the Client's BaseURL "/psp" is not an absolute http or https URL`, false},
		{"an ftp BaseURL", "11122233396", payment, nil, "ftp://psp.test",
			`openfinance: the Client's BaseURL "ftp://psp.test" is not an absolute http or https URL`, false},
		{"a BaseURL without host", "11122233396", payment, nil, "https:///psp",
			`openfinance: the Client's BaseURL "https:///psp" is not an absolute http or https URL`, false},
		{"a BaseURL that does not parse", "11122233396", payment, nil, "http://psp.test/%zz",
			`openfinance: the Client's BaseURL "http://psp.test/%zz" is not an absolute http or https URL`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &canned{answer: pix.Answer{Status: 500}}
			c := fake.client()
			if tt.baseURL != "" {
				c.BaseURL = tt.baseURL
			}
			d := newDialect()
			if tt.creditors != nil {
				d.Creditors = tt.creditors
			}
			id, err := d.CreateConsent(t.Context(), c, tt.payer, tt.p)
			if id != "" || errorText(err) != tt.want || errors.Is(err, pix.ErrInvalidPayment) != tt.invalid || len(fake.sent) != 0 {
				t.Errorf("CreateConsent() = %q, %v after %d requests, want none and %s", id, err, len(fake.sent), tt.want)
			}
		})
	}
	fake := &canned{answer: pix.Answer{Status: 500}}
	d := newDialect()
	d.Issuer = ""
	if _, err := d.CreateConsent(t.Context(), fake.client(), "11122233396", payment); errorText(err) !=
		"openfinance: invalid Dialect: Issuer is empty" || len(fake.sent) != 0 {
		t.Errorf("CreateConsent() with no Issuer = %v after %d requests, want Issuer named and none", err, len(fake.sent))
	}
}

// An answer other than a signed 201 with a consentId is an error: a *pix.Error for a refusal
// or a failure, and ErrContract for an answer the PSP did not sign or whose consentId is not
// a URN.
func TestCreateConsentReadsTheAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const contract = "openfinance: pix: PSP broke the response contract: "
		tests := []struct {
			name     string
			answer   pix.Answer
			want     string
			pixError bool
		}{
			{"a 422", signed(t, 422, map[string]any{"errors": []any{map[string]any{"code": "FORMA_PAGAMENTO_INVALIDA",
				"title": "Forma de pagamento inválida.", "detail": "QRES"}}}),
				"pix: PSP answered 422 FORMA_PAGAMENTO_INVALIDA: Forma de pagamento inválida. QRES", true},
			{"a 529", plain(529, "SITE_IS_OVERLOADED"), "pix: PSP answered 529 SITE_IS_OVERLOADED: Title Detail", true},
			{"an unsigned 201", pix.Answer{Status: 201, Body: []byte(`{"data":{}}`)}, contract + "the 201 answer is not " +
				"a compact JWS signed with PS256: go-jose/go-jose: compact JWS format must have three parts", false},
			{"no data", signed(t, 201, map[string]any{}), contract + "the consent's 201 has no data", false},
			{"a bad consentId", signed(t, 201, map[string]any{"data": with(consentView("AUTHORISED"),
				map[string]any{"consentId": "c1"})}), contract + `the consent's 201 has consentId "c1", not a URN`, false},
		}
		for _, tt := range tests {
			fake := &canned{answer: tt.answer}
			id, err := newDialect().CreateConsent(t.Context(), fake.client(), "11122233396", payment)
			if id != "" || errorText(err) != tt.want || isPixError(err) != tt.pixError {
				t.Errorf("CreateConsent() of %s = %q, %v, want %s", tt.name, id, err, tt.want)
			}
		}
	})
}

// A Client without HTTPClient creates its consent through http.DefaultClient.
func TestCreateConsentWithoutHTTPClient(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := signed(t, http.StatusCreated, map[string]any{"data": consentView("AUTHORISED")})
		w.Header().Set("Content-Type", "application/jwt")
		w.WriteHeader(a.Status)
		w.Write(a.Body)
	}))
	defer srv.Close()
	c := &pix.Client{BaseURL: srv.URL, Token: "tok", Policy: retry.Policy{AttemptsMax: 1}}
	if id, err := newDialect().CreateConsent(t.Context(), c, payer, payment); id != payment.ConsentID || err != nil {
		t.Errorf("CreateConsent() = %q, %v, want %q", id, err, payment.ConsentID)
	}
}

// A consent's date is the day in Brasília, UTC-3: until 03:00 UTC, the day before. A name
// may have 120 characters.
func TestCreateConsentDatesInBrasilia(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newDialect()
		d.Creditors = func(string) (openfinance.Creditor, error) {
			c := payee
			c.Name = strings.Repeat("á", 120)
			return c, nil
		}
		time.Sleep(3*time.Hour - time.Second)
		for _, want := range []string{`"date":"1999-12-31"`, `"date":"2000-01-01"`} {
			fake := &canned{answer: signed(t, http.StatusCreated, map[string]any{"data": consentView("AUTHORISED")})}
			c := fake.client()
			if _, err := d.CreateConsent(t.Context(), c, payer, payment); err != nil {
				t.Fatalf("CreateConsent() at %v error = %v", time.Now().UTC(), err)
			}
			if got := decode(t, fake.sent[0]).Data; !strings.Contains(got, want) {
				t.Errorf("CreateConsent() at %v fake.sent %s, want %s", time.Now().UTC(), got, want)
			}
			time.Sleep(time.Second)
		}
	})
}

// An https BaseURL is taken, and its path kept.
func TestCreateConsentTakesAnHTTPSBaseURL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := &canned{answer: signed(t, http.StatusCreated, map[string]any{"data": consentView("AUTHORISED")})}
		c := fake.client()
		c.BaseURL = "https://psp.test/sandbox"
		if _, err := newDialect().CreateConsent(t.Context(), c, payer, payment); err != nil {
			t.Fatal(err)
		}
		if got, want := fake.sent[0].URL.String(), "https://psp.test/sandbox/open-banking/payments/v4/consents"; got != want {
			t.Errorf("CreateConsent() sent to %s, want %s", got, want)
		}
	})
}

// A request that fails, an answer that cannot be read, and an answer over 64 KiB are errors;
// an answer of 64 KiB is read.
func TestCreateConsentFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ok := signed(t, http.StatusCreated, map[string]any{"data": consentView("AUTHORISED")})
		d := newDialect()
		tests := []struct {
			name string
			psp  *canned
			want string
		}{
			{"a refused connection", &canned{fail: syscall.ECONNREFUSED}, `openfinance: creating a consent: Post ` +
				`"http://psp.test/open-banking/payments/v4/consents": connection refused`},
			{"a body cut short", &canned{answer: ok, readFail: io.ErrUnexpectedEOF},
				"openfinance: reading the consent's 201 answer: unexpected EOF"},
			{"an answer of 64 KiB", &canned{answer: padded(t, d, 65536)}, "<nil>"},
			{"an answer over 64 KiB", &canned{answer: padded(t, d, 70000)}, "openfinance: pix: PSP broke the response " +
				"contract: the consent's 201 answer is over 65536 bytes"},
		}
		for _, tt := range tests {
			_, err := d.CreateConsent(t.Context(), tt.psp.client(), payer, payment)
			if got := errorText(err); got != tt.want {
				t.Errorf("CreateConsent() of %s = %s, want %s", tt.name, got, tt.want)
			}
		}
	})
}

// padded is the signed 201 of a consent, padded to size bytes, under a kid of the PSP's key
// that d then trusts: the length of a JWS depends on its header's, so some sizes need a kid of
// another length.
func padded(t *testing.T, d *openfinance.Dialect, size int) pix.Answer {
	t.Helper()
	for _, kid := range []string{pspKID, pspKID + "a", pspKID + "ab"} {
		body := map[string]any{"data": consentView("AUTHORISED"), "pad": ""}
		parts := strings.Split(string(sign(t, testKeys().psp, kid, claims(body))), ".")
		target := size - len(parts[0]) - len(parts[2]) - 2
		n := target*3/4 - base64.RawURLEncoding.DecodedLen(len(parts[1]))
		if n < 0 || base64.RawURLEncoding.EncodedLen(target*3/4) != target {
			continue
		}
		body["pad"] = strings.Repeat("x", n)
		a := pix.Answer{Status: http.StatusCreated, Body: sign(t, testKeys().psp, kid, claims(body))}
		if len(a.Body) == size {
			d.PSPKeys.Keys = append(d.PSPKeys.Keys, jose.JSONWebKey{Key: &testKeys().psp.PublicKey, KeyID: kid})
			return a
		}
	}
	t.Fatalf("no JWS of %d bytes", size)
	return pix.Answer{}
}
