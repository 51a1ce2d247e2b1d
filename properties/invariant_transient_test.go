package properties

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"pixretry/pix"
	"pixretry/retry"
	"pixretry/retry/retrytest"
)

// checkTransientRetried is invariant 11: a transient failure is retried while the budget, the
// hint and the deadlines allow. A call whose last round trip failed transiently by the wire's
// account (transientTrip: a lost connection, a timeout, a body cut short, a 5xx but 501 and 505,
// a 409, a 429), whatever the client reported, made AttemptsMax attempts, or was answered a
// Retry-After above DelayMax, or met its caller's deadline (stoppedForDeadline), or had its
// retry refused by the breaker (stoppedByBreaker) or by the key deadline, when that retry would
// not have ended before it (stoppedByKeyDeadline). A lookup's attempts are held to the same rule
// (no breaker and no key deadline stop them). An Await's lookups are bounded by their deadline
// alone, and an answer that the payment is pending is looked up again as a transient failure
// is. A Resume looks its key up without resending only when a resend would not have ended before
// the key deadline.
func checkTransientRetried(tr Trace) error {
	var v violations
	for i, c := range tr.Calls {
		for k := range c.phases() {
			checkRetried(&v, tr, i, c, k)
		}
		checkKeyStop(&v, tr, i, c)
	}
	return v.err()
}

// checkRetried checks that phase k of call i, if its last round trip failed transiently, had a
// reason to stop.
func checkRetried(v *violations, tr Trace, i int, c Call, k int) {
	ph := c.phases()[k]
	t, ok := lastOf(ph.Trips)
	polled := k == 1 && c.Awaited && tr.lastHeard(c) == statusPending
	if !ok || len(ph.Trips) != len(ph.Attempts) || !transientTrip(t, tr.unreadable(t)) && !polled {
		return // no round trip, or invariant 1 reports it, or a final answer
	}
	n, p := len(ph.Attempts), tr.Policy
	if n < budgetOf(p, c, k) && hintOf(t) <= p.DelayMax && !stoppedForDeadline(p, c, k) && !(k == 0 && stoppedAfterWait(c)) {
		v.addf("call %d stopped after a transient failure or a pending payment (status %d, error %v) at %sattempt %d of %d",
			i, t.Status, t.Err, phaseKinds[k], n, budgetOf(p, c, k))
	}
}

// checkKeyStop checks that the key deadline stopped call i only where it had to: the retry
// refused after its last attempt's wait would not have ended before it, and a Resume that looked
// up at once could not have resent either.
func checkKeyStop(v *violations, tr Trace, i int, c Call) {
	deadline := tr.keyDeadline(c)
	if a, ok := lastOf(c.Attempts); ok && stoppedByKeyDeadline(c) &&
		fitsBefore(a.At.Add(a.Wait), deadline, tr.AttemptTimeout) {
		v.addf("call %d stopped at the key deadline after attempt %d, yet attempt %d would have ended %v before it", i,
			a.Number, a.Number+1, deadline.Sub(a.At.Add(a.Wait+tr.AttemptTimeout)))
	}
	if c.Resumed != nil && c.lookedUp() && c.Summary == nil && fitsBefore(c.Start, deadline, tr.AttemptTimeout) {
		v.addf("call %d looked its key up at once, yet a resend would have ended %v before the key deadline", i,
			deadline.Sub(c.Start.Add(tr.AttemptTimeout)))
	}
}

// stoppedForDeadline reports whether the caller's deadline explains why phase k of call c made
// no attempt after its last one: the deadline had passed when that attempt ended, or the wait
// drawn after it would have ended at or after the deadline (retry does not start such a wait).
func stoppedForDeadline(p retry.Policy, c Call, k int) bool {
	ph := c.phases()[k]
	a, _ := lastOf(ph.Attempts)
	t, _ := lastOf(ph.Trips)
	n := len(ph.Attempts)
	switch {
	case c.Deadline.IsZero():
		return false
	case !a.At.Before(c.Deadline):
		return true
	case len(ph.Draws) < n:
		return false
	}
	wait := max(retrytest.FullJitter(retrytest.Ceiling(p, n), ph.Draws[n-1]), hintOf(t))
	return !a.At.Add(wait).Before(c.Deadline)
}

// stopAfter ends call i at its attempt n, reported as a permanent failure and returned. The later
// round trips never happened.
func stopAfter(tr *Trace, i, n int) {
	c := &tr.Calls[i]
	forgetAfter(tr, i, n)
	c.Draws = c.Draws[:n-1]
	c.Attempts[n-1].Transient, c.Attempts[n-1].Wait = false, 0
	c.End, c.Summary.At, c.Summary.Attempts = c.Attempts[n-1].At, c.Attempts[n-1].At, n
	c.Err = &pix.OutcomeUnknownError{Key: c.Key(), Attempts: n, Err: errors.New(c.Attempts[n-1].Error)}
}

