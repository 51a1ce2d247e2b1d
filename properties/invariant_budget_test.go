package properties

import (
	"errors"

	"pixretry/internal/pipenet"
	"pixretry/pix"
)

// checkAttemptBudget is invariant 1: never more than AttemptsMax attempts. It counts attempts
// three ways, and they must agree: the client's attempt records (numbered 1, 2, ... in order,
// and matching Receipt.Attempts, OutcomeUnknownError.Attempts and the closing record), the
// round trips its HTTP client made, and the requests the PSP received. Each round trip the line
// let through became exactly one request at the PSP, each other none, and every request came
// from a round trip: this catches a request net/http would send again by itself, which no log
// would see. A Resume counts its payment attempts and its lookup attempts apart, each up to
// AttemptsMax, and its result counts those of the phase that ended it. An Await only looks its
// key up, with no bound but its context (the run stops it at awaitBudget). No other call looks a
// key up.
//
// In a dialect with a front end, the PSP's requests are the front end's, and the run's own
// (the consents it makes) are the only others. The core received at most one request for each
// the front end received, and none it was not sent: the front end never pays twice for one
// attempt. Efí's front end relays every request; Open Finance's answers some itself (a
// consent's lookup, a key it already refused, a payment its consent cannot make).
func checkAttemptBudget(tr Trace) error {
	var v violations
	for i, c := range tr.Calls {
		checkCounts(&v, tr.Policy.AttemptsMax, i, c, c.Phase, phaseKinds[0])
		if c.Resumed == nil && !c.Awaited && (len(c.Lookup.Trips) > 0 || len(c.Lookup.Attempts) > 0) {
			v.addf("call %d made %d lookups; only Resume and Await look a key up", i, len(c.Lookup.Trips))
			continue
		}
		checkCounts(&v, budgetOf(tr.Policy, c, 1), i, c, c.Lookup, phaseKinds[1])
	}
	checkPairs(&v, tr)
	return v.err()
}

// checkCounts checks the attempts of ph, a phase of call i ("" for its payment, "lookup " for
// its lookup), against the budget and each other, and against the call's result when ph ended
// the call.
func checkCounts(v *violations, budget, i int, c Call, ph Phase, kind string) {
	n := len(ph.Attempts)
	if n > budget {
		v.addf("call %d made %d %sattempts, AttemptsMax is %d", i, n, kind, budget)
	}
	if len(ph.Trips) != n {
		v.addf("call %d: %d %sround trips but %d %sattempt records", i, len(ph.Trips), kind, n, kind)
	}
	for j, a := range ph.Attempts {
		if a.Number != j+1 {
			v.addf("call %d: %sattempt record %d is numbered %d", i, kind, j+1, a.Number)
		}
	}
	if ph.Summary != nil && ph.Summary.Attempts != n {
		v.addf("call %d: %sclosing record says %d attempts, but %d were made", i, kind, ph.Summary.Attempts, n)
	}
	if (kind != "") != c.lookedUp() {
		return // the phase did not end the call
	}
	if c.Err == nil && c.Receipt.Attempts != n {
		v.addf("call %d: Receipt.Attempts = %d, but %d %sattempts were made", i, c.Receipt.Attempts, n, kind)
	}
	if e, ok := errors.AsType[*pix.OutcomeUnknownError](c.Err); ok && e.Attempts != n {
		v.addf("call %d: OutcomeUnknownError.Attempts = %d, but %d %sattempts were made", i, e.Attempts, n, kind)
	}
}

// checkPairs pairs the round trips with the PSP's requests by number: one request for a round
// trip the line let through, none for one it stopped before it was written, and no request
// that no round trip sent but the run's own.
func checkPairs(v *violations, tr Trace) {
	arrived := map[int64]int{}
	for _, ex := range tr.received() {
		arrived[ex.Trip]++
	}
	sent := map[int64]bool{}
	for i, c := range tr.Calls {
		for k, ph := range c.phases() {
			for j, t := range ph.Trips {
				sent[t.Number] = true
				want := 0
				if j >= len(ph.Lines) || ph.Lines[j].Fault.ReachesServer() {
					want = 1
				}
				if arrived[t.Number] != want {
					v.addf("call %d: %sround trip %d became %d requests at the PSP, want %d", i, phaseKinds[k], j+1,
						arrived[t.Number], want)
				}
			}
		}
	}
	own := tr.Setup
	for _, ex := range tr.received() {
		switch {
		case sent[ex.Trip]:
		case ex.Trip == 0 && own > 0:
			own--
		default:
			v.addf("key %q: the PSP received a request that no round trip sent", ex.Key)
		}
	}
	checkRelays(v, tr)
}

