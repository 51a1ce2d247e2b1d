package main

import (
	"crypto/rsa"
	"crypto/x509"
	encjson "encoding/json" // json is exposure_test.go's media type
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/google/uuid"

	"pixretry/internal/openapitest"
	"pixretry/internal/testkeys"
	"pixretry/psp"
	"pixretry/psp/openfinance"
)

// testKeys are the RSA keys of the tests (package testkeys): the double's signing key and the
// client's.
func testKeys() (keys struct{ signing, client *rsa.PrivateKey }) {
	keys.signing, keys.client = testkeys.PSP(), testkeys.Client()
	return keys
}

// clientKID is the kid of the client key in the file of ofKeyFlags.
const clientKID = "client-1"

// interactionID is the x-fapi-interaction-id of the tests' requests.
const interactionID = "d78fc4e5-37ca-4da3-adf2-9b082bf92280"

// ofKeyFlags are the flags of -dialect openfinance with the tests' keys: the signing key in a
// PEM file (PKCS #8), and the client's public key in a JWK Set, with kid clientKID.
func ofKeyFlags(t *testing.T) []string {
	t.Helper()
	keys := testKeys()
	der, err := x509.MarshalPKCS8PrivateKey(keys.signing)
	if err != nil {
		t.Fatal(err)
	}
	signing := writeFile(t, "signing.pem", string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})))
	set, err := encjson.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &keys.client.PublicKey, KeyID: clientKID}}})
	if err != nil {
		t.Fatal(err)
	}
	client := writeFile(t, "client.json", string(set))
	return []string{"-dialect", "openfinance", "-openfinance-signing-key-file", signing, "-openfinance-client-keys-file", client}
}

// writeFile writes content to the file name of a temporary folder of t, and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// ofClient signs the requests of payments v4 as the initiator iss, and reads the answers, whose
// signature pspKey verifies.
type ofClient struct {
	iss    string          // the initiator's organisationId
	key    jose.JSONWebKey // private, with its kid
	pspKey *rsa.PublicKey
}

// testClient is the client of the tests' keys, as ofKeyFlags gives them.
func testClient() ofClient {
	keys := testKeys()
	return ofClient{iss: openfinance.DefaultClientOrganisationID, key: jose.JSONWebKey{Key: keys.client, KeyID: clientKID},
		pspKey: &keys.signing.PublicKey}
}

// request is method path on base, as the token token sends it: with data, signed for base+path
// by c.iss with a new jti and iat now, under the x-idempotency-key key; without, a GET.
func (c ofClient) request(t *testing.T, method, base, path, token, key string, data any) *http.Request {
	t.Helper()
	var claims map[string]any
	if data != nil {
		claims = claimsFor(base+path, data)
		claims["iss"] = c.iss
	}
	return c.signedRequest(t, method, base+path, token, key, claims)
}

// claimsFor are the claims of a request to the endpoint aud carrying data: iss the initiator's
// organisationId, a new jti and iat now.
func claimsFor(aud string, data any) map[string]any {
	return map[string]any{"aud": aud, "iss": openfinance.DefaultClientOrganisationID, "jti": uuid.NewString(),
		"iat": time.Now().Unix(), "data": data}
}

// signedRequest is method url, as the token token sends it: with claims, signed, under the
// x-idempotency-key key; without, a GET.
func (c ofClient) signedRequest(t *testing.T, method, url, token, key string, claims map[string]any) *http.Request {
	t.Helper()
	var body string
	if claims != nil {
		body = c.sign(t, claims)
	}
	r, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Authorization", "Bearer "+token)
	r.Header.Set("x-fapi-interaction-id", interactionID)
	if claims != nil {
		r.Header.Set("Content-Type", "application/jwt")
		r.Header.Set("x-idempotency-key", key)
	}
	return r
}

// sign is claims as a compact JWS that c's key signs with PS256.
func (c ofClient) sign(t *testing.T, claims map[string]any) string {
	t.Helper()
	payload, err := encjson.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.PS256, Key: c.key}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	compact, _ := jws.CompactSerialize() // one signature always serializes
	return compact
}

// ofAnswer is an answer of payments v4: its status and header, and its claims if it is signed,
// its members if it is plain JSON, or its body as it is.
type ofAnswer struct {
	status int
	header http.Header
	body   string
	claims map[string]any // of a signed answer, verified
	plain  map[string]any // of an application/json answer
}

// read reads resp, an answer of payments v4, whole: it fails t if a signed answer's signature
// does not verify with c's pspKey.
func (c ofClient) read(t *testing.T, resp *http.Response) ofAnswer {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	a := ofAnswer{status: resp.StatusCode, header: resp.Header, body: string(b)}
	switch media, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";"); media {
	case "application/jwt":
		jws, err := jose.ParseSignedCompact(a.body, []jose.SignatureAlgorithm{jose.PS256})
		if err != nil {
			t.Fatalf("a signed answer %q: %v", a.body, err)
		}
		payload, err := jws.Verify(c.pspKey)
		if err != nil {
			t.Fatalf("a signed answer's signature: %v", err)
		}
		a.claims = mustDecode(t, payload)
	case "application/json":
		a.plain = mustDecode(t, b)
	}
	return a
}

