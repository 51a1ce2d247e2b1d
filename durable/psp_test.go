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

// mustPSP serves a psp.Server on a loopback address for the test's duration.
func mustPSP(tb testing.TB) ledger {
	tb.Helper()
	cfg := psp.DefaultConfig()
	cfg.BalanceCents = pspBalanceCents
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
	EndToEndID  string
	AmountCents int64
	SettledAt   time.Time
}

// settlements returns the ledger's settlements by Idempotency-Key, and how many each key has.
func (l ledger) settlements() (map[string]settlement, map[string]int) {
	byKey, count := map[string]settlement{}, map[string]int{}
	for _, s := range l.srv.Settlements() {
		byKey[s.IdempotencyKey] = settlement{s.EndToEndID, s.AmountCents, s.SettledAt}
		count[s.IdempotencyKey]++
	}
	return byKey, count
}

// fault names the PSP faults that leave an outcome unknown.
type fault int

const (
	faultCommit503 fault = iota // settles, then answers 503
	faultDrop                   // closes the connection without an answer
	faultLate                   // answers after pix's attempt timeout
	faultDown                   // answers 503 to everything for a while
	faultSlow                   // settles after 300 ms, whether the client waits or not
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
		}
	}
}
