package openfinance_test

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-json-experiment/json"
	"github.com/google/uuid"
	"go.uber.org/goleak"

	"pixretry/internal/testkeys"
	"pixretry/psp"
	"pixretry/psp/openfinance"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The keys of the tests (package testkeys): RSA key generation is slow, and a mutation pass
// starts a test binary per mutant.
var (
	signingKey = testkeys.PSP()
	clientKey  = testkeys.Client()
	otherKey   = testkeys.Stranger() // a key the double does not trust
)

// clientJWK is the client's private key as it signs, with the kid the double knows it by.
func clientJWK() jose.JSONWebKey {
	return jose.JSONWebKey{Key: clientKey, KeyID: "client-1", Algorithm: "PS256", Use: "sig"}
}

const (
	host      = "psp.test"
	token     = psp.DefaultToken
	start     = "2000-01-01T00:00:00Z" // the clock of a synctest bubble when it starts
	consentID = "urn:pixretry:consent" // a placeholder the answers' consentIds replace
)

// bank is the double speaking v4: a psp.Server behind an openfinance.Server.
type bank struct {
	tb   testing.TB
	core *psp.Server
	of   *openfinance.Server
	jwks jose.JSONWebKeySet // as Keys serves it at JWKSPath
}

// mustBank makes a bank of psp.DefaultConfig and an openfinance.Config with the tests' keys,
// both edited by edit if not nil.
func mustBank(tb testing.TB, edit func(*psp.Config, *openfinance.Config)) *bank {
	tb.Helper()
	pcfg := psp.DefaultConfig()
	ocfg := openfinance.Config{SigningKey: signingKey, ClientKeys: []jose.JSONWebKey{clientJWK()}}
	if edit != nil {
		edit(&pcfg, &ocfg)
	}
	core, err := psp.NewServer(pcfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(core.Close)
	of, err := openfinance.New(core, ocfg)
	if err != nil {
		tb.Fatal(err)
	}
	b := &bank{tb: tb, core: core, of: of}
	jwks := serveKeys(of, http.MethodGet, openfinance.JWKSPath)
	if err := json.Unmarshal(jwks.Body.Bytes(), &b.jwks); err != nil {
		tb.Fatalf("GET %s: %v", openfinance.JWKSPath, err)
	}
	return b
}

// serveKeys serves a request to of.Keys().
func serveKeys(of *openfinance.Server, method, path string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	of.Keys().ServeHTTP(w, httptest.NewRequest(method, "http://"+host+path, nil))
	return w
}

// answer is an answer of the double: its status, header and body. claims are a signed
// answer's claims, verified with the served JWKS, aud, iss, jti and iat checked and left out;
// json is a plain answer's body. aborted says the double hung up instead.
type answer struct {
	status  int
	header  http.Header
	body    string
	claims  map[string]any
	json    map[string]any
	aborted bool
}

// serve sends r to the double, as a connection that cannot be taken over: a fault that hangs
// up aborts the handler.
func (b *bank) serve(r *http.Request) (a answer) {
	b.tb.Helper()
	w := httptest.NewRecorder()
	sent := time.Now().Unix()
	func() {
		defer func() {
			if v := recover(); v == http.ErrAbortHandler {
				a.aborted = true
			} else if v != nil {
				panic(v)
			}
		}()
		b.of.ServeHTTP(w, r)
	}()
	if a.aborted {
		return a
	}
	a.status, a.header, a.body = w.Code, w.Header(), w.Body.String()
	switch w.Header().Get("Content-Type") {
	case "application/jwt":
		a.claims = b.verify(a.body, sent)
	case "application/json; charset=utf-8":
		if err := json.Unmarshal(w.Body.Bytes(), &a.json); err != nil {
			b.tb.Fatalf("%s %s: plain answer %q: %v", r.Method, r.URL.Path, a.body, err)
		}
	}
	return a
}

// verify returns the claims of jws, checked: a PS256 JWS of type JWT that the served JWKS
// verifies, whose aud is the client's organisationId, iss the double's, jti a UUID and iat a
// whole second from sent, when the request was sent, to now: the answer may be signed in the
// second after the request's.
func (b *bank) verify(jws string, sent int64) map[string]any {
	b.tb.Helper()
	sig, err := jose.ParseSignedCompact(jws, []jose.SignatureAlgorithm{jose.PS256})
	if err != nil {
		b.tb.Fatalf("answer %q: %v", jws, err)
	}
	payload, err := sig.Verify(b.jwks)
	if err != nil {
		b.tb.Fatalf("answer's signature: %v", err)
	}
	if typ := sig.Signatures[0].Protected.ExtraHeaders["typ"]; typ != "JWT" {
		b.tb.Errorf("answer's typ = %v, want JWT", typ)
	}
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil {
		b.tb.Fatalf("answer's claims: %v", err)
	}
	want := map[string]any{"aud": openfinance.DefaultClientOrganisationID, "iss": openfinance.DefaultOrganisationID}
	for name, v := range want {
		if claims[name] != v {
			b.tb.Errorf("answer's %s = %v, want %v", name, claims[name], v)
		}
	}
	if iat, ok := claims["iat"].(float64); !ok || iat != float64(int64(iat)) || int64(iat) < sent ||
		int64(iat) > time.Now().Unix() {
		b.tb.Errorf("answer's iat = %v, want a whole second from %d to now", claims["iat"], sent)
	}
	if jti, _ := claims["jti"].(string); uuid.Validate(jti) != nil {
		b.tb.Errorf("answer's jti = %v, want a UUID", claims["jti"])
	}
	for _, name := range []string{"aud", "iss", "iat", "jti"} {
		delete(claims, name)
	}
	return claims
}

// request is a request of the API to path with the headers every request takes: a bearer
// token and an x-fapi-interaction-id. body, if not empty, is sent as application/jwt.
func request(method, path, body string) *http.Request {
	r := httptest.NewRequest(method, "http://"+host+path, strings.NewReader(body))
	r.Header.Set("Authorization", "Bearer "+token)
	r.Header.Set("x-fapi-interaction-id", "d78fc4e5-37ca-4da3-adf2-9b082bf92280")
	if body != "" {
		r.Header.Set("Content-Type", "application/jwt")
	}
	return r
}

// signedRequest is a POST to path under key of the JWS sign makes of claims.
func signedRequest(path, key string, claims map[string]any) *http.Request {
	r := request(http.MethodPost, path, sign(claims, jose.PS256, clientJWK()))
	r.Header.Set("x-idempotency-key", key)
	return r
}

// claimsFor are the claims of a request to path carrying data: aud the endpoint's URL, iss
// the client's organisationId, a new jti and iat now.
func claimsFor(path string, data any) map[string]any {
	return map[string]any{"aud": "http://" + host + path, "iss": openfinance.DefaultClientOrganisationID,
		"jti": uuid.NewString(), "iat": time.Now().Unix(), "data": data}
}

// sign is claims signed with key by alg, as a compact JWS of type JWT.
func sign(claims map[string]any, alg jose.SignatureAlgorithm, key jose.JSONWebKey) string {
	payload, err := json.Marshal(claims, json.Deterministic(true))
	if err != nil {
		panic(err)
	}
	return signPayload(string(payload), alg, key)
}

// signPayload is payload signed with key by alg, as a compact JWS of type JWT.
func signPayload(payload string, alg jose.SignatureAlgorithm, key jose.JSONWebKey) string {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		panic(err)
	}
	jws, err := signer.Sign([]byte(payload))
	if err != nil {
		panic(err)
	}
	compact, _ := jws.CompactSerialize()
	return compact
}

