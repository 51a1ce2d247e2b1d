package main

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	encjson "encoding/json" // json is exposure_test.go's media type
	"encoding/pem"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"pixretry/internal/cmdline"
	"pixretry/psp"
	"pixretry/psp/control"
	"pixretry/psp/openfinance"
)

// TestOpenFinanceFlagsReachTheConfig: the -openfinance- flags make the openfinance.Config, and
// -openfinance-key-ttl may be -key-ttl but not more.
func TestOpenFinanceFlagsReachTheConfig(t *testing.T) {
	tests := []struct {
		args []string
		want openfinance.Config
	}{
		{nil, openfinance.Config{}},
		{[]string{"-dialect", "efi"}, openfinance.Config{}},
		{[]string{"-dialect", "openfinance"}, openfinance.Config{OrganisationID: "pixretry-psp",
			ClientOrganisationID: "pixretry-initiator", KeyTTL: 24 * time.Hour, ConsentTTL: time.Hour}},
		{[]string{"-dialect", "openfinance", "-openfinance-signing-key-file", "psp.pem", "-openfinance-client-keys-file",
			"clients.json", "-openfinance-org-id", "bank-9", "-openfinance-client-org-id", "initiator-7",
			"-key-ttl", "2h", "-openfinance-key-ttl", "2h", "-openfinance-consent-ttl", "90s"},
			openfinance.Config{OrganisationID: "bank-9", ClientOrganisationID: "initiator-7", SigningKeyFile: "psp.pem",
				ClientKeysFile: "clients.json", KeyTTL: 2 * time.Hour, ConsentTTL: 90 * time.Second}},
	}
	for _, tt := range tests {
		o, _, err := parseFlags(tt.args, io.Discard)
		if err != nil {
			t.Errorf("parseFlags(%q) error = %v", tt.args, err)
			continue
		}
		if o.openFinance.SigningKey != nil || o.openFinance.ClientKeys != nil {
			t.Errorf("parseFlags(%q): keys given in openfinance.Config, want only their files", tt.args)
		}
		// *rsa.PrivateKey's Equal takes no nil receiver: the keys are checked above.
		ignoreKeys := cmpopts.IgnoreFields(openfinance.Config{}, "SigningKey", "ClientKeys")
		if diff := cmp.Diff(tt.want, o.openFinance, ignoreKeys); diff != "" {
			t.Errorf("parseFlags(%q): openfinance.Config mismatch (-want +got):\n%s", tt.args, diff)
		}
	}
	args := []string{"-dialect", "openfinance", "-key-ttl", "2h", "-openfinance-key-ttl", "2h0m0.000000001s"}
	_, _, err := parseFlags(args, io.Discard)
	if want := "psp: -key-ttl 2h0m0s: want at least -openfinance-key-ttl (2h0m0.000000001s) with -dialect openfinance"; err == nil ||
		!strings.Contains(err.Error(), want) {
		t.Errorf("parseFlags(%q) error = %v, want %q", args, err, want)
	}
}

// ofDo sends r through s's client, which holds every answer to the OpenAPI document, and reads
// the answer.
func (s *started) ofDo(t *testing.T, c ofClient, r *http.Request) ofAnswer {
	t.Helper()
	resp, err := s.client.Do(r)
	if err != nil {
		t.Fatalf("%s %s: %v", r.Method, r.URL.Path, err)
	}
	return c.read(t, resp)
}

