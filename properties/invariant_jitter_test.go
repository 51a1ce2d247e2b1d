package properties

import (
	"time"

	"pixretry/retry"
	"pixretry/retry/retrytest"
)

// checkJitter is invariant 5a: each wait is max(FullJitter(ceiling, u), hint), for the ceiling
// min(DelayMax, DelayBase·2^(n−1)) after attempt n, the draw u the client took from its jitter
// source and the Retry-After hint. So a wait lies in [0, ceiling], or with a hint in [hint,
// max(ceiling, hint)]. A hint above DelayMax ends the call. The client takes one draw per wait it
// chooses: none after the last attempt, but for a wait chosen only to find that the caller's
// deadline would come first, or that the breaker or the key deadline refused the attempt after
// it (pix asks them after the wait). A lookup's waits are held to the same rules, with the draws
// taken after its first round trip. Virtual time makes this exact rather than statistical.
func checkJitter(tr Trace) error {
	var v violations
	p := tr.Policy
	for i, c := range tr.Calls {
		for k, ph := range c.phases() {
			if !ph.paired() {
				continue // invariant 1 reports it
			}
			kind := phaseKinds[k]
			for j, a := range ph.Attempts {
				ceiling, hint := retrytest.Ceiling(p, a.Number), hintOf(ph.Trips[j])
				if j < len(ph.Attempts)-1 && hint > p.DelayMax {
					v.addf("call %d: %sattempt %d was answered Retry-After %v > DelayMax %v, yet %sattempt %d followed", i,
						kind, a.Number, hint, p.DelayMax, kind, a.Number+1)
				}
				if !waitedAfter(c, k, j) {
					continue
				}
				switch {
				case hint > 0 && (a.Wait < hint || a.Wait > max(ceiling, hint)):
					v.addf("call %d: wait %v after %sattempt %d is outside [hint %v, max(ceiling %v, hint)]", i, a.Wait,
						kind, a.Number, hint, ceiling)
				case hint == 0 && (a.Wait < 0 || a.Wait > ceiling):
					v.addf("call %d: wait %v after %sattempt %d is outside [0, ceiling %v]", i, a.Wait, kind, a.Number,
						ceiling)
				}
				if j >= len(ph.Draws) {
					continue // the count of draws below reports it
				}
				if want := max(retrytest.FullJitter(ceiling, ph.Draws[j]), hint); a.Wait != want {
					v.addf("call %d: wait %v after %sattempt %d, want max(FullJitter(%v, %v), hint %v) = %v", i, a.Wait,
						kind, a.Number, ceiling, ph.Draws[j], hint, want)
				}
			}
			if want := drawsWanted(p, c, k); len(ph.Draws) != want {
				v.addf("call %d took %d jitter draws for %d %swaits", i, len(ph.Draws), want, kind)
			}
		}
	}
	return v.err()
}

// drawsWanted is the number of jitter draws phase k of call c should have taken: one per wait
// chosen, that is one per attempt but the last, and one more when the last failed transiently
// (or, in an Await, heard the payment is pending) with budget left and a wait was chosen only to find that the caller's deadline would come
// first, or that the breaker or the key deadline refused the attempt after it.
func drawsWanted(p retry.Policy, c Call, k int) int {
	ph := c.phases()[k]
	n := len(ph.Attempts)
	if k == 0 && stoppedAfterWait(c) {
		return n
	}
	a, ok := lastOf(ph.Attempts)
	t, _ := lastOf(ph.Trips)
	if ok && again(c, a) && n < budgetOf(p, c, k) && hintOf(t) <= p.DelayMax && !c.Deadline.IsZero() {
		return n
	}
	return max(n-1, 0)
}

// setWait changes the wait after attempt n of call i. The rest of the call moves in time, so
// that the next attempt still starts when the wait ends.
func setWait(tr *Trace, i, n int, wait time.Duration) {
	c := &tr.Calls[i]
	shift := wait - c.Attempts[n-1].Wait
	c.Attempts[n-1].Wait = wait
	for k := n; k < len(c.Attempts); k++ {
		c.Attempts[k].At, c.Attempts[k].Elapsed = c.Attempts[k].At.Add(shift), c.Attempts[k].Elapsed+shift
		c.Trips[k].Start, c.Trips[k].End = c.Trips[k].Start.Add(shift), c.Trips[k].End.Add(shift)
	}
	c.End = c.End.Add(shift)
}

// jitterPlanted are violations of this invariant, planted in the baseline trace.
var jitterPlanted = []planted{
	{"a wait above the ceiling", "outside [0, ceiling 100ms]",
		func(tr *Trace) { setWait(tr, callSettled, 1, 150*time.Millisecond) }},
	{"a wait below the hint", "outside [hint 1s",
		func(tr *Trace) { setWait(tr, callUnknown, 1, 500*time.Millisecond) }},
	{"a wait above hint and ceiling", "outside [hint 1s",
		func(tr *Trace) { setWait(tr, callUnknown, 1, 1100*time.Millisecond) }},
	{"a wait that is not the draw's", "want max(FullJitter", func(tr *Trace) { tr.Calls[callSettled].Draws[0] = 0.9 }},
	{"a retry after a hint above DelayMax", "Retry-After 2s > DelayMax 1s",
		func(tr *Trace) { tr.trip(callUnknown, 1).RetryAfter = "2" }},
	{"a draw taken after the last attempt", "took 2 jitter draws for 1 waits",
		func(tr *Trace) { tr.Calls[callSettled].Draws = append(tr.Calls[callSettled].Draws, 0.1) }},
	{"no draw for the wait the deadline refused", "took 1 jitter draws for 2 waits",
		func(tr *Trace) { tr.Calls[callDeadline].Draws = tr.Calls[callDeadline].Draws[:1] }},
}
