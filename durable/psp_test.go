package durable

// Every use of package psp by these tests is in this file, so that a change to psp's API is
// a change here only.

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/psp/psptest"
)

// pspBalanceCents is the payer's balance at the PSP: any test payment up to it settles, and
// refusedCents is refused for insufficient funds.
const (
	pspBalanceCents = 1_000_000_000_00
	refusedCents    = pspBalanceCents + 1
	pspToken        = psp.DefaultToken
)

// ledger is what the tests read of a PSP and do to it, and how their clients reach it.
type ledger struct {
	srv  *psp.Server
	url  string
	http *http.Client // reaches url; nil for a PSP on a loopback address (pix's shared client)
}

// mustPSP serves a psp.Server over in-memory pipes (psptest) for the test's duration. It
// remembers a completed key for DefaultConfig's KeyTTL. Clients reach it through client and
// config.
func mustPSP(tb testing.TB) ledger {
	tb.Helper()
	return mustPSPTTL(tb, psp.DefaultConfig().KeyTTL)
}

// mustPSPTTL is mustPSP with a PSP that remembers a completed key for ttl.
func mustPSPTTL(tb testing.TB, ttl time.Duration) ledger {
	tb.Helper()
	srv, err := psptest.NewServer(pspConfig(ttl))
	if err != nil {
		tb.Fatalf("psptest.NewServer() error = %v", err)
	}
	tb.Cleanup(srv.Close)
	return ledger{srv: srv.Server, url: srv.URL, http: srv.HTTPClient()}
}

// mustLoopbackPSP is mustPSPTTL served on a loopback address, for a test that hands the URL to
// a child process. A ttl of 0 is DefaultConfig's KeyTTL.
func mustLoopbackPSP(tb testing.TB, ttl time.Duration) ledger {
	tb.Helper()
	srv, err := psp.NewServer(pspConfig(ttl))
	if err != nil {
		tb.Fatalf("psp.NewServer() error = %v", err)
	}
	hs := httptest.NewServer(srv)
	tb.Cleanup(hs.Close)
	return ledger{srv: srv, url: hs.URL}
}

// pspConfig is the configuration of the tests' PSPs: a balance of pspBalanceCents, and keys
// remembered for ttl.
func pspConfig(ttl time.Duration) psp.Config {
	cfg := psp.DefaultConfig()
	cfg.BalanceCents, cfg.KeyTTL = pspBalanceCents, ttl
	return cfg
}

// client is testClient of l's PSP.
func (l ledger) client() *pix.Client {
	c := testClient(l.url)
	c.HTTPClient = l.http
	return c
}

// config is testConfig of l's PSP.
func (l ledger) config() Config {
	cfg := testConfig(l.url)
	cfg.Client = l.client()
	return cfg
}

// settlement is the part of a ledger entry a receipt can be checked against.
type settlement struct {
	Key         string // the Idempotency-Key it was made under
	EndToEndID  string
	AmountCents int64
	SettledAt   time.Time
}

// settlements returns the ledger's settlements, oldest first.
func (l ledger) settlements() []settlement {
	var all []settlement
	for _, s := range l.srv.Settlements() {
		all = append(all, settlement{s.IdempotencyKey, s.EndToEndID, s.AmountCents, s.SettledAt})
	}
	return all
}

// lookups returns how many status lookups the PSP answered.
func (l ledger) lookups() int64 { return l.srv.Stats().Lookups }

// payments returns how many payment requests the PSP answered.
func (l ledger) payments() int64 { return l.srv.Stats().Requests }

// The double's API, as refDialect speaks it: where payments and lookups go, and the lookup's
// query parameter.
const (
	paymentsPath = psp.PaymentsPath
	lookupParam  = psp.LookupParam
)

// fault names the PSP faults that leave an outcome unknown.
type fault int

const (
	faultCommit503 fault = iota // settles, then answers 503
	faultDrop                   // closes the connection without an answer
	faultLate                   // answers after pix's attempt timeout
	faultDown                   // answers 503 to everything for a while
	faultSlow                   // settles after 300 ms, whether the client waits or not
	fault503                    // answers 503 before any processing: nothing is paid
	faultPending                // answers 202 pending, and settles 100 ms later
)

// inject queues faults for the next payment requests.
func (l ledger) inject(faults ...fault) {
	for _, f := range faults {
		switch f {
		case faultCommit503:
			l.srv.Inject(psp.CommitStatus(503))
		case faultDrop:
			l.srv.Inject(psp.Drop())
		case faultLate:
			l.srv.Inject(psp.Late(300 * time.Millisecond))
		case faultSlow:
			l.srv.Inject(psp.Slow(300 * time.Millisecond))
		case faultDown:
			l.srv.Inject(psp.Down(50 * time.Millisecond))
		case fault503:
			l.srv.Inject(psp.Status(503))
		case faultPending:
			l.srv.Inject(psp.Pending(100*time.Millisecond, "settled"))
		}
	}
}
