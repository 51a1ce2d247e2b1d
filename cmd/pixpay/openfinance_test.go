package main

// pixpay -dialect openfinance: requests signed with the key the double hands out or
// -signing-key, answers verified with its JWKS or -psp-keys, and a consent for every intent.

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/google/go-cmp/cmp"

	"pixretry/pix/openfinance"
	"pixretry/psp"
	ofpsp "pixretry/psp/openfinance"
)

// ofArgs are pixpay's options for Open Finance with the keys the double hands out.
var ofArgs = []string{"-dialect", "openfinance"}

// ofScenario is a scenario in Open Finance whose double makes its keys, and keeps a key as
// long as its core does, ttl.
func ofScenario(t *testing.T, ttl time.Duration, c **counted) *scenario {
	f := openFinanceFront(ofpsp.Config{KeyTTL: ttl, SigningKey: testKeys().psp}, nil)
	if c != nil {
		f = counting(f, c)
	}
	return newScenarioSpeaking(t, sqliteDB(t), ttl, speaking{args: ofArgs, front: f})
}

// A plain run, with the keys the double hands out: add asks the PSP for each intent's consent,
// add again finds it stored, and run pays each intent with one signed request.
func TestPaysInOpenFinance(t *testing.T) {
	t.Parallel()
	var c *counted
	s := ofScenario(t, time.Hour, &c)
	added := map[string]line{}
	for i, id := range []string{"a", "b", "c"} {
		in := s.add(id, int64(101+i))
		if (&openfinance.Dialect{}).CheckKey(in.Key) != nil || !strings.HasPrefix(in.ConsentID, "urn:") {
			t.Errorf("add %s = %+v, want a UUIDv7 key and a consent", id, in)
		}
		added[id] = in
	}
	again, _, code := pixpay(t, append(ofArgs, "-db", s.db, "-psp", s.url, "add", "-id", "a", "-valor", "1.01",
		"-chave", "pix@example.com")...)
	if got := lines(t, again); code != 0 || len(got) != 1 || !cmp.Equal(got[0], added["a"]) {
		t.Errorf("add a again = %q, exit %d; want %+v, its consent kept", again, code, added["a"])
	}
	s.finish()
	for id, in := range s.check() {
		if in.ConsentID != added[id].ConsentID || in.PaymentID == "" {
			t.Errorf("intent %s lists consent %q and paymentId %q, want consent %q and the PSP's paymentId", id,
				in.ConsentID, in.PaymentID, added[id].ConsentID)
		}
	}
	// Each pixpay that signs fetches the keys once: the 3 adds that ask for a consent, and the
	// run. The add again, which needs no consent, does not.
	got := c.counts()
	want := map[string]int{"GET /_psp/openfinance/client-key.json": 4, "GET /_psp/openfinance/jwks.json": 4,
		"POST /open-banking/payments/v4/consents": 3, "POST /open-banking/payments/v4/pix/payments": 3}
	if !maps.Equal(got, want) {
		t.Errorf("requests %v, want %v", got, want)
	}
}

// With -signing-key and -psp-keys, pixpay pays a PSP that hands out no keys, with the kid the
// PSP gives a PEM key: its thumbprint. Without them, it says what it lacks, and exits 1.
func TestOpenFinanceKeysFromFiles(t *testing.T) {
	t.Parallel()
	var sandbox *ofpsp.Server
	client := testKeys().client
	s := newScenarioSpeaking(t, sqliteDB(t), time.Hour, speaking{
		front: openFinanceFront(ofpsp.Config{KeyTTL: time.Hour, SigningKey: testKeys().psp,
			ClientKeys: []jose.JSONWebKey{{Key: &client.PublicKey}}}, &sandbox)})
	s.speaking.args = append(ofArgs, "-signing-key", pkcs8File(t, client), "-psp-keys", jwksFile(t, sandbox.PublicKeys()))
	s.add("a", 100)
	s.finish()
	s.check()

	noKey := "pixpay: no -signing-key, and the PSP at " + s.url + " hands out no client key at " +
		"/_psp/openfinance/client-key.json: it answered 404 Not Found\n"
	for _, tt := range []struct {
		args []string
		says string
	}{
		{[]string{"add", "-id", "b", "-valor", "2.00", "-chave", "pix@example.com"},
			`pixpay add: no consent for intent "b", so nothing is stored: ` + noKey},
		{[]string{"run", "-until-done"}, noKey},
	} {
		out, stderr, code := pixpay(t, append(append(ofArgs, "-db", s.db, "-psp", s.url), tt.args...)...)
		if code != 1 || out != "" || stderr != tt.says {
			t.Errorf("pixpay %v without -signing-key: exit %d, stdout %q, stderr %q; want 1 and %q", tt.args, code, out,
				stderr, tt.says)
		}
	}
	if got := s.list(); len(got) != 1 {
		t.Errorf("list = %v, want intent a alone", got)
	}
}

