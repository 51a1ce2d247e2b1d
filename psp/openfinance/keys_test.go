package openfinance_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"io/fs"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-json-experiment/json"
	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
	"pixretry/psp/openfinance"
)

// thumbprint is the RFC 7638 thumbprint of key's public half, as the double makes kids.
func thumbprint(key any) string {
	jwk := jose.JSONWebKey{Key: key}
	public := jwk.Public()
	sum, err := public.Thumbprint(crypto.SHA256)
	if err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(sum)
}

func TestKeysServesThePublicSigningKey(t *testing.T) {
	b := mustBank(t, nil)
	w := serveKeys(b.of, http.MethodGet, openfinance.JWKSPath)
	var got map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || w.Code != http.StatusOK {
		t.Fatalf("GET %s = %d %s", openfinance.JWKSPath, w.Code, w.Body)
	}
	keys := got["keys"].([]any)
	key := keys[0].(map[string]any)
	if len(keys) != 1 || key["kid"] != thumbprint(signingKey) || key["alg"] != "PS256" || key["use"] != "sig" ||
		key["kty"] != "RSA" || key["d"] != nil {
		t.Errorf("GET %s = %v, want the one public key, kid its thumbprint", openfinance.JWKSPath, got)
	}
	if diff := cmp.Diff(b.jwks, b.of.PublicKeys(), cmp.Comparer(func(a, b jose.JSONWebKey) bool {
		return a.KeyID == b.KeyID && a.IsPublic() && b.IsPublic()
	})); diff != "" {
		t.Errorf("PublicKeys() (-served +got):\n%s", diff)
	}
	if _, ok := b.of.ClientKey(); ok {
		t.Error("ClientKey() reports a key, want none: Config gave the client keys")
	}
	for _, tc := range []struct {
		method, path string
		status       int
		problem      string
	}{
		{"GET", openfinance.ClientKeyPath, 404, `{"type":"urn:pixretry:psp:problem:not_found","title":"Not Found","status":404,"detail":"no resource at /_psp/openfinance/client-key.json","code":"not_found"}`},
		{"GET", "/_psp/openfinance/", 404, `{"type":"urn:pixretry:psp:problem:not_found","title":"Not Found","status":404,"detail":"no resource at /_psp/openfinance/","code":"not_found"}`},
		{"POST", openfinance.JWKSPath, 405, `{"type":"urn:pixretry:psp:problem:method_not_allowed","title":"Method Not Allowed","status":405,"detail":"/_psp/openfinance/jwks.json takes GET","code":"method_not_allowed"}`},
	} {
		w := serveKeys(b.of, tc.method, tc.path)
		if got := strings.TrimSpace(w.Body.String()); w.Code != tc.status || got != tc.problem ||
			w.Header().Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s %s = %d %s, want %d %s", tc.method, tc.path, w.Code, got, tc.status, tc.problem)
		}
	}
	if got := serveKeys(b.of, "POST", openfinance.JWKSPath).Header().Get("Allow"); got != "GET" {
		t.Errorf("Allow = %q, want GET", got)
	}
}

func TestGeneratedKeysServeAClient(t *testing.T) {
	core, err := psp.NewServer(psp.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer core.Close()
	of, err := openfinance.New(core, openfinance.Config{})
	if err != nil {
		t.Fatal(err)
	}
	w := serveKeys(of, http.MethodGet, openfinance.ClientKeyPath)
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(w.Body.Bytes(), &set); err != nil || len(set.Keys) != 1 || set.Keys[0].IsPublic() {
		t.Fatalf("GET %s = %d %s, want one private key", openfinance.ClientKeyPath, w.Code, w.Body)
	}
	key := set.Keys[0]
	if got, want := w.Header().Get("Content-Type"), "application/json"; got != want {
		t.Errorf("GET %s Content-Type = %q, want %q", openfinance.ClientKeyPath, got, want)
	}
	if key.Use != "sig" {
		t.Errorf("the client key's use = %q, want sig", key.Use)
	}
	if got, ok := of.ClientKey(); !ok || got.KeyID != key.KeyID || key.KeyID != thumbprint(key.Key) || key.Algorithm != "PS256" {
		t.Errorf("ClientKey() = %v %v, want the key served, kid its thumbprint", got.KeyID, ok)
	}
	b := &bank{tb: t, core: core, of: of, jwks: of.PublicKeys()}
	r := request(http.MethodPost, openfinance.ConsentsPath, sign(claimsFor(openfinance.ConsentsPath, consentData()),
		jose.PS256, key))
	r.Header.Set("x-idempotency-key", "c1")
	if a := b.serve(r); a.status != http.StatusCreated {
		t.Errorf("POST consents signed with the key served = %d %s, want 201", a.status, a.body)
	}
	if kid := b.jwks.Keys[0].KeyID; kid == thumbprint(signingKey) || kid != thumbprint(b.jwks.Keys[0].Key) {
		t.Errorf("signing kid = %s, want the thumbprint of a key generated", kid)
	}
	for name, key := range map[string]any{"signing": b.jwks.Keys[0].Key, "client": key.Key} {
		if bits := key.(interface{ Size() int }).Size() * 8; bits != 2048 {
			t.Errorf("the %s key generated has %d bits, want 2048", name, bits)
		}
	}
}

// writeFile writes data to a new file of dir and returns its name.
func writeFile(tb testing.TB, name, data string) string {
	tb.Helper()
	name = filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(name, []byte(data), 0o600); err != nil {
		tb.Fatal(err)
	}
	return name
}

func pemBlock(kind string, der []byte) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}))
}

