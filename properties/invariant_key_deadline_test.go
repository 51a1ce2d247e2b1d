package properties

import "time"

// checkKeyDeadline is invariant 5e: a call keeps its key deadline (Trace.keyDeadline). No
// payment attempt starts unless it would end before it, by its AttemptTimeout (fitsBefore), and
// with no AttemptTimeout each ends by it: no attempt under the key can still be in flight once
// the PSP may have forgotten the key.
func checkKeyDeadline(tr Trace) error {
	var v violations
	for i, c := range tr.Calls {
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
	return v.err()
}

// keyDeadlinePlanted are violations of this invariant, planted in the baseline trace.
var keyDeadlinePlanted = []planted{
	{"an attempt that would end past the key deadline", "attempt 3 started 200ms before the key deadline",
		func(tr *Trace) { tr.ClientKeyTTL = 1500 * time.Millisecond }},
	{"an attempt in flight at the key deadline", "attempt 1 ended 140ms after the key deadline",
		func(tr *Trace) { tr.AttemptTimeout, tr.ClientKeyTTL = 0, 400*time.Millisecond }},
}