// TestDialectOpenFinanceServesPaymentsV4: with -dialect openfinance, a consent, a payment, its
// replay and its reads are served in payments v4, in the organisationIds of the flags; the
// control API sees the payment, and the double's own path is not served.
func TestDialectOpenFinanceServesPaymentsV4(t *testing.T) {
	s := mustStart(t, append(ofKeyFlags(t), "-tokens", "smoke", "-openfinance-org-id", "bank-9",
		"-openfinance-client-org-id", "initiator-7")...)
	c := testClient()
	c.iss = "initiator-7"
	a := s.ofDo(t, c, c.request(t, "POST", s.url, openfinance.ConsentsPath, "smoke", "c1", consentData("150.00")))
	consent := a.data("consentId")
	if a.status != 201 || a.claims["iss"] != "bank-9" || a.claims["aud"] != "initiator-7" || a.data("status") != "AUTHORISED" {
		t.Fatalf("POST consents = %d %s, want 201 AUTHORISED from bank-9 to initiator-7", a.status, a.body)
	}
	pay := func() ofAnswer {
		return s.ofDo(t, c, c.request(t, "POST", s.url, openfinance.PaymentsPath, "smoke", "k1", paymentData(consent, "150.00")))
	}
	a = pay()
	id := a.data("paymentId")
	if a.status != 201 || a.data("status") != "ACSC" || id == "" {
		t.Fatalf("POST payments = %d %s, want 201 ACSC", a.status, a.body)
	}
	if a = pay(); a.status != 201 || a.data("paymentId") != id {
		t.Errorf("the payment's replay, signed anew = %d %s, want 201 with paymentId %s", a.status, a.body, id)
	}
	if a = s.ofDo(t, c, c.request(t, "GET", s.url, openfinance.PaymentsPath+"/"+id, "smoke", "", nil)); a.status != 200 ||
		a.data("status") != "ACSC" {
		t.Errorf("GET the payment = %d %s, want 200 ACSC", a.status, a.body)
	}
	if a = s.ofDo(t, c, c.request(t, "GET", s.url, openfinance.ConsentsPath+"/"+consent, "smoke", "", nil)); a.status != 200 ||
		a.data("status") != "CONSUMED" {
		t.Errorf("GET the consent = %d %s, want 200 CONSUMED", a.status, a.body)
	}
	if status, body := s.do(t, "GET", control.SettlementsPath, "", nil); status != 200 ||
		!strings.Contains(body, `"count":1,`) || !strings.Contains(body, `"idempotencyKey":"k1"`) {
		t.Errorf("GET %s = %d %s, want the one payment under k1", control.SettlementsPath, status, body)
	}
	if status, body := s.sendUnchecked(t, "POST", psp.PaymentsPath, payment); status != 404 || !strings.Contains(body, `"NOT_FOUND"`) {
		t.Errorf("POST %s = %d %s, want 404 NOT_FOUND", psp.PaymentsPath, status, body)
	}
	if logs := s.stopAndLogs(t); !strings.Contains(logs, "dialect=openfinance") {
		t.Errorf("stderr does not say dialect=openfinance:\n%s", logs)
	}
}

// TestDialectOpenFinanceKeysAreControlPaths: the keys are served behind the control API's
// token, and not at all when the control API is off.
func TestDialectOpenFinanceKeysAreControlPaths(t *testing.T) {
	s := mustStart(t, append(ofKeyFlags(t), "-control-token", "ctl")...)
	if got := s.send(t, "GET", openfinance.JWKSPath, ""); got != 401 {
		t.Errorf("GET %s without the control token = %d, want 401", openfinance.JWKSPath, got)
	}
	if got := s.send(t, "GET", openfinance.JWKSPath, "", "Authorization", "Bearer ctl"); got != 200 {
		t.Errorf("GET %s = %d, want 200", openfinance.JWKSPath, got)
	}
	s.stopAndLogs(t)
	s = mustStartEverywhere(t, ofKeyFlags(t)...)
	c := testClient()
	if a := s.ofDo(t, c, c.request(t, "GET", s.url, openfinance.JWKSPath, psp.DefaultToken, "", nil)); a.status != 404 ||
		a.code() != "NOT_FOUND" {
		t.Errorf("GET %s with the control API off = %d %s, want 404 NOT_FOUND", openfinance.JWKSPath, a.status, a.body)
	}
	if a := s.ofDo(t, c, c.request(t, "POST", s.url, openfinance.ConsentsPath, psp.DefaultToken, "c1", consentData("1.00"))); a.status != 201 {
		t.Errorf("POST consents with the control API off = %d %s, want 201", a.status, a.body)
	}
	s.stopAndLogs(t)
}

// TestDialectOpenFinanceMakesItsKeys: without key files, psp makes both key pairs, serves the
// public signing key and the client's private key, and trusts that client key.
func TestDialectOpenFinanceMakesItsKeys(t *testing.T) {
	s := mustStart(t, "-dialect", "openfinance")
	keySet := func(path string) jose.JSONWebKeySet {
		_, body := s.do(t, "GET", path, "", nil)
		var set jose.JSONWebKeySet
		if err := encjson.Unmarshal([]byte(body), &set); err != nil || len(set.Keys) != 1 {
			t.Fatalf("GET %s = %s, %v; want a JWK Set of one key", path, body, err)
		}
		return set
	}
	client, signing := keySet(openfinance.ClientKeyPath).Keys[0], keySet(openfinance.JWKSPath).Keys[0]
	if client.IsPublic() || !signing.IsPublic() {
		t.Fatalf("client key public %v, signing key public %v; want a private client key and a public signing key",
			client.IsPublic(), signing.IsPublic())
	}
	c := ofClient{iss: openfinance.DefaultClientOrganisationID, key: client, pspKey: signing.Key.(*rsa.PublicKey)}
	consent := s.ofDo(t, c, c.request(t, "POST", s.url, openfinance.ConsentsPath, psp.DefaultToken, "c1", consentData("1.00")))
	a := s.ofDo(t, c, c.request(t, "POST", s.url, openfinance.PaymentsPath, psp.DefaultToken, "k1",
		paymentData(consent.data("consentId"), "1.00")))
	if a.status != 201 {
		t.Errorf("a payment signed with the key handed out = %d %s, want 201", a.status, a.body)
	}
	s.stopAndLogs(t)
}