// checkRelays pairs the core's requests with the front end's, by number: at most one for each
// request the front end received (exactly one if it relays them all), and none for a request
// it was not sent.
func checkRelays(v *violations, tr Trace) {
	if tr.Dialect.Front == nil {
		return
	}
	relayed := map[int64]int{}
	for _, ex := range tr.Wire {
		relayed[ex.Trip]++
	}
	received := map[int64]bool{}
	for _, ex := range tr.Front {
		received[ex.Trip] = true
		switch n := relayed[ex.Trip]; {
		case ex.Trip == 0:
		case n > 1:
			v.addf("key %q: the front end relayed request %d to the core %d times", ex.Key, ex.Trip, n)
		case n == 0 && tr.Dialect.RelaysAll:
			v.addf("key %q: the front end relayed request %d to the core 0 times, want 1", ex.Key, ex.Trip)
		}
	}
	for _, ex := range tr.Wire {
		if !received[ex.Trip] || ex.Trip == 0 {
			v.addf("key %q: the core received a request that the front end was not sent", ex.Key)
		}
	}
}

// hiddenResend makes the request of round trip n of call i arrive at the PSP twice.
func hiddenResend(tr *Trace, i, n int) { tr.Wire = append(tr.Wire, *tr.answer(i, n)) }

// budgetPlanted are violations of this invariant, planted in the baseline trace.
var budgetPlanted = []planted{
	{"more attempts than AttemptsMax", "AttemptsMax is 1", func(tr *Trace) { tr.Policy.AttemptsMax = 1 }},
	{"an attempt without a round trip", "1 round trips but 2 attempt records",
		func(tr *Trace) { tr.Calls[callSettled].Trips = tr.Calls[callSettled].Trips[:1] }},
	{"attempts misnumbered", "is numbered 3", func(tr *Trace) { tr.attempt(callSettled, 2).Number = 3 }},
	{"Receipt.Attempts wrong", "Receipt.Attempts = 1", func(tr *Trace) { tr.Calls[callSettled].Receipt.Attempts = 1 }},
	{"closing record's count wrong", "closing record says 4",
		func(tr *Trace) { tr.Calls[callUnknown].Summary.Attempts = 4 }},
	{"OutcomeUnknownError.Attempts wrong", "OutcomeUnknownError.Attempts = 2",
		func(tr *Trace) { tr.unknownErr(callUnknown).Attempts = 2 }},
	{"a request sent twice (a hidden resend)", "round trip 1 became 2 requests at the PSP, want 1",
		func(tr *Trace) { hiddenResend(tr, callSettled, 1) }},
	{"a request the line stopped before it was written reached the PSP",
		"round trip 1 became 1 requests at the PSP, want 0", func(tr *Trace) {
			tr.Calls[callSettled].Lines = []pipenet.Event{{Fault: pipenet.CutBeforeWrite, Pooled: true}, {}}
		}},
	{"a request no round trip sent", "a request that no round trip sent",
		func(tr *Trace) { tr.answer(callRefused, 1).Trip = 99 }},
	{"a lookup by a call that is no Resume", "only Resume and Await look a key up",
		func(tr *Trace) { tr.Calls[callFound].Resumed = nil }},
	{"a lookup's closing record's count wrong", "lookup closing record says 2 attempts",
		func(tr *Trace) { tr.Calls[callFound].Lookup.Summary.Attempts = 2 }},
	{"a found receipt that counts the payment attempts", "Receipt.Attempts = 0, but 1 lookup attempts were made",
		func(tr *Trace) { tr.Calls[callFound].Receipt.Attempts = 0 }},
	{"a lookup sent twice (a hidden resend)", "lookup round trip 1 became 2 requests at the PSP, want 1",
		func(tr *Trace) { tr.Wire = append(tr.Wire, *tr.exchange(tr.lookupTrip(callFound, 1).Number)) }},
}