// add with -consent stores the caller's consent and sends nothing. Without it, a PSP out of
// reach makes no consent, so add exits 1 and stores nothing, whether it lacks the keys or the
// consent. add again of a stored intent needs no consent, and no PSP.
func TestOpenFinanceAddWithThePSPDown(t *testing.T) {
	t.Parallel()
	db := sqliteDB(t)
	down := append(ofArgs, "-db", db, "-psp", "http://127.0.0.1:1")
	files := append(down, "-signing-key", pkcs8File(t, testKeys().client),
		"-psp-keys", jwksFile(t, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &testKeys().psp.PublicKey, KeyID: "psp-1"}}}))
	payment := []string{"-valor", "1.00", "-chave", "pix@example.com"}
	add := func(args []string, id string, more ...string) (string, string, int) {
		return pixpay(t, append(append(append(args, "add", "-id", id), payment...), more...)...)
	}
	out, stderr, code := add(down, "a", "-consent", "urn:bank:c1")
	stored := lines(t, out)
	if code != 0 || len(stored) != 1 || stored[0].ConsentID != "urn:bank:c1" {
		t.Fatalf("add -consent = %q, exit %d, stderr %q; want intent a under consent urn:bank:c1", out, code, stderr)
	}
	if again, _, code := add(down, "a"); code != 0 || again != out {
		t.Errorf("add a again, without -consent = %q, exit %d; want %q", again, code, out)
	}
	for _, tt := range []struct {
		args []string
		says string
	}{
		{down, `pixpay add: no consent for intent "b", so nothing is stored: pixpay: no -signing-key, and the PSP at ` +
			`http://127.0.0.1:1 hands out no client key at /_psp/openfinance/client-key.json: Get ` +
			`"http://127.0.0.1:1/_psp/openfinance/client-key.json": dial tcp 127.0.0.1:1: connect: connection refused` + "\n"},
		{files, `pixpay add: no consent for intent "b", so nothing is stored: openfinance: creating a consent: Post ` +
			`"http://127.0.0.1:1/open-banking/payments/v4/consents": dial tcp 127.0.0.1:1: connect: connection refused` + "\n"},
	} {
		if out, stderr, code := add(tt.args, "b"); code != 1 || out != "" || stderr != tt.says {
			t.Errorf("add b with the PSP down: exit %d, stdout %q, stderr %q; want 1 and %q", code, out, stderr, tt.says)
		}
	}
	if list, _, _ := pixpay(t, "-db", db, "list"); len(lines(t, list)) != 1 {
		t.Errorf("list = %q, want intent a alone", list)
	}
}

// pixpay run is killed while the PSP holds the answer to a payment it made, and started again
// at once, within the key's lifetime: it resends the payment under the key, signed anew with a
// new jti, and the PSP replays it rather than pay it again.
func TestOpenFinanceKilledAfterTheCommit(t *testing.T) {
	t.Parallel()
	s := ofScenario(t, time.Hour, nil)
	s.add("a", 100)
	s.srv.Inject(psp.Late(2 * time.Second))
	c := s.start()
	s.await("the PSP's commit", func() bool { return len(s.srv.Settlements()) == 1 })
	s.kill(c)
	if s.kills != 1 {
		t.Fatal("pixpay run finished before it was killed, though the PSP held its answer")
	}
	s.finish()
	if in := s.check()["a"]; in.PaymentID == "" || len(in.Keys) != 1 {
		t.Errorf("a = %+v, want its one key and the PSP's paymentId, learned from the replay", in)
	}
}
