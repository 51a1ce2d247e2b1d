package properties

import (
	"time"

	"pixretry/retry"
)

// checkWaits is invariant 5: each wait lies in [0, min(DelayMax, DelayBase·2^(n−1))], or is at
// least the Retry-After hint when one was given (and at most the larger of hint and ceiling); a
// hint above DelayMax ends the call; no wait follows the last attempt, but the one before a retry
// the breaker refused (pix asks it after the wait); the call lasts at most
// the sum of its ceilings (or hints) plus one attempt bound per attempt; and it keeps its
// caller's deadline (no attempt starts at or after it, the call does not return after it).
//
// Virtual time makes this exact rather than statistical: the next attempt starts exactly the
// logged wait after the previous one ended, the call returns at the very instant its last
// attempt ended, and each wait is max(FullJitter(ceiling, u), hint) for the draw u the client
// took from its jitter source (one draw per wait chosen, the one a caller's deadline refused
// included; none after the last attempt otherwise).
//
// The attempt bound is the honest one. An attempt lasts as long as the PSP holds it, which only
// a slow or late fault does, and never longer than AttemptTimeout when that is set (the
// attempt's deadline cuts a slow or late answer short): min(AttemptTimeout, SlowestFault), or
// SlowestFault when AttemptTimeout is 0. A bound of AttemptsMax × AttemptTimeout holds only in
// the special case of a PSP slower than the timeout.
func checkWaits(tr Trace) error {
	var v violations
	for i, c := range tr.Calls {
		if len(c.Trips) == len(c.Attempts) { // else invariant 1 reports it: they cannot be paired
			checkCallTime(&v, tr, i, c)
		}
	}
	return v.err()
}

// checkCallTime checks the time line of call i: each attempt's duration and elapsed time, each
// wait (checkWait), the end of the call and its whole duration.
func checkCallTime(v *violations, tr Trace, i int, c Call) {
	bound := attemptBound(tr)
	budget := time.Duration(len(c.Attempts)) * bound
	for j, a := range c.Attempts {
		t := c.Trips[j]
		if took := a.At.Sub(t.Start); took < 0 || took > bound {
			v.addf("call %d: attempt %d took %v, the bound is %v", i, a.Number, took, bound)
		}
		if want := a.At.Sub(c.Start); a.Elapsed != want {
			v.addf("call %d: attempt %d logged elapsed %v, it ended %v after the call began", i, a.Number, a.Elapsed, want)
		}
		switch last := j == len(c.Attempts)-1; {
		case last && !stoppedByBreaker(c):
			if a.Wait != 0 || !c.End.Equal(a.At) {
				v.addf("call %d: last attempt %d logged wait %v and the call returned %v after it", i, a.Number, a.Wait,
					c.End.Sub(a.At))
			}
			continue
		case last: // it waited, then the breaker refused the retry
			if !c.End.Equal(a.At.Add(a.Wait)) {
				v.addf("call %d: the breaker refused the retry after attempt %d and its wait %v, the call returned %v after it",
					i, a.Number, a.Wait, c.End.Sub(a.At))
			}
		case hintOf(t) > tr.Policy.DelayMax:
			v.addf("call %d: attempt %d was answered Retry-After %v > DelayMax %v, yet attempt %d followed", i, a.Number,
				hintOf(t), tr.Policy.DelayMax, a.Number+1)
		}
		budget += max(ceilingOf(tr.Policy, a.Number), hintOf(t))
		checkWait(v, tr.Policy, i, c, j)
	}
	if took := c.End.Sub(c.Start); took > budget {
		v.addf("call %d took %v, more than its budget %v", i, took, budget)
	}
	checkDeadline(v, i, c)
	if want := drawsWanted(tr.Policy, c); len(c.Draws) != want {
		v.addf("call %d took %d jitter draws for %d waits", i, len(c.Draws), want)
	}
}

// checkDeadline checks that call i kept its caller's deadline: no attempt started at or after
// it, and the call did not return after it.
func checkDeadline(v *violations, i int, c Call) {
	if c.Deadline.IsZero() {
		return
	}
	for j, t := range c.Trips {
		if !t.Start.Before(c.Deadline) {
			v.addf("call %d: attempt %d started %v after the caller's deadline", i, j+1, t.Start.Sub(c.Deadline))
		}
	}
	if c.End.After(c.Deadline) {
		v.addf("call %d outlived its caller's deadline by %v", i, c.End.Sub(c.Deadline))
	}
}

// drawsWanted is the number of jitter draws call c should have taken: one per wait chosen, that
// is one per attempt but the last, and one more when the last failed transiently with budget
// left and a wait was chosen only to find that the caller's deadline would come first, or that
// the breaker refused the attempt after it.
func drawsWanted(p retry.Policy, c Call) int {
	n := len(c.Attempts)
	if stoppedByBreaker(c) {
		return n
	}
	a, ok := lastOf(c.Attempts)
	t, _ := lastOf(c.Trips)
	if ok && a.Transient && n < p.AttemptsMax && hintOf(t) <= p.DelayMax && !c.Deadline.IsZero() {
		return n
	}
	return max(n-1, 0)
}