// TestOpenFinanceClientKeysInPEM: a client key given as a PEM public key is known by its RFC
// 7638 thumbprint.
func TestOpenFinanceClientKeysInPEM(t *testing.T) {
	der, err := x509.MarshalPKIXPublicKey(&testKeys().client.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	file := writeFile(t, "client.pem", string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})))
	b := mustOFBank(t, func(o *options) { o.openFinance.ClientKeysFile = file })
	sum, err := (&jose.JSONWebKey{Key: &testKeys().client.PublicKey}).Thumbprint(crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	b.client.key.KeyID = base64.RawURLEncoding.EncodeToString(sum)
	b.mustPay(t, "k1", "1.00")
}

// TestResetForgetsTheOpenFinanceFrontEnd: POST /_psp/reset forgets the consents and keys of
// -dialect openfinance with the PSP's: a payment's replay after it pays nothing anew.
func TestResetForgetsTheOpenFinanceFrontEnd(t *testing.T) {
	s := mustStart(t, append(ofKeyFlags(t), "-tokens", "smoke")...)
	c := testClient()
	consent := s.ofDo(t, c, c.request(t, "POST", s.url, openfinance.ConsentsPath, "smoke", "c1", consentData("1.00"))).data("consentId")
	pay := func() ofAnswer {
		return s.ofDo(t, c, c.request(t, "POST", s.url, openfinance.PaymentsPath, "smoke", "k1", paymentData(consent, "1.00")))
	}
	if a := pay(); a.status != 201 {
		t.Fatalf("POST payments = %d %s, want 201", a.status, a.body)
	}
	if got := s.send(t, "POST", control.ResetPath, ""); got != 204 {
		t.Fatalf("POST %s = %d, want 204", control.ResetPath, got)
	}
	if a := pay(); a.status != 422 || a.code() != "CONSENTIMENTO_INVALIDO" {
		t.Errorf("the payment's replay after a reset = %d %s, want 422 CONSENTIMENTO_INVALIDO: the consent is forgotten",
			a.status, a.body)
	}
	if a := s.ofDo(t, c, c.request(t, "GET", s.url, openfinance.ConsentsPath+"/"+consent, "smoke", "", nil)); a.status != 404 {
		t.Errorf("GET the consent after a reset = %d %s, want 404", a.status, a.body)
	}
	if status, body := s.do(t, "GET", control.SettlementsPath, "", nil); !strings.Contains(body, `"count":0,`) {
		t.Errorf("GET %s after a reset and a replay = %d %s, want no settlement", control.SettlementsPath, status, body)
	}
	s.stopAndLogs(t)
}