// post POSTs data to path under key, signed anew.
func (b *bank) post(path, key string, data any) answer {
	b.tb.Helper()
	return b.serve(signedRequest(path, key, claimsFor(path, data)))
}

// get GETs path.
func (b *bank) get(path string) answer {
	b.tb.Helper()
	return b.serve(request(http.MethodGet, path, ""))
}

// consentData is the data of a consent the tests pay: 150.00 to the Pix key pix@example.com.
func consentData() map[string]any {
	return map[string]any{
		"loggedUser": map[string]any{"document": map[string]any{"identification": "11111111111", "rel": "CPF"}},
		"creditor":   map[string]any{"personType": "PESSOA_NATURAL", "cpfCnpj": "58764789000137", "name": "Marco Antonio de Brito"},
		"payment": map[string]any{"type": "PIX", "date": "2000-01-01", "currency": "BRL", "amount": "150.00",
			"details": map[string]any{"localInstrument": "DICT", "proxy": "pix@example.com", "creditorAccount": creditorAccount()}},
	}
}

func creditorAccount() map[string]any {
	return map[string]any{"ispb": "12345678", "issuer": "1774", "number": "1234567890", "accountType": "CACC"}
}

// paymentData is the data of a payment of the consent id that matches consentData.
func paymentData(id string) []any {
	return []any{map[string]any{
		"endToEndId": "E9040088820000101000000123873170", "localInstrument": "DICT",
		"payment": map[string]any{"amount": "150.00", "currency": "BRL"}, "creditorAccount": creditorAccount(),
		"cnpjInitiator": "50685362000135", "consentId": id, "proxy": "pix@example.com",
		"remittanceInformation": "rent",
	}}
}

// mustConsent creates a consent of data and returns its consentId.
func (b *bank) mustConsent(data map[string]any) string {
	b.tb.Helper()
	a := b.post(openfinance.ConsentsPath, uuid.NewString(), data)
	if a.status != http.StatusCreated {
		b.tb.Fatalf("POST consents = %d %s, want 201", a.status, a.body)
	}
	return a.claims["data"].(map[string]any)["consentId"].(string)
}

// pay POSTs a payment of data under key.
func (b *bank) pay(key string, data any) answer {
	b.tb.Helper()
	return b.post(openfinance.PaymentsPath, key, data)
}

// consentStatus is the status of the consent id, as GET /consents/{id} reads it.
func (b *bank) consentStatus(id string) string {
	b.tb.Helper()
	a := b.get(openfinance.ConsentsPath + "/" + id)
	if a.status != http.StatusOK {
		b.tb.Fatalf("GET consent = %d %s, want 200", a.status, a.body)
	}
	return a.claims["data"].(map[string]any)["status"].(string)
}

// errorBody is the body of an error answer with code and detail, made now.
func errorBody(code, title, detail string) map[string]any {
	return map[string]any{"errors": []any{map[string]any{"code": code, "title": title, "detail": detail}},
		"meta": map[string]any{"requestDateTime": time.Now().UTC().Format(time.RFC3339)}}
}

// edited is m with the member at path (names from the top) set to v, or deleted if v is nil.
// m is not changed.
func edited(m map[string]any, v any, path ...string) map[string]any {
	out := maps.Clone(m)
	if len(path) == 1 {
		if v == nil {
			delete(out, path[0])
		} else {
			out[path[0]] = v
		}
		return out
	}
	out[path[0]] = edited(out[path[0]].(map[string]any), v, path[1:]...)
	return out
}

// equalJSON reports whether a and b encode to the same JSON.
func equalJSON(a, b any) bool {
	ja, _ := json.Marshal(a, json.Deterministic(true))
	jb, _ := json.Marshal(b, json.Deterministic(true))
	return string(ja) == string(jb)
}
