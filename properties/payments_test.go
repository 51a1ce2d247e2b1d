package properties

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestOnePaymentKeepsInvariants: one Send against any policy and any fault sequence, then up
// to two reconciliations with SendWithKey under its key, one after the other, keep every
// invariant. The calls never overlap, so virtual time fixes the order of every event and a
// failure replays exactly.
func TestOnePaymentKeepsInvariants(t *testing.T) {
	checkPayments(t, onePaymentScenarios())
}

// TestInterleavedPaymentsKeepInvariants: up to five calls, interleaved in virtual time, some
// of them duplicate senders sharing a key (with the same payment or another) and some
// reconciling the call before them, keep every invariant. Which call consumes which fault
// depends on the order in which requests arrive, which the generated start times fix (see
// startGen): a failure replays.
func TestInterleavedPaymentsKeepInvariants(t *testing.T) {
	checkPayments(t, interleavedScenarios())
}

// checkPayments checks that every run of scenarios keeps every invariant, and that the runs
// reached every event of paymentEvents.
func checkPayments(t *testing.T, scenarios *rapid.Generator[scenario]) {
	var cov coverage
	rapid.Check(t, checkScenarios(scenarios, &cov))
	t.Log(&cov)
	cov.require(t, 100, paymentEvents...)
}

// onePaymentScenarios are the runs of TestOnePaymentKeepsInvariants.
func onePaymentScenarios() *rapid.Generator[scenario] { return scenarioGen(sequentialCallsGen) }

// interleavedScenarios are the runs of TestInterleavedPaymentsKeepInvariants.
func interleavedScenarios() *rapid.Generator[scenario] {
	return scenarioGen(func(balance int64) *rapid.Generator[[]callSpec] { return callsGen(balance, 5) })
}

// checkScenarios is the property: play a drawn scenario in a synctest bubble and check every
// invariant over its trace.
//
// The failure message names only the broken invariants; the details and the trace go to the
// log. rapid shrinks a counterexample only while the failure message stays the same, and the
// details hold keys and endToEndIds that are random in every run.
func checkScenarios(gen *rapid.Generator[scenario], cov *coverage) func(*rapid.T) {
	return func(t *rapid.T) {
		sc := gen.Draw(t, "scenario")
		rapid.SyncTest(t, func(t *rapid.T) {
			tr, err := runScenario(sc)
			if err != nil {
				t.Fatalf("%v", err)
			}
			cov.add(tr)
			if broken := brokenInvariants(tr); len(broken) > 0 {
				t.Logf("%v\ntrace:\n%s", checkAll(tr), tr)
				t.Fatalf("invariants broken: %s", strings.Join(broken, "; "))
			}
		})
	}
}
