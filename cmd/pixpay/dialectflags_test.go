package main

// The options of the dialects on the command line: -dialect, -payer-key, -signing-key,
// -psp-keys and add's -consent.

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"pixretry/internal/testkeys"
	"pixretry/pix/efi"
	"pixretry/pix/openfinance"
	efipsp "pixretry/psp/efi"
)

// Every option of a dialect that is wrong is a bad command line, which says what it wants.
func TestBadDialectOptionSaysWhatItWants(t *testing.T) {
	db := filepath.Join(t.TempDir(), "pay.db")
	small := testkeys.Small(0)
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	public, _ := x509.MarshalPKIXPublicKey(&testKeys().client.PublicKey)
	notPEM := writeFile(t, "key.txt", []byte("not a key\n"))
	smallFile, ecFile := pkcs8File(t, small), pkcs8File(t, ec)
	publicFile, garbled := pemFile(t, "PUBLIC KEY", public), pemFile(t, "RSA PRIVATE KEY", []byte("garbled"))
	ecSet := jwksFile(t, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &ec.PublicKey, KeyID: "ec-1"}}})
	noKid := jwksFile(t, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &testKeys().psp.PublicKey}}})
	empty := writeFile(t, "jwks.json", []byte(`{"keys":[]}`))
	const wantKey = ": want an RSA private key of 2048 bits or more, in PEM (PKCS #1 or PKCS #8)"
	const wantSet = ": want the PSP's JWK Set of RSA keys, in JSON"
	of := []string{"-db", db, "-dialect", "openfinance"}
	for _, tt := range []struct {
		args []string
		says string
	}{
		{[]string{"-db", db, "-dialect", "pixx", "list"}, `invalid value "pixx" for flag -dialect: want pix, efi or openfinance`},
		{[]string{"-db", db, "-dialect", "efi", "-payer-key", "", "list"}, `pixpay: -payer-key "": want the paying ` +
			`account's Pix key: a CPF, a CNPJ, a phone as +5511987654321, an e-mail or an EVP`},
		{[]string{"-db", db, "-dialect", "efi", "-payer-key", "payer", "list"}, `pixpay: -payer-key "payer": want the paying`},
		{[]string{"-db", db, "-payer-key", "payer@example.com", "list"}, "pixpay: -payer-key is an option of -dialect efi"},
		{[]string{"-db", db, "-dialect", "efi", "-signing-key", notPEM, "list"},
			"pixpay: -signing-key is an option of -dialect openfinance"},
		{[]string{"-db", db, "-psp-keys", empty, "list"}, "pixpay: -psp-keys is an option of -dialect openfinance"},
		{[]string{"-db", db, "add", "-id", "a", "-valor", "1.00", "-chave", "pix@example.com", "-consent", "urn:x:1"},
			"pixpay add: -consent is an option of -dialect openfinance, whose payments each consume a consent"},
		{[]string{"-db", db, "-dialect", "efi", "add", "-id", "a", "-valor", "1.00", "-chave", "pix@example.com"},
			"pixpay add: -psp is required with -dialect efi: the PSP's API decides the form of the intent's key"},
		{append(of, "add", "-id", "a", "-valor", "1.00", "-chave", "pix@example.com", "-consent", "urn:x:1"),
			"pixpay add: -psp is required with -dialect openfinance: the PSP's API decides the form of the intent's key"},
		{append(of, "-signing-key", filepath.Join(t.TempDir(), "absent.pem"), "list"), "pixpay: -signing-key: open "},
		{append(of, "-signing-key", notPEM, "list"), "pixpay: -signing-key " + notPEM + ": no PEM block" + wantKey},
		{append(of, "-signing-key", publicFile, "list"), "pixpay: -signing-key " + publicFile + `: a PEM block "PUBLIC KEY"` + wantKey},
		{append(of, "-signing-key", garbled, "list"), "pixpay: -signing-key " + garbled + `: a PEM block "RSA PRIVATE KEY" that holds no key: `},
		{append(of, "-signing-key", smallFile, "list"), "pixpay: -signing-key " + smallFile + ": a 1024-bit RSA key" + wantKey},
		{append(of, "-signing-key", ecFile, "list"), "pixpay: -signing-key " + ecFile + ": a *ecdsa.PrivateKey" + wantKey},
		{append(of, "-psp-keys", filepath.Join(t.TempDir(), "absent.json"), "list"), "pixpay: -psp-keys: open "},
		{append(of, "-psp-keys", notPEM, "list"), "pixpay: -psp-keys " + notPEM + ": invalid character 'o' in literal null " +
			"(expecting 'u')" + wantSet},
		{append(of, "-psp-keys", empty, "list"), "pixpay: -psp-keys " + empty + ": no key" + wantSet},
		{append(of, "-psp-keys", ecSet, "list"), "pixpay: -psp-keys " + ecSet + `: key "ec-1" is a *ecdsa.PublicKey, not RSA` + wantSet},
		{append(of, "-psp-keys", noKid, "list"), "pixpay: -psp-keys " + noKid + ": key 0 has no kid" + wantSet},
	} {
		out, stderr, code := pixpay(t, tt.args...)
		if code != 2 || out != "" || !strings.HasPrefix(stderr, tt.says) || !strings.Contains(stderr, "\nusage:\n") {
			t.Errorf("pixpay %v: exit %d, stdout %q, stderr %q; want 2, %q and the usage", tt.args, code, out, stderr, tt.says)
		}
	}
}

