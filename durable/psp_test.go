package durable

// Every use of package psp by these tests is in this file, so that a change to psp's API is
// a change here only.

import (
	"net/http/httptest"
	"testing"
	"time"

	"pixretry/psp"
)

// pspBalanceCents is the payer's balance at the PSP: any test payment up to it settles, and
// refusedCents is refused for insufficient funds.
const (
	pspBalanceCents = 1_000_000_000_00
	refusedCents    = pspBalanceCents + 1
	pspToken        = psp.DefaultToken
)

// ledger is what the tests read of a PSP and do to it.
type ledger struct {
	srv *psp.Server
	url string
}

// mustPSP serves a psp.Server on a loopback address for the test's duration. It remembers a
// completed key for psp.DefaultKeyTTL.
func mustPSP(tb testing.TB) ledger {
	tb.Helper()
	return mustPSPTTL(tb, psp.DefaultKeyTTL)
}

// mustPSPTTL is mustPSP with a PSP that remembers a completed key for ttl.
func mustPSPTTL(tb testing.TB, ttl time.Duration) ledger {
	tb.Helper()
	cfg := psp.DefaultConfig()
	cfg.BalanceCents, cfg.KeyTTL = pspBalanceCents, ttl
	srv, err := psp.NewServer(cfg)
	if err != nil {
		tb.Fatalf("psp.NewServer() error = %v", err)
	}
	hs := httptest.NewServer(srv)
	tb.Cleanup(hs.Close)
	return ledger{srv: srv, url: hs.URL}
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

// fault names the PSP faults that leave an outcome unknown.
type fault int

const (
	faultCommit503 fault = iota // settles, then answers 503
	faultDrop                   // closes the connection without an answer
	faultLate                   // answers after pix's attempt timeout
	faultDown                   // answers 503 to everything for a while
	faultSlow                   // settles after 300 ms, whether the client waits or not
	fault503                    // answers 503 before any processing: nothing is paid
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
		}
	}
}
