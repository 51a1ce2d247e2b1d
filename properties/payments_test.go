package properties

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"pixretry/retry/retrytest"
)

// TestOnePaymentKeepsInvariants: one Send, under any policy and fault sequence, then up to two
// reconciliations under its key, one after the other, keep every invariant. The calls never
// overlap: virtual time fixes the order of every event, and a failure replays exactly.
func TestOnePaymentKeepsInvariants(t *testing.T) {
	checkRuns(t, onePaymentScenarios(), paymentEvents...)
}

// TestInterleavedPaymentsKeepInvariants: up to five calls interleaved in virtual time keep every
// invariant. Some are duplicate senders that share a key, with the same payment or another; some
// reconcile the call before them. The generated start times fix which call meets which fault
// (startGen): a failure replays.
func TestInterleavedPaymentsKeepInvariants(t *testing.T) {
	checkRuns(t, interleavedScenarios(), paymentEvents...)
}

// TestBreakerKeepsInvariants: interleaved calls that share a real gobreaker two-step breaker,
// drawn at random, keep every invariant, 12 to 15 on the breaker included. The breaker trips
// after 1 to 5 consecutive failures, stays open 0 to 5 s and lets 1 to 3 probes through.
func TestBreakerKeepsInvariants(t *testing.T) {
	checkRuns(t, rapid.Custom(func(t *rapid.T) scenario {
		sc := interleavedScenarios().Draw(t, "scenario")
		sc.Breaker = &breakerSettings{Failures: rapid.Uint32Range(1, 5).Draw(t, "breaker failures"),
			Timeout:     retrytest.Millis(0, 5000).Draw(t, "breaker timeout"),
			MaxRequests: rapid.Uint32Range(1, 3).Draw(t, "breaker probes")}
		return sc
	}), "breaker: refused a first attempt", "breaker: refused a retry", "breaker: outcome unknown when refused",
		"breaker: counted a refusal as a success", "call: settled")
}

// TestOutagesPastTheTTLKeepInvariants: one Send through an outage that may outlast its key (the
// PSP down, failing before any processing, losing answers, holding requests), then three
// reconciliations after pauses that may outlast it too, keep every invariant. A reconciliation
// resumes the key, by a resend while the key deadline allows and by a lookup past it, and pays
// again under a new key once a lookup proved the old one unpaid.
func TestOutagesPastTheTTLKeepInvariants(t *testing.T) {
	checkRuns(t, outageScenarios(), "call: resumed, resent", "call: resumed, looked up", "call: found by a lookup",
		"call: no settlement", "call: paid again under a new key", "call: stopped at the key deadline")
}

// TestSameKeySendersKeepInvariants: 2 to 5 pix clients call SendWithKey with one key at once, some
// with another payment. Every invariant holds. The scheduler orders the requests, so rapid may call
// a failure flaky: the trace in the log is then the evidence.
func TestSameKeySendersKeepInvariants(t *testing.T) {
	checkRuns(t, scenarioGen(func(balance int64, _ time.Duration) *rapid.Generator[[]callSpec] {
		return rapid.Custom(func(t *rapid.T) []callSpec {
			first := paymentGen(balance).Draw(t, "payment")
			calls := make([]callSpec, rapid.IntRange(2, 5).Draw(t, "senders"))
			for i := range calls {
				calls[i] = callSpec{Payment: first, Key: "same-instant-key",
					Jitter: retrytest.Draws().Draw(t, fmt.Sprintf("jitter of call %d", i))}
				if i > 0 && rapid.Bool().Draw(t, fmt.Sprintf("call %d sends another payment", i)) {
					calls[i].Payment = paymentGen(balance).Draw(t, fmt.Sprintf("payment %d", i))
				}
			}
			return calls
		})
	}), paymentEvents...)
}

// outageScenarios are the runs of TestOutagesPastTheTTLKeepInvariants. The clients back off as a
// payer does through an outage: 2 to 8 attempts, DelayBase 0.2 to 1 s, and jitter draws of a
// half or more. Their waits, not only their pauses, then reach the key deadline.
func outageScenarios() *rapid.Generator[scenario] {
	return rapid.Custom(func(t *rapid.T) scenario {
		sc := scenarioGen(resumedCalls(rapid.Just(3))).Draw(t, "scenario")
		sc.Policy.AttemptsMax = rapid.IntRange(2, 8).Draw(t, "outage AttemptsMax")
		sc.Policy.DelayBase = retrytest.Millis(200, 1000).Draw(t, "outage DelayBase")
		sc.Policy.DelayMax = sc.Policy.DelayBase + retrytest.Millis(0, 4000).Draw(t, "outage DelayMax-DelayBase")
		for i := range sc.Calls {
			late := rapid.SliceOfN(rapid.Float64Range(0.5, 0.999), 1, 4)
			sc.Calls[i].Jitter = late.Draw(t, fmt.Sprintf("outage jitter %d", i))
		}
		sc.Faults = rapid.SliceOfN(outageFaultGen(sc.AttemptTimeout, sc.ClientKeyTTL), 1, 6).Draw(t, "outage")
		sc.Faults = append(sc.Faults, rapid.SliceOfN(lookupFaultGen(sc.AttemptTimeout, sc.ClientKeyTTL), 0, 1).
			Draw(t, "lookup faults")...)
		sc.BalanceCents = max(sc.BalanceCents, 2*sc.Calls[0].Payment.AmountCents)
		return sc
	})
}

// checkRuns checks every run of scenarios, and that the runs reach every one of events.
func checkRuns(t *testing.T, scenarios *rapid.Generator[scenario], events ...string) {
	var cov retrytest.Coverage
	rapid.Check(t, checkScenarios(scenarios, &cov))
	cov.Require(t, 100, events...)
}

// onePaymentScenarios are the runs of TestOnePaymentKeepsInvariants.
func onePaymentScenarios() *rapid.Generator[scenario] {
	return scenarioGen(resumedCalls(rapid.IntRange(0, 3)))
}

// interleavedScenarios are the runs of TestInterleavedPaymentsKeepInvariants.
func interleavedScenarios() *rapid.Generator[scenario] { return scenarioGen(interleavedCalls) }

// checkScenarios is the property: it plays a drawn scenario in a synctest bubble and checks every
// invariant over its trace. rapid shrinks only while the failure message stays the same. The
// message names the broken invariants; the details, with their random keys, go to the log.
func checkScenarios(gen *rapid.Generator[scenario], cov *retrytest.Coverage) func(*rapid.T) {
	return func(t *rapid.T) {
		sc := gen.Draw(t, "scenario")
		rapid.SyncTest(t, func(t *rapid.T) {
			tr, err := runScenario(sc)
			if err != nil {
				t.Fatalf("%v", err)
			}
			cov.Add(events(tr))
			if broken := brokenInvariants(tr); len(broken) > 0 {
				t.Logf("%v\ntrace:\n%s", checkAll(tr), tr)
				t.Fatalf("invariants broken: %s", strings.Join(broken, "; "))
			}
		})
	}
}