// checkWait checks the wait after attempt j+1 of call i, which is not the last: its bounds, its
// value for the jitter draw the call took, and that the next attempt started when it ended.
func checkWait(v *violations, p retry.Policy, i int, c Call, j int) {
	a, t := c.Attempts[j], c.Trips[j]
	ceiling, hint := ceilingOf(p, a.Number), hintOf(t)
	switch {
	case hint > 0 && (a.Wait < hint || a.Wait > max(ceiling, hint)):
		v.addf("call %d: wait %v after attempt %d is outside [hint %v, max(ceiling %v, hint)]", i, a.Wait, a.Number, hint,
			ceiling)
	case hint == 0 && (a.Wait < 0 || a.Wait > ceiling):
		v.addf("call %d: wait %v after attempt %d is outside [0, ceiling %v]", i, a.Wait, a.Number, ceiling)
	}
	if j < len(c.Draws) {
		if want := max(fullJitterOf(ceiling, c.Draws[j]), hint); a.Wait != want {
			v.addf("call %d: wait %v after attempt %d, want max(FullJitter(%v, %v), hint %v) = %v", i, a.Wait, a.Number,
				ceiling, c.Draws[j], hint, want)
		}
	}
	if j+1 == len(c.Trips) {
		return // the breaker refused the attempt after the wait
	}
	if gap := c.Trips[j+1].Start.Sub(a.At); gap != a.Wait {
		v.addf("call %d: attempt %d started %v after attempt %d ended, the logged wait is %v", i, a.Number+1, gap, a.Number,
			a.Wait)
	}
}

// attemptBound is the longest one attempt can last in tr (see checkWaits).
func attemptBound(tr Trace) time.Duration {
	if tr.AttemptTimeout > 0 {
		return min(tr.AttemptTimeout, tr.SlowestFault)
	}
	return tr.SlowestFault
}

// waitsPlanted are violations of this invariant, planted in the baseline trace.
var waitsPlanted = []planted{
	{"a wait above the ceiling", "outside [0, ceiling 100ms]",
		func(tr *Trace) { setWait(tr, callSettled, 1, 150*time.Millisecond) }},
	{"a wait below the hint", "outside [hint 1s",
		func(tr *Trace) { setWait(tr, callUnknown, 1, 500*time.Millisecond) }},
	{"a wait above hint and ceiling", "outside [hint 1s",
		func(tr *Trace) { setWait(tr, callUnknown, 1, 1100*time.Millisecond) }},
	{"a wait that is not the draw's", "want max(FullJitter",
		func(tr *Trace) { tr.Calls[callSettled].Draws[0] = 0.9 }},
	{"a next attempt that did not wait the logged wait", "the logged wait is",
		func(tr *Trace) { tr.attempt(callSettled, 1).Wait -= time.Millisecond }},
	{"a wait logged after the last attempt", "last attempt 2 logged wait 1ms",
		func(tr *Trace) { tr.attempt(callSettled, 2).Wait = time.Millisecond }},
	{"a call that returns after its last attempt", "returned 1ms after it",
		func(tr *Trace) { tr.Calls[callRefused].End = tr.Calls[callRefused].End.Add(time.Millisecond) }},
	{"an attempt longer than its timeout", "attempt 1 took 500ms, the bound is 400ms",
		func(tr *Trace) { tr.AttemptTimeout = 400 * time.Millisecond }},
	{"an attempt longer than the PSP held it", "attempt 1 took 500ms, the bound is 300ms",
		func(tr *Trace) { tr.AttemptTimeout, tr.SlowestFault = 0, 300*time.Millisecond }},
	{"a wrong elapsed time", "logged elapsed",
		func(tr *Trace) { tr.attempt(callUnknown, 2).Elapsed = 0 }},
	{"a retry after a hint above DelayMax", "Retry-After 2s > DelayMax 1s",
		func(tr *Trace) { tr.trip(callUnknown, 1).RetryAfter = "2" }},
	{"a call longer than its budget", "more than its budget", func(tr *Trace) {
		tr.Calls[callRefused].Start = tr.Calls[callRefused].Start.Add(-time.Hour)
		tr.attempt(callRefused, 1).Elapsed += time.Hour
	}},
	{"a draw taken after the last attempt", "took 2 jitter draws for 1 waits",
		func(tr *Trace) { tr.Calls[callSettled].Draws = append(tr.Calls[callSettled].Draws, 0.1) }},
	{"no draw for the wait the deadline refused", "took 1 jitter draws for 2 waits",
		func(tr *Trace) { tr.Calls[callDeadline].Draws = tr.Calls[callDeadline].Draws[:1] }},
	{"an attempt at the caller's deadline", "attempt 2 started 0s after the caller's deadline",
		func(tr *Trace) { tr.Calls[callDeadline].Deadline = tr.trip(callDeadline, 2).Start }},
	{"a call that outlives its caller's deadline", "outlived its caller's deadline by 1ms",
		func(tr *Trace) {
			c := &tr.Calls[callRefused]
			c.Deadline = c.End.Add(-time.Millisecond)
			c.Trips[0].Start = c.Deadline.Add(-time.Millisecond)
		}},
}
