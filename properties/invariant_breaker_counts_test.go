package properties

import (
	"errors"
	"net/http"
)

// checkBreakerCounts is invariant 15: the breaker's counts match the wire. Every attempt the
// breaker admitted gets exactly one done, after at most one round trip. done gets nil exactly
// when the PSP answered that round trip whole with a status below 500 other than 429
// (countsAsSuccess), and the attempt's failure otherwise, an attempt that sent nothing included.
func checkBreakerCounts(tr Trace) error {
	var v violations
	for i, c := range tr.Calls {
		for k, tk := range c.Tickets {
			if tk.Refused != nil {
				continue
			}
			trips := c.admittedTrips(tk)
			switch {
			case tk.Dones != 1:
				v.addf("call %d: attempt %d admitted, done called %d times", i, k+1, tk.Dones)
			case len(trips) > 1:
				v.addf("call %d: attempt %d admitted, %d round trips sent", i, k+1, len(trips))
			case len(trips) == 0 && tk.Counted == nil:
				v.addf("call %d: attempt %d sent nothing, counted as a success", i, k+1)
			case len(trips) == 1 && countsAsSuccess(trips[0]) != (tk.Counted == nil):
				v.addf("call %d: attempt %d got status %d (error %v), counted as %v", i, k+1, trips[0].Status,
					errors.Join(trips[0].Err, trips[0].BodyErr), countedAs(tk.Counted))
			}
		}
	}
	return v.err()
}

// countsAsSuccess is pix.Breaker's rule over the wire: the PSP answered round trip t whole,
// with a status below 500 other than 429.
func countsAsSuccess(t Trip) bool {
	return t.Err == nil && t.BodyErr == nil && t.Status < 500 && t.Status != http.StatusTooManyRequests
}

// countedAs says what done was told.
func countedAs(err error) string {
	if err == nil {
		return "a success"
	}
	return "the failure " + err.Error()
}

// breakerCountsPlanted are violations of this invariant, planted in the baseline trace.
var breakerCountsPlanted = []planted{
	{"an attempt reported twice", "done called 2 times", func(tr *Trace) { tr.ticket(callSettled, 1).Dones = 2 }},
	{"an attempt never reported", "done called 0 times", func(tr *Trace) { tr.ticket(callUnknown, 3).Dones = 0 }},
	{"a 503 counted as a success", "got status 503 (error <nil>), counted as a success",
		func(tr *Trace) { tr.ticket(callUnknown, 1).Counted = nil }},
	{"a timeout counted as a success", "counted as a success",
		func(tr *Trace) { tr.ticket(callSettled, 1).Counted = nil }},
	{"a 201 counted as a failure", "got status 201 (error <nil>), counted as the failure",
		func(tr *Trace) { tr.ticket(callSettled, 2).Counted = errEOF }},
}
