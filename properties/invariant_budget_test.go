package properties

import (
	"errors"

	"pixretry/pix"
	"pixretry/retry"
)

// checkAttemptBudget is invariant 1: never more than AttemptsMax attempts. It counts attempts
// three ways, and they must agree: the client's "pix attempt" records (numbered 1, 2, ... in
// order, and matching Receipt.Attempts and the closing record), the round trips its HTTP
// client made, and the requests the PSP received. Each round trip the line let through became
// exactly one request at the PSP, each other none, and every request came from a round trip:
// this catches a request net/http would send again by itself, which no log would see.
func checkAttemptBudget(tr Trace) error {
	var v violations
	for i, c := range tr.Calls {
		checkCounts(&v, tr.Policy, i, c)
	}
	checkPairs(&v, tr)
	return v.err()
}

// checkCounts checks the attempts of call i against the budget and each other.
func checkCounts(v *violations, p retry.Policy, i int, c Call) {
	n := len(c.Attempts)
	if n > p.AttemptsMax {
		v.addf("call %d made %d attempts, AttemptsMax is %d", i, n, p.AttemptsMax)
	}
	if len(c.Trips) != n {
		v.addf("call %d: %d round trips but %d attempt records", i, len(c.Trips), n)
	}
	for j, a := range c.Attempts {
		if a.Number != j+1 {
			v.addf("call %d: attempt record %d is numbered %d", i, j+1, a.Number)
		}
	}
	if c.Err == nil && c.Receipt.Attempts != n {
		v.addf("call %d: Receipt.Attempts = %d, but %d attempts were made", i, c.Receipt.Attempts, n)
	}
	if e, ok := errors.AsType[*pix.OutcomeUnknownError](c.Err); ok && e.Attempts != n {
		v.addf("call %d: OutcomeUnknownError.Attempts = %d, but %d attempts were made", i, e.Attempts, n)
	}
	if c.Summary != nil && c.Summary.Attempts != n {
		v.addf("call %d: closing record says %d attempts, but %d were made", i, c.Summary.Attempts, n)
	}
}

// checkPairs pairs the round trips with the PSP's requests by number: one request for a round
// trip the line let through, none for one it stopped before it was written, and no request
// that no round trip sent.
func checkPairs(v *violations, tr Trace) {
	arrived := map[int64]int{}
	for _, ex := range tr.Wire {
		arrived[ex.Trip]++
	}
	sent := map[int64]bool{}
	for i, c := range tr.Calls {
		for j, t := range c.Trips {
			sent[t.Number] = true
			want := 0
			if j >= len(c.Lines) || c.Lines[j].Fault.reachesPSP() {
				want = 1
			}
			if arrived[t.Number] != want {
				v.addf("call %d: round trip %d became %d requests at the PSP, want %d", i, j+1, arrived[t.Number], want)
			}
		}
	}
	for _, ex := range tr.Wire {
		if !sent[ex.Trip] {
			v.addf("key %q: the PSP received a request that no round trip sent", ex.Key)
		}
	}
}

// budgetPlanted are violations of this invariant, planted in the baseline trace.
var budgetPlanted = []planted{
	{"more attempts than AttemptsMax", "AttemptsMax is 1",
		func(tr *Trace) { tr.Policy.AttemptsMax = 1 }},
	{"an attempt without a round trip", "1 round trips but 2 attempt records",
		func(tr *Trace) { tr.Calls[callSettled].Trips = tr.Calls[callSettled].Trips[:1] }},
	{"attempts misnumbered", "is numbered 3",
		func(tr *Trace) { tr.attempt(callSettled, 2).Number = 3 }},
	{"Receipt.Attempts wrong", "Receipt.Attempts = 1",
		func(tr *Trace) { tr.Calls[callSettled].Receipt.Attempts = 1 }},
	{"closing record's count wrong", "closing record says 4",
		func(tr *Trace) { tr.Calls[callUnknown].Summary.Attempts = 4 }},
	{"OutcomeUnknownError.Attempts wrong", "OutcomeUnknownError.Attempts = 2",
		func(tr *Trace) { tr.unknownErr(callUnknown).Attempts = 2 }},
	{"a request sent twice (a hidden resend)", "round trip 1 became 2 requests at the PSP, want 1",
		func(tr *Trace) { hiddenResend(tr, callSettled, 1) }},
	{"a request the line stopped before it was written reached the PSP",
		"round trip 1 became 1 requests at the PSP, want 0", func(tr *Trace) {
			tr.Calls[callSettled].Lines = []lineEvent{{Fault: lineCutBeforeWrite, Pooled: true}, {}}
		}},
	{"a request no round trip sent", "a request that no round trip sent",
		func(tr *Trace) { tr.answer(callRefused, 1).Trip = 99 }},
}