// TestDialectOpenFinanceOverloadIs529: with -capacity, a payment beyond it is shed with 529
// SITE_IS_OVERLOADED and -shed-retry-after's Retry-After, over HTTP.
func TestDialectOpenFinanceOverloadIs529(t *testing.T) {
	args := append(ofKeyFlags(t), "-capacity", "1", "-shed-retry-after", "2s", "-control-token", "ctl", "-control-hosts", "pipe")
	synctest.Test(t, func(t *testing.T) {
		p := mustPipe(t, args...)
		c := testClient()
		do := func(r *http.Request) ofAnswer {
			resp, err := p.client.Do(r)
			if err != nil {
				t.Fatalf("%s %s: %v", r.Method, r.URL.Path, err)
			}
			return c.read(t, resp)
		}
		consent := func(key string) string {
			return do(c.request(t, "POST", "http://pipe", openfinance.ConsentsPath, psp.DefaultToken, key, consentData("1.00"))).data("consentId")
		}
		first, second := consent("c1"), consent("c2")
		ctl := control.Client{BaseURL: "http://pipe", HTTPClient: p.client, Token: "ctl"}
		if err := ctl.Inject(context.Background(), psp.Slow(time.Second)); err != nil {
			t.Fatalf("Inject() error = %v", err)
		}
		done := make(chan ofAnswer)
		go func() {
			done <- do(c.request(t, "POST", "http://pipe", openfinance.PaymentsPath, psp.DefaultToken, "k1", paymentData(first, "1.00")))
		}()
		synctest.Wait() // the first payment holds the one slot, asleep in its fault
		a := do(c.request(t, "POST", "http://pipe", openfinance.PaymentsPath, psp.DefaultToken, "k2", paymentData(second, "1.00")))
		if a.status != 529 || a.code() != "SITE_IS_OVERLOADED" || a.header.Get("Retry-After") != "2" {
			t.Errorf("a payment beyond -capacity = %d Retry-After %q %s, want 529 SITE_IS_OVERLOADED, Retry-After 2",
				a.status, a.header.Get("Retry-After"), a.body)
		}
		if a := <-done; a.status != 201 {
			t.Errorf("the payment in the slot = %d %s, want 201", a.status, a.body)
		}
		if err := p.stop(); err != nil {
			t.Errorf("serve() = %v, want nil", err)
		}
	})
}

// TestOpenFinanceKeyFilesExit2: a key file that psp cannot use is a bad command line, named by
// its flag, with what is wrong with it.
func TestOpenFinanceKeyFilesExit2(t *testing.T) {
	good := ofKeyFlags(t) // -dialect openfinance and good key files
	signingFile, clientFile := good[3], good[5]
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecPrivate, _ := x509.MarshalPKCS8PrivateKey(ec)
	ecPublic, _ := x509.MarshalPKIXPublicKey(&ec.PublicKey)
	rsaPublic, _ := x509.MarshalPKIXPublicKey(&testKeys().signing.PublicKey)
	pemOf := func(kind string, der []byte) string {
		return string(pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}))
	}
	missing := writeFile(t, "x", "") + ".missing"
	tests := map[string]struct {
		signing, client string // the files; "" for none
		want            string // the problem, after the flag and the file
	}{
		"signing key missing":         {missing, clientFile, "open " + missing + ": no such file or directory"},
		"signing key not PEM":         {writeFile(t, "k.pem", "not a key\n"), clientFile, "no PEM block"},
		"signing key public":          {writeFile(t, "k.pem", pemOf("PUBLIC KEY", rsaPublic)), "", `a PEM block "PUBLIC KEY", not an RSA private key`},
		"signing key not RSA":         {writeFile(t, "k.pem", pemOf("PRIVATE KEY", ecPrivate)), "", "a *ecdsa.PrivateKey, not an RSA key"},
		"client keys missing":         {signingFile, missing, "open " + missing + ": no such file or directory"},
		"client keys not PEM":         {signingFile, writeFile(t, "c.pem", "not a key\n"), "no PEM block"},
		"client keys private":         {signingFile, writeFile(t, "c.pem", pemOf("PRIVATE KEY", ecPrivate)), `a PEM block "PRIVATE KEY", not a public key`},
		"client keys not RSA":         {signingFile, writeFile(t, "c.pem", pemOf("PUBLIC KEY", ecPublic)), `key 0 (kid "") is a *ecdsa.PublicKey, not an RSA key`},
		"client keys an empty set":    {signingFile, writeFile(t, "c.json", `{"keys":[]}`), "no keys"},
		"client keys without signing": {"", writeFile(t, "c.json", `{"keys":[]}`), "no keys"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			args := []string{"-addr", "127.0.0.1:0", "-dialect", "openfinance"}
			if tt.signing != "" {
				args = append(args, "-openfinance-signing-key-file", tt.signing)
			}
			if tt.client != "" {
				args = append(args, "-openfinance-client-keys-file", tt.client)
			}
			flag, file := "-openfinance-signing-key-file", tt.signing
			if strings.HasPrefix(name, "client") {
				flag, file = "-openfinance-client-keys-file", tt.client
			}
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), args, &stdout, &stderr)
			if got := cmdline.ExitCode(err); got != 2 {
				t.Errorf("exit code = %d (run: %v), want 2", got, err)
			}
			want := "psp: " + flag + " " + file + ": " + tt.want + "\nUsage of psp:\n"
			if !strings.HasPrefix(stderr.String(), want) || stdout.Len() != 0 {
				t.Errorf("stderr = %.300q..., stdout = %q; want %q, then the usage, on stderr only", stderr.String(), stdout.String(), want)
			}
		})
	}
}
