package properties

import (
	"time"

	"pixretry/retry/retrytest"
)

// checkElapsed is invariant 5c: the elapsed time is bounded. Each attempt lasts at most the
// attempt bound, and a phase of a call at most the sum of its ceilings (or hints, when larger)
// over the waits it chose, plus one attempt bound per attempt. A lookup's attempts are held to
// the same rule, with the bound of lookups.
//
// The attempt bound is the honest one. An attempt lasts as long as the PSP holds it, which only
// a slow or late fault does, and never longer than AttemptTimeout when that is set (the
// attempt's deadline cuts a slow or late answer short): min(AttemptTimeout, SlowestFault), or
// SlowestFault when AttemptTimeout is 0. A bound of AttemptsMax × AttemptTimeout holds only in
// the special case of a PSP slower than the timeout.
//
// In Open Finance the front end relays one payment of a consent at a time: a request also
// waits there while another of its consent is relayed, held by that one's fault. That wait,
// from its arrival at the front end to its relay to the core (queued), is not the PSP's hold
// of this request, and is left out.
func checkElapsed(tr Trace) error {
	var v violations
	for i, c := range tr.Calls {
		for k, ph := range c.phases() {
			if !ph.paired() {
				continue // invariant 1 reports it
			}
			kind, bound := phaseKinds[k], attemptBound(tr, k == 1)
			budget := time.Duration(len(ph.Attempts)) * bound
			for j, a := range ph.Attempts {
				t := ph.Trips[j]
				queued := tr.queued(t)
				budget += queued
				if took := a.At.Sub(t.Start) - queued; took < 0 || took > bound {
					v.addf("call %d: %sattempt %d took %v, the bound is %v", i, kind, a.Number, took, bound)
				}
				if waitedAfter(c, k, j) {
					budget += max(retrytest.Ceiling(tr.Policy, a.Number), hintOf(t))
				}
			}
			if start, end := c.span(k); end.Sub(start) > budget {
				v.addf("call %d took %v over its %sattempts, more than its budget %v", i, end.Sub(start), kind, budget)
			}
		}
	}
	return v.err()
}

// queued is how long the front end held round trip t's request before it relayed it to the
// core: 0 without a front end, or when it relayed none.
func (tr Trace) queued(t Trip) time.Duration {
	if tr.Dialect.Front == nil {
		return 0
	}
	for _, core := range tr.Wire {
		if core.Trip == t.Number {
			front, _ := tr.exchangeOf(t)
			return core.Arrived.Sub(front.Arrived)
		}
	}
	return 0
}

// attemptBound is the longest one attempt can last in tr (see checkElapsed), a lookup's if
// lookup.
func attemptBound(tr Trace, lookup bool) time.Duration {
	slowest := tr.SlowestFault
	if lookup {
		slowest = tr.SlowestLookup
	}
	if tr.AttemptTimeout > 0 {
		return min(tr.AttemptTimeout, slowest)
	}
	return slowest
}

// elapsedPlanted are violations of this invariant, planted in the baseline trace.
var elapsedPlanted = []planted{
	{"an attempt longer than its timeout", "attempt 1 took 500ms, the bound is 400ms",
		func(tr *Trace) { tr.AttemptTimeout = 400 * time.Millisecond }},
	{"an attempt longer than the PSP held it", "attempt 1 took 500ms, the bound is 300ms",
		func(tr *Trace) { tr.AttemptTimeout, tr.SlowestFault = 0, 300*time.Millisecond }},
	{"a call longer than its budget", "more than its budget", func(tr *Trace) {
		tr.Calls[callRefused].Start = tr.Calls[callRefused].Start.Add(-time.Hour)
		tr.attempt(callRefused, 1).Elapsed += time.Hour
	}},
}