// expiredAfter ends call i after its attempt n and the wait reported after it, as the key
// deadline does: attempt n+1 was not sent, and the call returned pix.ErrKeyExpired. The later
// round trips never happened.
func expiredAfter(tr *Trace, i, n int) {
	c := &tr.Calls[i]
	forgetAfter(tr, i, n)
	a := c.Attempts[n-1]
	c.Draws, c.Tickets = c.Draws[:n], c.Tickets[:n]
	c.End, c.Summary.At, c.Summary.Attempts = a.At.Add(a.Wait), a.At.Add(a.Wait), n
	c.Err = &pix.OutcomeUnknownError{Key: c.Key(), Attempts: n, FirstSent: c.Trips[0].Start,
		Err: fmt.Errorf("%w; last error: %w", pix.ErrKeyExpired, errors.New(a.Error))}
}

// forgetAfter removes the attempts of call i after its attempt n, and their round trips on both
// sides of the wire.
func forgetAfter(tr *Trace, i, n int) {
	c := &tr.Calls[i]
	for j := n + 1; j <= len(c.Trips); j++ {
		tr.answer(i, j).Trip = -1
	}
	tr.Wire = slices.DeleteFunc(tr.Wire, func(ex Exchange) bool { return ex.Trip == -1 })
	c.Attempts, c.Trips, c.Lines = c.Attempts[:n], c.Trips[:n], c.Lines[:n]
}

// gaveUpPending ends Await call i after its lookup n, which heard its payment pending, as if its
// deadline had come.
func gaveUpPending(tr *Trace, i, n int) {
	c := &tr.Calls[i]
	for _, t := range c.Lookup.Trips[n:] {
		tr.exchange(t.Number).Trip = -1
	}
	tr.Wire = slices.DeleteFunc(tr.Wire, func(ex Exchange) bool { return ex.Trip == -1 })
	look := &c.Lookup
	look.Attempts, look.Trips, look.Lines, look.Draws = look.Attempts[:n], look.Trips[:n], look.Lines[:n], look.Draws[:n-1]
	look.Attempts[n-1].Wait = 0
	c.End, look.Summary.At, look.Summary.Attempts = look.Attempts[n-1].At, look.Attempts[n-1].At, n
	c.Receipt, c.Err = pix.Receipt{}, &pix.OutcomeUnknownError{Key: c.Key(), Attempts: n,
		Err: errors.New(look.Attempts[n-1].Error)}
}

// resumedFrom makes Resume call i count its key's lifetime from first, as if the key had first
// left then.
func resumedFrom(tr *Trace, i int, first time.Time) {
	r := *tr.Calls[i].Resumed
	r.FirstSent = first
	tr.Calls[i].Resumed = &r
}

// transientPlanted are violations of this invariant, planted in the baseline trace.
var transientPlanted = []planted{
	{"giving up with budget left", "call 2 stopped after a transient failure or a pending payment (status 503",
		func(tr *Trace) { tr.Policy.AttemptsMax = 5 }},
	{"giving up long before the caller's deadline", "call 4 stopped after a transient failure",
		func(tr *Trace) { tr.Calls[callDeadline].Deadline = tr.Calls[callDeadline].End.Add(time.Hour) }},
	{"a lost connection taken as permanent",
		"call 2 stopped after a transient failure or a pending payment (status 0, error EOF) at attempt 2 of 3",
		func(tr *Trace) { stopAfter(tr, callUnknown, 2) }},
	{"a retry refused at the key deadline with time left", "call 2 stopped at the key deadline after attempt 2",
		func(tr *Trace) { expiredAfter(tr, callUnknown, 2) }},
	{"an Await that gives up on a pending payment",
		"call 11 stopped after a transient failure or a pending payment (status 202, error <nil>) at lookup attempt 1 of 1000",
		func(tr *Trace) { gaveUpPending(tr, callAwaited, 1) }},
	{"a lookup while a resend would still fit", "call 9 looked its key up at once",
		func(tr *Trace) { resumedFrom(tr, callFound, tr.Calls[callFound].Start) }},
	{"a reset fresh connection taken as permanent",
		"call 1 stopped after a transient failure or a pending payment (status 0, error read tcp",
		func(tr *Trace) {
			lostConnection(tr, callRefused, 1, errReset)
			tr.Calls[callRefused].Err = errReset
		}},
}