func mustDecode(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := encjson.Unmarshal(data, &m); err != nil {
		t.Fatalf("decoding %s: %v", data, err)
	}
	return m
}

// code is the code of a's errors[] item, in its claims or its plain body, or "" if it has none.
func (a ofAnswer) code() string {
	body := a.plain
	if a.claims != nil {
		body = a.claims
	}
	errs, _ := body["errors"].([]any)
	if len(errs) == 0 {
		return ""
	}
	code, _ := errs[0].(map[string]any)["code"].(string)
	return code
}

// data is the member named of a's data claim, or of its one item if data is an array.
func (a ofAnswer) data(name string) string {
	data := a.claims["data"]
	if items, ok := data.([]any); ok && len(items) == 1 {
		data = items[0]
	}
	s, _ := data.(map[string]any)[name].(string)
	return s
}

// consentData is the data of a consent of amount reais to the Pix key pix@example.com.
func consentData(amount string) map[string]any {
	return map[string]any{
		"loggedUser": map[string]any{"document": map[string]any{"identification": "11122233396", "rel": "CPF"}},
		"creditor":   map[string]any{"personType": "PESSOA_NATURAL", "cpfCnpj": "12345678909", "name": "Maria da Silva"},
		"payment": map[string]any{"type": "PIX", "date": "2026-12-07", "currency": "BRL", "amount": amount,
			"details": map[string]any{"localInstrument": "DICT", "proxy": "pix@example.com", "creditorAccount": creditorAccount()}},
	}
}

func creditorAccount() map[string]any {
	return map[string]any{"ispb": "12345678", "issuer": "1774", "number": "1234567890", "accountType": "CACC"}
}

// paymentData is the data of the payment of amount reais that consentData(amount) allows,
// under the consent id.
func paymentData(id, amount string) []any {
	return []any{map[string]any{
		"endToEndId": "E90400888202612071230k3j9x2m7p0q", "localInstrument": "DICT",
		"payment": map[string]any{"amount": amount, "currency": "BRL"}, "creditorAccount": creditorAccount(),
		"cnpjInitiator": "50685362000135", "consentId": id, "proxy": "pix@example.com",
	}}
}

// ofBank is psp's handler in -dialect openfinance, in process: the psp.Server, and the handler
// that exposeControl makes of it for a PSP bound to -addr, 127.0.0.1:8080 by default, whose
// answers the OpenAPI document does not describe fail the test that made it.
type ofBank struct {
	core   *psp.Server
	h      http.Handler
	client ofClient
}

// ofBase is the URL of an ofBank.
const ofBase = "http://127.0.0.1:8080"

// mustOFBank is the ofBank of args, after ofKeyFlags, and of edit's changes to the options.
func mustOFBank(t *testing.T, edit func(*options), args ...string) *ofBank {
	t.Helper()
	args = append(ofKeyFlags(t), args...)
	o, _, err := parseFlags(args, io.Discard)
	if err != nil {
		t.Fatalf("parseFlags(%q) error = %v", args, err)
	}
	if edit != nil {
		edit(&o)
	}
	core, err := psp.NewServer(o.cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(core.Close)
	bound, err := net.ResolveTCPAddr("tcp", o.addr)
	if err != nil {
		t.Fatal(err)
	}
	h, _, err := o.exposeControl(core, nil, bound, io.Discard)
	if err != nil {
		t.Fatalf("exposeControl() error = %v", err)
	}
	return &ofBank{core: core, h: openapitest.Handler(t, h, core), client: testClient()}
}

// serve serves r in process.
func (b *ofBank) serve(t *testing.T, r *http.Request) ofAnswer {
	t.Helper()
	w := httptest.NewRecorder()
	b.h.ServeHTTP(w, r)
	return b.client.read(t, w.Result())
}

// post POSTs data to path under key, signed anew, with the default token.
func (b *ofBank) post(t *testing.T, path, key string, data any) ofAnswer {
	t.Helper()
	return b.serve(t, b.client.request(t, http.MethodPost, ofBase, path, psp.DefaultToken, key, data))
}

// mustConsent creates a consent of amount reais and returns its consentId.
func (b *ofBank) mustConsent(t *testing.T, amount string) string {
	t.Helper()
	a := b.post(t, openfinance.ConsentsPath, uuid.NewString(), consentData(amount))
	if a.status != http.StatusCreated {
		t.Fatalf("POST %s = %d %s, want 201", openfinance.ConsentsPath, a.status, a.body)
	}
	return a.data("consentId")
}

// mustPay pays amount reais under a new consent and the key, and returns the paymentId.
func (b *ofBank) mustPay(t *testing.T, key, amount string) string {
	t.Helper()
	a := b.post(t, openfinance.PaymentsPath, key, paymentData(b.mustConsent(t, amount), amount))
	if a.status != http.StatusCreated {
		t.Fatalf("POST %s = %d %s, want 201", openfinance.PaymentsPath, a.status, a.body)
	}
	return a.data("paymentId")
}
