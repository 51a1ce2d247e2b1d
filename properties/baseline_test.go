package properties

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

// The calls of the baseline run, by what happens to them.
const (
	callSettled  = iota // settled on attempt 2: a timeout under a late answer, then the replay
	callRefused         // refused at once for insufficient funds
	callUnknown         // outcome unknown: a 503 with Retry-After 1 s, a lost connection, a 503
	callLocal           // an amount of 0, refused before any request
	callDeadline        // two 503s, then the wait drawn would end after the caller's deadline
)

// baselineRun is the run the planted violations start from. Its faults fall on the requests in
// the order they arrive: the calls never overlap. A slow fault of 0 lets a request through.
var baselineRun = scenario{
	Policy:         retry.Policy{AttemptsMax: 3, DelayBase: 100 * time.Millisecond, DelayMax: time.Second},
	AttemptTimeout: 500 * time.Millisecond,
	BalanceCents:   100_000,
	Faults: []psp.Fault{psp.Late(2 * time.Second), psp.Slow(0), psp.Slow(0),
		{Kind: psp.FaultStatus, Status: 503, RetryAfter: time.Second}, psp.ResetConn(), psp.Status(503),
		psp.Status(503), psp.Status(503)},
	Calls: []callSpec{
		callSettled: {Payment: pix.Payment{AmountCents: 15000, PixKey: "pix@example.com"}, Jitter: []float64{0.5}},
		callRefused: {Payment: pix.Payment{AmountCents: 90000, PixKey: "12345678901"}, After: time.Second,
			Jitter: []float64{0.5}},
		callUnknown: {Payment: pix.Payment{AmountCents: 1000, PixKey: "+5511987654321", Description: "aluguel"},
			After: 2 * time.Second, Jitter: []float64{0.25, 0.75}},
		callLocal: {Payment: pix.Payment{AmountCents: 0, PixKey: "pix@example.com"}, After: 4 * time.Second,
			Jitter: []float64{0.5}},
		// Attempt 2 ends 50ms in; the wait after it would be FullJitter(200ms, 0.9) = 180ms: 1ms too long.
		callDeadline: {Payment: pix.Payment{AmountCents: 500, PixKey: "98765432000199"}, After: 5 * time.Second,
			Deadline: 229 * time.Millisecond, Jitter: []float64{0.5, 0.9}},
	},
	// A breaker that never opens: every call's tickets are recorded.
	Breaker: &breakerSettings{Failures: 100, Timeout: time.Minute, MaxRequests: 1},
}

// baseline plays baselineRun in a synctest bubble and returns its trace, fresh on every call: a
// planted violation changes one thing in it. The run keeps every invariant
// (TestBaselineTraceKeepsEveryInvariant) and has the shape the constants above name
// (TestBaselineHasItsShape).
func baseline(t *testing.T) Trace {
	t.Helper()
	var tr Trace
	var err error
	synctest.Test(t, func(*testing.T) { tr, err = runScenario(baselineRun) })
	if err != nil {
		t.Fatalf("runScenario(baselineRun) = %v", err)
	}
	return tr
}

// TestBaselineTraceKeepsEveryInvariant: the trace the planted violations start from is valid,
// so that a violation is the one thing a case changed.
func TestBaselineTraceKeepsEveryInvariant(t *testing.T) {
	if err := checkAll(baseline(t)); err != nil {
		t.Fatalf("checkAll(baseline) = %v, want nil", err)
	}
}

// TestBaselineHasItsShape: each call of the baseline ends as its constant says, after as many
// attempts. The planted violations rest on that shape.
func TestBaselineHasItsShape(t *testing.T) {
	want := []string{callSettled: "settled on a replay after 2", callRefused: "insufficient funds after 1",
		callUnknown: "outcome unknown after 3", callLocal: "invalid payment after 0",
		callDeadline: "outcome unknown after 2"}
	for i, c := range baseline(t).Calls {
		if got := fmt.Sprintf("%s after %d", callOutcome(c), len(c.Attempts)); got != want[i] {
			t.Errorf("baseline call %d: %s, want %s", i, got, want[i])
		}
	}
}
