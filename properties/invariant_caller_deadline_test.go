package properties

import "time"

// checkCallerDeadline is invariant 5d: a call keeps its caller's deadline. No attempt, a lookup
// included, starts at or after it, and the call does not return after it.
func checkCallerDeadline(tr Trace) error {
	var v violations
	for i, c := range tr.Calls {
		if c.Deadline.IsZero() {
			continue
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
	return v.err()
}

// callerDeadlinePlanted are violations of this invariant, planted in the baseline trace.
var callerDeadlinePlanted = []planted{
	{"an attempt at the caller's deadline", "attempt 2 started 0s after the caller's deadline",
		func(tr *Trace) { tr.Calls[callDeadline].Deadline = tr.trip(callDeadline, 2).Start }},
	{"a call that outlives its caller's deadline", "outlived its caller's deadline by 1ms",
		func(tr *Trace) {
			c := &tr.Calls[callRefused]
			c.Deadline = c.End.Add(-time.Millisecond)
			c.Trips[0].Start = c.Deadline.Add(-time.Millisecond)
		}},
}