func TestKeyFiles(t *testing.T) {
	pkcs8, _ := x509.MarshalPKCS8PrivateKey(signingKey)
	pkix, _ := x509.MarshalPKIXPublicKey(&clientKey.PublicKey)
	jwks, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{clientJWK()}}) // private: only its public half is used
	for _, tc := range []struct {
		name            string
		signing, client string // file contents
		kid             string // the kid the client signs with
	}{
		{"PKCS #1 and PKIX", pemBlock("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(signingKey)), pemBlock("PUBLIC KEY", pkix),
			thumbprint(clientKey)},
		{"PKCS #8 and PKCS #1", pemBlock("PRIVATE KEY", pkcs8), pemBlock("RSA PUBLIC KEY", x509.MarshalPKCS1PublicKey(&clientKey.PublicKey)),
			thumbprint(clientKey)},
		{"a JWK Set", pemBlock("PRIVATE KEY", pkcs8), string(jwks), "client-1"},
		{"two PEM blocks", pemBlock("PRIVATE KEY", pkcs8), pemBlock("PUBLIC KEY", mustPKIX(&otherKey.PublicKey)) +
			pemBlock("PUBLIC KEY", pkix), thumbprint(clientKey)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := mustBank(t, func(_ *psp.Config, c *openfinance.Config) {
					*c = openfinance.Config{SigningKeyFile: writeFile(t, "signing.pem", tc.signing),
						ClientKeysFile: writeFile(t, "client", tc.client)}
				})
				if kid := b.jwks.Keys[0].KeyID; kid != thumbprint(signingKey) {
					t.Errorf("signing kid = %s, want the thumbprint of the key in the file", kid)
				}
				r := request(http.MethodPost, openfinance.ConsentsPath, sign(claimsFor(openfinance.ConsentsPath, consentData()),
					jose.PS256, jose.JSONWebKey{Key: clientKey, KeyID: tc.kid}))
				r.Header.Set("x-idempotency-key", "c1")
				if a := b.serve(r); a.status != http.StatusCreated {
					t.Errorf("POST consents = %d %s, want 201", a.status, a.body)
				}
			})
		})
	}
}

func mustPKIX(key any) []byte {
	der, err := x509.MarshalPKIXPublicKey(key)
	if err != nil {
		panic(err)
	}
	return der
}

