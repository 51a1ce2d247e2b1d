package properties

import "time"

// checkTimeline is invariant 5b: the log's time line is the wire's. Each attempt logs as elapsed
// the time from the start of its phase to its end; the next attempt starts exactly the reported
// wait after the previous one ended; no wait follows the last attempt, and the call returns at
// the very instant it ended. Only a retry that the breaker or the key deadline refused after
// its wait (pix asks them after the wait) ends the call when that wait ends. A lookup's attempts
// are held to the same rules, from the instant the payment attempts ended. Virtual time makes
// this exact.
func checkTimeline(tr Trace) error {
	var v violations
	for i, c := range tr.Calls {
		for k, ph := range c.phases() {
			if !ph.paired() {
				continue // invariant 1 reports it
			}
			kind := phaseKinds[k]
			start, end := c.span(k)
			for j, a := range ph.Attempts {
				if want := a.At.Sub(start); a.Elapsed != want {
					v.addf("call %d: %sattempt %d reported elapsed %v, it ended %v after the %s began", i, kind, a.Number,
						a.Elapsed, want, phaseNames[k])
				}
				switch {
				case j+1 < len(ph.Trips):
					if gap := ph.Trips[j+1].Start.Sub(a.At); gap != a.Wait {
						v.addf("call %d: %sattempt %d started %v after %sattempt %d ended, the reported wait is %v", i, kind,
							a.Number+1, gap, kind, a.Number, a.Wait)
					}
				case !waitedAfter(c, k, j):
					if a.Wait != 0 || !end.Equal(a.At) {
						v.addf("call %d: last %sattempt %d reported wait %v and the %s returned %v after it", i, kind,
							a.Number, a.Wait, phaseNames[k], end.Sub(a.At))
					}
				case !end.Equal(a.At.Add(a.Wait)):
					v.addf("call %d: the retry after attempt %d and its wait %v was refused, the call returned %v after it",
						i, a.Number, a.Wait, end.Sub(a.At))
				}
			}
		}
	}
	return v.err()
}

// phaseNames name the phases in the time line's violations.
var phaseNames = [2]string{"call", "lookup"}

// timelinePlanted are violations of this invariant, planted in the baseline trace.
var timelinePlanted = []planted{
	{"a next attempt that did not wait the reported wait", "the reported wait is",
		func(tr *Trace) { tr.attempt(callSettled, 1).Wait -= time.Millisecond }},
	{"a wait reported after the last attempt", "last attempt 2 reported wait 1ms",
		func(tr *Trace) { tr.attempt(callSettled, 2).Wait = time.Millisecond }},
	{"a call that returns after its last attempt", "returned 1ms after it",
		func(tr *Trace) { tr.Calls[callRefused].End = tr.Calls[callRefused].End.Add(time.Millisecond) }},
	{"a wrong elapsed time", "reported elapsed", func(tr *Trace) { tr.attempt(callUnknown, 2).Elapsed = 0 }},
}