// -dialect gives the Client its Dialect: none for pix, Efí's with -payer-key or the double's
// payer, and Open Finance's with the keys of -signing-key and -psp-keys, the signing key
// named by its thumbprint.
func TestDialectOption(t *testing.T) {
	psp := []string{"-db", "pay.db", "-psp", "http://127.0.0.1:1"}
	client := testKeys().client
	pkcs1 := pemFile(t, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(client))
	pkcs8 := pkcs8File(t, client)
	set := jwksFile(t, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: testKeys().psp, KeyID: "psp-1"}}})
	for _, tt := range []struct {
		args []string
		want any
	}{
		{nil, nil},
		{[]string{"-dialect", "pix"}, nil},
		{[]string{"-dialect", "efi"}, efi.Dialect{PayerKey: efipsp.PayerKey}},
		{[]string{"-dialect", "efi", "-payer-key", "+5511987654321"}, efi.Dialect{PayerKey: "+5511987654321"}},
	} {
		o, _, _, err := commandLine(append(append(psp, tt.args...), "list"), io.Discard)
		if err != nil {
			t.Fatalf("commandLine(%v) error = %v", tt.args, err)
		}
		if got := o.cfg.Client.Dialect; got != tt.want {
			t.Errorf("pixpay %v: the Client's Dialect is %#v, want %#v", tt.args, got, tt.want)
		}
	}
	for _, file := range []string{pkcs1, pkcs8} {
		args := append(psp, "-dialect", "openfinance", "-signing-key", file, "-psp-keys", set, "list")
		o, _, _, err := commandLine(args, io.Discard)
		if err != nil {
			t.Fatalf("commandLine(%v) error = %v", args, err)
		}
		d, ok := o.cfg.Client.Dialect.(*openfinance.Dialect)
		if !ok || d != o.openFinance {
			t.Fatalf("pixpay %v: the Client's Dialect is %#v, want the Open Finance one", args, o.cfg.Client.Dialect)
		}
		sum, _ := (&jose.JSONWebKey{Key: &client.PublicKey}).Thumbprint(crypto.SHA256)
		thumb := base64.RawURLEncoding.EncodeToString(sum)
		if !d.Key.Public().(*rsa.PublicKey).Equal(&client.PublicKey) || d.KeyID != thumb {
			t.Errorf("pixpay %v: signs with kid %q, want the client key's thumbprint %q", args, d.KeyID, thumb)
		}
		if len(d.PSPKeys.Keys) != 1 || d.PSPKeys.Keys[0].KeyID != "psp-1" || !d.PSPKeys.Keys[0].IsPublic() {
			t.Errorf("pixpay %v: PSP keys %+v, want the public half of psp-1", args, d.PSPKeys.Keys)
		}
		if err := d.Validate(); err != nil {
			t.Errorf("pixpay %v: the Dialect is not valid: %v", args, err)
		}
	}
}