func TestKeyFilesRefused(t *testing.T) {
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ecPKCS8, _ := x509.MarshalPKCS8PrivateKey(ec)
	ecJWKS, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &ec.PublicKey, KeyID: "ec"}}})
	good := pemBlock("PUBLIC KEY", mustPKIX(&clientKey.PublicKey))
	signing := pemBlock("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(signingKey))
	for _, tc := range []struct {
		name, signing, client, want string
	}{
		{"signing not PEM", "hello", good, "openfinance: signing key file SIGNING: no PEM block"},
		{"signing a public key", good, good, `openfinance: signing key file SIGNING: a PEM block "PUBLIC KEY", not an RSA private key`},
		{"signing an EC key", pemBlock("PRIVATE KEY", ecPKCS8), good, "openfinance: signing key file SIGNING: a *ecdsa.PrivateKey, not an RSA key"},
		{"signing PKCS #1 broken", pemBlock("RSA PRIVATE KEY", []byte{1}), good, "openfinance: signing key file SIGNING: asn1: syntax error"},
		{"client not PEM", signing, "hello", "openfinance: client keys file CLIENT: no PEM block"},
		{"client a private key", signing, signing, `openfinance: client keys file CLIENT: a PEM block "RSA PRIVATE KEY", not a public key`},
		{"client an EC key", signing, pemBlock("PUBLIC KEY", mustPKIX(&ec.PublicKey)),
			`openfinance: client keys file CLIENT: key 0 (kid "") is a *ecdsa.PublicKey, not an RSA key`},
		{"client PKIX broken", signing, pemBlock("PUBLIC KEY", []byte{1}), "openfinance: client keys file CLIENT: asn1: syntax error"},
		{"client JWK Set empty", signing, `{"keys":[]}`, "openfinance: client keys file CLIENT: no keys"},
		{"client JWK Set of an EC key", signing, string(ecJWKS), `openfinance: client keys file CLIENT: key 0 (kid "ec") is a *ecdsa.PublicKey, not an RSA key`},
		{"client JWK Set broken", signing, `{"keys":`, "openfinance: client keys file CLIENT: jsontext: unexpected EOF within"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			signingFile, clientFile := writeFile(t, "signing", tc.signing), writeFile(t, "client", tc.client)
			_, err := openfinance.New(nil, openfinance.Config{SigningKeyFile: signingFile, ClientKeysFile: clientFile})
			want := strings.NewReplacer("SIGNING", signingFile, "CLIENT", clientFile).Replace(tc.want)
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("New() = %v, want %s", err, want)
			}
		})
	}
	_, err := openfinance.New(nil, openfinance.Config{SigningKeyFile: filepath.Join(t.TempDir(), "none")})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("New() with a signing key file missing = %v, want fs.ErrNotExist", err)
	}
	_, err = openfinance.New(nil, openfinance.Config{SigningKey: signingKey, ClientKeysFile: filepath.Join(t.TempDir(), "none")})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("New() with a client keys file missing = %v, want fs.ErrNotExist", err)
	}
}

func TestConfigRefused(t *testing.T) {
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	for _, tc := range []struct {
		field  string
		cfg    openfinance.Config
		reason string
	}{
		{"SigningKeyFile", openfinance.Config{SigningKey: signingKey, SigningKeyFile: "x"}, "set with SigningKey; set at most one"},
		{"ClientKeysFile", openfinance.Config{ClientKeys: []jose.JSONWebKey{}, ClientKeysFile: "x"}, "set with ClientKeys; set at most one"},
		{"KeyTTL", openfinance.Config{KeyTTL: -1}, "negative -1ns"},
		{"ConsentTTL", openfinance.Config{ConsentTTL: -time.Second}, "negative -1s"},
		{"MaxKeys", openfinance.Config{MaxKeys: -1}, "negative -1"},
		{"MaxJTIs", openfinance.Config{MaxJTIs: -1}, "negative -1"},
		{"MaxConsents", openfinance.Config{MaxConsents: -1}, "negative -1"},
		{"MaxPayments", openfinance.Config{MaxPayments: -1}, "negative -1"},
		{"ClientKeys", openfinance.Config{SigningKey: signingKey, ClientKeys: []jose.JSONWebKey{}}, "no keys"},
		{"ClientKeys", openfinance.Config{SigningKey: signingKey, ClientKeys: []jose.JSONWebKey{{Key: &ec.PublicKey}}},
			`key 0 (kid "") is a *ecdsa.PublicKey, not an RSA key`},
	} {
		_, err := openfinance.New(nil, tc.cfg)
		var ce *openfinance.ConfigError
		if !errors.As(err, &ce) || ce.Field != tc.field || ce.Reason != tc.reason {
			t.Errorf("New() = %v, want a ConfigError of %s: %s", err, tc.field, tc.reason)
			continue
		}
		if want := "openfinance: invalid config: " + tc.field + ": " + tc.reason; err.Error() != want {
			t.Errorf("Error() = %q, want %q", err, want)
		}
	}
}

// TestNewRefusesAnInvalidSigningKey: a signing key without its private exponent cannot sign,
// and New says so.
func TestNewRefusesAnInvalidSigningKey(t *testing.T) {
	key := &rsa.PrivateKey{PublicKey: rsa.PublicKey{N: big.NewInt(3233), E: 17}}
	_, err := openfinance.New(http.NotFoundHandler(), openfinance.Config{SigningKey: key})
	if want := "openfinance: the signing key is not a valid RSA key"; err == nil || err.Error() != want {
		t.Errorf("New() = %v, want %q", err, want)
	}
}
