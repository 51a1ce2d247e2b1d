package properties

import (
	"time"

	"pixretry/retry"
)

// checkWaits is invariant 5: each wait lies in [0, min(DelayMax, DelayBase·2^(n−1))], or is at
// least the Retry-After hint when one was given (and at most the larger of hint and ceiling); a
// hint above DelayMax ends the call; no wait follows the last attempt, but the one before a retry
// the breaker or the key deadline refused (pix asks them after the wait); the call lasts at
// most the sum of its ceilings (or hints) plus one attempt bound per attempt; it keeps its
// caller's deadline (no attempt starts at or after it, the call does not return after it); and
// it keeps the key deadline (no payment attempt starts unless it would end before it, by its
// AttemptTimeout, or with none before it and the key deadline then ends it). A lookup's
// attempts are held to the same rules, from the instant the payment attempts ended, with the
// draws taken after its first round trip.
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
		for k, ph := range c.phases() {
			// Unpaired attempts and round trips are invariant 1's to report.
			if len(ph.Trips) == len(ph.Attempts) && ph.Summary != nil {
				checkCallTime(&v, tr, i, c, k)
			}
		}
		checkDeadline(&v, i, c)
		checkKeyDeadline(&v, tr, i, c)
	}
	return v.err()
}

// checkCallTime checks the time line of phase k of call i: each attempt's duration and elapsed
// time, each wait (checkWait), the end of the phase and its whole duration.
func checkCallTime(v *violations, tr Trace, i int, c Call, k int) {
	ph, kind, bound := c.phases()[k], phaseKinds[k], attemptBound(tr, k == 1)
	start, end := c.span(k)
	budget := time.Duration(len(ph.Attempts)) * bound
	for j, a := range ph.Attempts {
		t := ph.Trips[j]
		if took := a.At.Sub(t.Start); took < 0 || took > bound {
			v.addf("call %d: %sattempt %d took %v, the bound is %v", i, kind, a.Number, took, bound)
		}
		if want := a.At.Sub(start); a.Elapsed != want {
			v.addf("call %d: %sattempt %d logged elapsed %v, it ended %v after the %s began", i, kind, a.Number,
				a.Elapsed, want, phaseNames[k])
		}
		switch last := j == len(ph.Attempts)-1; {
		case last && !(k == 0 && stoppedAfterWait(c)):
			if a.Wait != 0 || !end.Equal(a.At) {
				v.addf("call %d: last %sattempt %d logged wait %v and the %s returned %v after it", i, kind, a.Number,
					a.Wait, phaseNames[k], end.Sub(a.At))
			}
			continue
		case last: // it waited, then the breaker or the key deadline refused the retry
			if !end.Equal(a.At.Add(a.Wait)) {
				v.addf("call %d: the retry after attempt %d and its wait %v was refused, the call returned %v after it",
					i, a.Number, a.Wait, end.Sub(a.At))
			}
		case hintOf(t) > tr.Policy.DelayMax:
			v.addf("call %d: %sattempt %d was answered Retry-After %v > DelayMax %v, yet %sattempt %d followed", i, kind,
				a.Number, hintOf(t), tr.Policy.DelayMax, kind, a.Number+1)
		}
		budget += max(ceilingOf(tr.Policy, a.Number), hintOf(t))
		checkWait(v, tr.Policy, i, ph, j, kind)
	}
	if took := end.Sub(start); took > budget {
		v.addf("call %d took %v over its %sattempts, more than its budget %v", i, took, kind, budget)
	}
	if want := drawsWanted(tr.Policy, c, k); len(ph.Draws) != want {
		v.addf("call %d took %d jitter draws for %d %swaits", i, len(ph.Draws), want, kind)
	}
}

// checkDeadline checks that call i kept its caller's deadline: no attempt started at or after
// it, and the call did not return after it.
func checkDeadline(v *violations, i int, c Call) {
	if c.Deadline.IsZero() {
		return
	}
	for k, ph := range c.phases() {
		for j, t := range ph.Trips {
			if !t.Start.Before(c.Deadline) {
				v.addf("call %d: %sattempt %d started %v after the caller's deadline", i, phaseKinds[k], j+1,
					t.Start.Sub(c.Deadline))
			}
		}
	}
	if c.End.After(c.Deadline) {
		v.addf("call %d outlived its caller's deadline by %v", i, c.End.Sub(c.Deadline))
	}
}

