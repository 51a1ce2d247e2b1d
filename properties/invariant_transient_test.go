package properties

import (
	"time"

	"pixretry/retry"
)

// checkTransientRetried is invariant 11: a transient failure is retried while the budget, the
// hint and the deadline allow. A call whose last round trip failed transiently by the wire's
// account (transientTrip: a lost connection, a timeout, a body cut short, a 5xx but 501 and
// 505, a 409, a 429), whatever the client logged, made AttemptsMax attempts, or was answered a
// Retry-After above DelayMax, or met its caller's deadline (stoppedForDeadline), or had its
// retry refused by the breaker (stoppedByBreaker).
func checkTransientRetried(tr Trace) error {
	var v violations
	for i, c := range tr.Calls {
		t, ok := lastOf(c.Trips)
		if !ok || len(c.Trips) != len(c.Attempts) || !transientTrip(t, tr.unreadable(t)) {
			continue // no round trip, or invariant 1 reports it, or a final answer
		}
		n, p := len(c.Attempts), tr.Policy
		if n < p.AttemptsMax && hintOf(t) <= p.DelayMax && !stoppedForDeadline(p, c) && !stoppedByBreaker(c) {
			v.addf("call %d stopped after a transient failure (status %d, error %v) at attempt %d of %d",
				i, t.Status, t.Err, n, p.AttemptsMax)
		}
	}
	return v.err()
}

// stoppedForDeadline reports whether the caller's deadline explains why call c made no attempt
// after its last one: the deadline had passed when that attempt ended, or the wait drawn after
// it would have ended at or after the deadline (retry does not start such a wait).
func stoppedForDeadline(p retry.Policy, c Call) bool {
	a, _ := lastOf(c.Attempts)
	t, _ := lastOf(c.Trips)
	n := len(c.Attempts)
	switch {
	case c.Deadline.IsZero():
		return false
	case !a.At.Before(c.Deadline):
		return true
	case len(c.Draws) < n:
		return false
	}
	wait := max(fullJitterOf(ceilingOf(p, n), c.Draws[n-1]), hintOf(t))
	return !a.At.Add(wait).Before(c.Deadline)
}

// transientPlanted are violations of this invariant, planted in the baseline trace.
var transientPlanted = []planted{
	{"giving up with budget left", "call 2 stopped after a transient failure (status 503",
		func(tr *Trace) { tr.Policy.AttemptsMax = 5 }},
	{"giving up long before the caller's deadline", "call 4 stopped after a transient failure",
		func(tr *Trace) { tr.Calls[callDeadline].Deadline = tr.Calls[callDeadline].End.Add(time.Hour) }},
	{"a lost connection taken as permanent",
		"call 2 stopped after a transient failure (status 0, error EOF) at attempt 2 of 3",
		func(tr *Trace) { stopAfter(tr, callUnknown, 2) }},
	{"a reset fresh connection taken as permanent", "call 1 stopped after a transient failure (status 0, error read tcp",
		func(tr *Trace) {
			lostConnection(tr, callRefused, 1, errReset)
			tr.Calls[callRefused].Err = errReset
		}},
}
