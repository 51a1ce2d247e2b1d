package openfinance_test

import (
	"bytes"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"go.uber.org/goleak"

	"pixretry/internal/testkeys"
	"pixretry/pix"
	"pixretry/pix/openfinance"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The organisationIds of the initiator (the tests' client) and of the PSP.
const (
	clientOrg = "pixretry-initiator"
	pspOrg    = "pixretry-psp"
	clientKID = "client-1"
	pspKID    = "psp-1"
)

// testKeys are the RSA keys of the tests (package testkeys). stranger is a key no one trusts.
func testKeys() struct{ client, psp, stranger *rsa.PrivateKey } {
	return struct{ client, psp, stranger *rsa.PrivateKey }{testkeys.Client(), testkeys.PSP(), testkeys.Stranger()}
}

// payee is the creditor of every Pix key in the tests.
var payee = openfinance.Creditor{Name: "Maria da Silva", Document: "12345678909",
	Account: openfinance.Account{ISPB: "12345678", Issuer: "0001", Number: "1234567", Type: "CACC"}}

// payment is a payment under a consent.
var payment = pix.Payment{AmountCents: 15000, PixKey: "pix@example.com", Description: "aluguel",
	ConsentID: "urn:pixretry:c1"}

// newDialect returns a valid Dialect that signs with the client key and trusts the PSP's.
func newDialect() *openfinance.Dialect {
	k := testKeys()
	return &openfinance.Dialect{Key: k.client, KeyID: clientKID, Issuer: clientOrg, PSPIssuer: pspOrg,
		PSPKeys:       jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &k.psp.PublicKey, KeyID: pspKID}}},
		CNPJInitiator: "50685362000135", ISPB: "99999999",
		Creditors: func(string) (openfinance.Creditor, error) { return payee, nil }}
}

// sign returns claims as a compact JWS signed with PS256 by key under kid.
func sign(t testing.TB, key *rsa.PrivateKey, kid string, claims any) []byte {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.PS256, Key: jose.JSONWebKey{Key: key, KeyID: kid}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	compact, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return []byte(compact)
}

// claims are the claims of an answer the PSP signs now, with body's members, and without
// those whose value is nil.
func claims(body map[string]any) map[string]any {
	c := map[string]any{"aud": clientOrg, "iss": pspOrg, "jti": "3f6c1ec4-4f2b-4b8e-9d1e-2a3b4c5d6e7f",
		"iat": time.Now().Unix()}
	for k, v := range body {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	return c
}

// signed returns the answer with status whose claims are body's members, signed by the PSP.
func signed(t testing.TB, status int, body map[string]any) pix.Answer {
	t.Helper()
	return pix.Answer{Status: status, Header: http.Header{"Content-Type": {"application/jwt"}},
		Body: sign(t, testKeys().psp, pspKID, claims(body))}
}

// plain returns an unsigned answer with status and an errors body of code.
func plain(status int, code string) pix.Answer {
	body := fmt.Sprintf(`{"errors":[{"code":%q,"title":"Title","detail":"Detail"}],"meta":{"requestDateTime":`+
		`"2000-01-01T00:00:00Z"}}`, code)
	return pix.Answer{Status: status, Header: http.Header{"Content-Type": {"application/json; charset=utf-8"}},
		Body: []byte(body)}
}

// paymentView is a payment as an answer shows it, with status.
func paymentView(status string) map[string]any {
	return map[string]any{"paymentId": "pay-1", "endToEndId": "E99999999200001010000abcdefghijk",
		"consentId": payment.ConsentID, "creationDateTime": "2000-01-01T00:00:00Z",
		"statusUpdateDateTime": "2000-01-01T00:00:00Z", "status": status, "localInstrument": "DICT",
		"cnpjInitiator": "50685362000135", "payment": map[string]any{"amount": "150.00", "currency": "BRL"},
		"proxy": payment.PixKey, "remittanceInformation": payment.Description,
		"creditorAccount": map[string]any{"ispb": "12345678", "issuer": "0001", "number": "1234567", "accountType": "CACC"},
		"debtorAccount":   map[string]any{"ispb": "87654321", "issuer": "0002", "number": "7654321", "accountType": "CACC"}}
}

// with returns a copy of m with the members of changes.
func with(m map[string]any, changes map[string]any) map[string]any {
	c := make(map[string]any, len(m)+len(changes))
	for k, v := range m {
		c[k] = v
	}
	for k, v := range changes {
		c[k] = v
	}
	return c
}

// decoded is a request a Dialect wrote, read back: its body's JOSE header and claims, which
// must verify with the client's key.
type decoded struct {
	Header jose.Header
	Claims map[string]any
	Data   string // the data claim, as JSON
}

// decode reads req's body as a JWS that the client's key signed.
func decode(t testing.TB, req *http.Request) decoded {
	t.Helper()
	body, err := io.ReadAll(req.Body)
	if err != nil {
		t.Fatal(err)
	}
	jws, err := jose.ParseSignedCompact(string(body), []jose.SignatureAlgorithm{jose.PS256})
	if err != nil {
		t.Fatalf("the body is not a compact PS256 JWS: %v", err)
	}
	payload, err := jws.Verify(&testKeys().client.PublicKey)
	if err != nil {
		t.Fatalf("the body does not verify with the client's key: %v", err)
	}
	var d decoded
	var raw struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(payload, &d.Claims); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(payload, &raw); err != nil {
		t.Fatal(err)
	}
	d.Header, d.Data = jws.Signatures[0].Protected, string(raw.Data)
	return d
}

// errorText returns err's message, or "<nil>".
func errorText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// isPixError reports whether err is or wraps a *pix.Error.
func isPixError(err error) bool {
	_, ok := errors.AsType[*pix.Error](err)
	return ok
}

// compact returns a JSON text written for people without its spaces and line breaks.
func compact(t testing.TB, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