// checkKeyDeadline checks that no payment attempt of call i could still be in flight at its key
// deadline: each started only if it would end before it (fitsBefore), and, with no
// AttemptTimeout, ended by it.
func checkKeyDeadline(v *violations, tr Trace, i int, c Call) {
	deadline := tr.keyDeadline(c)
	for j, t := range c.Trips {
		switch {
		case !fitsBefore(t.Start, deadline, tr.AttemptTimeout):
			v.addf("call %d: attempt %d started %v before the key deadline, with AttemptTimeout %v", i, j+1,
				deadline.Sub(t.Start), tr.AttemptTimeout)
		case j < len(c.Attempts) && c.Attempts[j].At.After(deadline):
			v.addf("call %d: attempt %d ended %v after the key deadline", i, j+1, c.Attempts[j].At.Sub(deadline))
		}
	}
}

// drawsWanted is the number of jitter draws phase k of call c should have taken: one per wait
// chosen, that is one per attempt but the last, and one more when the last failed transiently
// with budget left and a wait was chosen only to find that the caller's deadline would come
// first, or that the breaker or the key deadline refused the attempt after it.
func drawsWanted(p retry.Policy, c Call, k int) int {
	ph := c.phases()[k]
	n := len(ph.Attempts)
	if k == 0 && stoppedAfterWait(c) {
		return n
	}
	a, ok := lastOf(ph.Attempts)
	t, _ := lastOf(ph.Trips)
	if ok && a.Transient && n < p.AttemptsMax && hintOf(t) <= p.DelayMax && !c.Deadline.IsZero() {
		return n
	}
	return max(n-1, 0)
}

// stoppedAfterWait reports whether the payment attempts of call c ended with a retry refused
// after its wait: by the breaker (stoppedByBreaker) or by the key deadline
// (stoppedByKeyDeadline).
func stoppedAfterWait(c Call) bool { return stoppedByBreaker(c) || stoppedByKeyDeadline(c) }

// checkWait checks the wait after attempt j+1 of ph, a phase of call i, which is not the last:
// its bounds, its value for the jitter draw the call took, and that the next attempt started
// when it ended.
func checkWait(v *violations, p retry.Policy, i int, ph Phase, j int, kind string) {
	a, t := ph.Attempts[j], ph.Trips[j]
	ceiling, hint := ceilingOf(p, a.Number), hintOf(t)
	switch {
	case hint > 0 && (a.Wait < hint || a.Wait > max(ceiling, hint)):
		v.addf("call %d: wait %v after %sattempt %d is outside [hint %v, max(ceiling %v, hint)]", i, a.Wait, kind,
			a.Number, hint, ceiling)
	case hint == 0 && (a.Wait < 0 || a.Wait > ceiling):
		v.addf("call %d: wait %v after %sattempt %d is outside [0, ceiling %v]", i, a.Wait, kind, a.Number, ceiling)
	}
	if j < len(ph.Draws) {
		if want := max(fullJitterOf(ceiling, ph.Draws[j]), hint); a.Wait != want {
			v.addf("call %d: wait %v after %sattempt %d, want max(FullJitter(%v, %v), hint %v) = %v", i, a.Wait, kind,
				a.Number, ceiling, ph.Draws[j], hint, want)
		}
	}
	if j+1 == len(ph.Trips) {
		return // the breaker or the key deadline refused the attempt after the wait
	}
	if gap := ph.Trips[j+1].Start.Sub(a.At); gap != a.Wait {
		v.addf("call %d: %sattempt %d started %v after %sattempt %d ended, the logged wait is %v", i, kind, a.Number+1,
			gap, kind, a.Number, a.Wait)
	}
}

// phaseNames name the phases in the waits' violations.
var phaseNames = [2]string{"call", "lookup"}

// attemptBound is the longest one attempt can last in tr (see checkWaits), a lookup's if
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
	{"an attempt that would end past the key deadline", "attempt 3 started 200ms before the key deadline",
		func(tr *Trace) { tr.ClientKeyTTL = 1500 * time.Millisecond }},
	{"an attempt in flight at the key deadline", "attempt 1 ended 140ms after the key deadline",
		func(tr *Trace) { tr.AttemptTimeout, tr.ClientKeyTTL = 0, 400*time.Millisecond }},
	{"a call that outlives its caller's deadline", "outlived its caller's deadline by 1ms",
		func(tr *Trace) {
			c := &tr.Calls[callRefused]
			c.Deadline = c.End.Add(-time.Millisecond)
			c.Trips[0].Start = c.Deadline.Add(-time.Millisecond)
		}},
}
