package main

// The keys of the Open Finance tests, and the files pixpay reads them from.

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"pixretry/internal/testkeys"
)

// testKeys are the RSA keys of the tests (package testkeys): the client's, which signs
// requests, and the PSP's, which signs answers.
func testKeys() struct{ client, psp *rsa.PrivateKey } {
	return struct{ client, psp *rsa.PrivateKey }{testkeys.Client(), testkeys.PSP()}
}

// writeFile writes data to the file name in a new folder of the test's, and returns its path.
func writeFile(tb testing.TB, name string, data []byte) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

// pemFile writes a file of one PEM block of type typ holding der, and returns its path.
func pemFile(tb testing.TB, typ string, der []byte) string {
	tb.Helper()
	return writeFile(tb, "key.pem", pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}))
}

// pkcs8File writes key to a PEM file as PKCS #8, and returns its path.
func pkcs8File(tb testing.TB, key any) string {
	tb.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		tb.Fatal(err)
	}
	return pemFile(tb, "PRIVATE KEY", der)
}

// jwksFile writes set to a JSON file, and returns its path.
func jwksFile(tb testing.TB, set jose.JSONWebKeySet) string {
	tb.Helper()
	data, err := json.Marshal(set)
	if err != nil {
		tb.Fatal(err)
	}
	return writeFile(tb, "jwks.json", data)
}

// The client key the double hands out must be one RSA private key of 2048 bits or more, with
// its kid.
func TestSigningJWK(t *testing.T) {
	client := testKeys().client
	small := testkeys.Small(0)
	ok := jose.JSONWebKey{Key: client, KeyID: "client-1"}
	for _, tt := range []struct {
		keys []jose.JSONWebKey
		want string
	}{
		{[]jose.JSONWebKey{ok}, ""},
		{nil, "0 keys, want 1"},
		{[]jose.JSONWebKey{ok, ok}, "2 keys, want 1"},
		{[]jose.JSONWebKey{{Key: &client.PublicKey, KeyID: "client-1"}}, "a *rsa.PublicKey, not an RSA private key"},
		{[]jose.JSONWebKey{{Key: small, KeyID: "small"}}, "a 1024-bit RSA key, want 2048 or more"},
		{[]jose.JSONWebKey{{Key: client}}, "a key without a kid"},
	} {
		key, kid, err := signingJWK(jose.JSONWebKeySet{Keys: tt.keys})
		switch {
		case tt.want == "" && (err != nil || key != client || kid != "client-1"):
			t.Errorf("signingJWK(%d keys) = %v, %q, %v; want the client key, client-1", len(tt.keys), key != nil, kid, err)
		case tt.want != "" && (err == nil || err.Error() != tt.want):
			t.Errorf("signingJWK(%d keys) error = %v, want %q", len(tt.keys), err, tt.want)
		}
	}
}

// The PSP's keys are kept as their public halves, each with its kid.
func TestPublicRSA(t *testing.T) {
	psp := testKeys().psp
	set, err := publicRSA(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: psp, KeyID: "psp-1"},
		{Key: &testKeys().client.PublicKey, KeyID: "psp-2"}}})
	if err != nil || len(set.Keys) != 2 || !set.Keys[0].IsPublic() || set.Keys[0].KeyID != "psp-1" ||
		!set.Keys[1].IsPublic() || set.Keys[1].KeyID != "psp-2" {
		t.Errorf("publicRSA() = %+v, %v; want the public halves of psp-1 and psp-2", set.Keys, err)
	}
	if _, err := publicRSA(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: psp, KeyID: "psp-1"}, {Key: psp}}}); err == nil ||
		err.Error() != "key 1 has no kid" {
		t.Errorf("publicRSA() of a second key without a kid: error = %v, want key 1 has no kid", err)
	}
}
