package properties

import (
	"fmt"
	"testing"
)

// The baseline's own checks: the run the planted violations start from keeps every invariant
// and has its shape. They check the code's run, so the mutation pass over the properties keeps
// them, where it leaves out the planted violations (planted_test.go), which check the checks.

// TestBaselineTraceKeepsEveryInvariant: the trace the planted violations start from is valid,
// so that a violation is the one thing a case changed.
func TestBaselineTraceKeepsEveryInvariant(t *testing.T) {
	if _, err := checkAll(baseline(t)); err != nil {
		t.Fatalf("checkAll(baseline) = %v, want nil", err)
	}
}

// TestBaselineHasItsShape: each call of the baseline ends as its constant says, after as many
// payment attempts and lookup attempts. The planted violations rest on that shape.
func TestBaselineHasItsShape(t *testing.T) {
	want := []string{callSettled: "settled on a replay after 2+0", callRefused: "insufficient funds after 1+0",
		callUnknown: "outcome unknown after 3+0", callLocal: "invalid payment after 0+0",
		callDeadline: "outcome unknown after 2+0", callExpired: "outcome unknown at the key deadline after 2+0",
		callNoSettlement: "no settlement after 0+1", callRepaid: "settled after 1+0",
		callLost: "outcome unknown after 3+0", callFound: "found by a lookup after 0+1",
		callPending: "pending after 1+0", callAwaited: "found by a lookup after 0+4", callRejected: "pending after 1+0",
		callAwaitRejected: "rejected after 0+3", callPaidAfterRejection: "settled after 1+0"}
	for i, c := range baseline(t).Calls {
		if got := fmt.Sprintf("%s after %d+%d", callOutcome(c), len(c.Attempts), len(c.Lookup.Attempts)); got != want[i] {
			t.Errorf("baseline call %d: %s, want %s", i, got, want[i])
		}
	}
}
