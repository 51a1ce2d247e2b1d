package properties

import (
	"errors"
	"fmt"
	"slices"

	"github.com/sony/gobreaker/v2"

	"pixretry/pix"
)

// checkBreakerHonesty is invariant 13, the honest outcome of a payment an open breaker ended:
// its error is a definitive "nothing was paid" only when none of the call's round trips may
// have settled it (maySettle). The converse holds for a Send, whose fresh key has no history at
// the PSP: it is ErrOutcomeUnknown only after such a request. A SendWithKey resumes a key that
// may have settled before, so it may say ErrOutcomeUnknown without a request. Invariant 7
// holds such a call to the ledger; this one holds it to its requests, settled or not.
func checkBreakerHonesty(tr Trace) error {
	var v violations
	for i, c := range tr.Calls {
		if !errors.Is(c.Err, pix.ErrCircuitOpen) {
			continue
		}
		sent := slices.ContainsFunc(c.Trips, maySettle)
		switch unknown := errors.Is(c.Err, pix.ErrOutcomeUnknown); {
		case sent && !unknown:
			v.addf("call %d: the breaker ended it with a definitive %v, after a request that may have settled", i, c.Err)
		case !sent && unknown && c.GivenKey == "":
			v.addf("call %d: the breaker ended it with %v, outcome-unknown, yet no request of it may have settled", i,
				c.Err)
		}
	}
	return v.err()
}

// openAfterSettling ends call i with a definitive ErrCircuitOpen after its round trip n, which
// may have settled, as if the breaker then refused the next attempt.
func openAfterSettling(tr *Trace, i, n int) {
	refusedAfter(tr, i, n)
	tr.Calls[i].Err = fmt.Errorf("%w: %w", pix.ErrCircuitOpen, gobreaker.ErrOpenState)
}

// unknownAfterRefusal ends call i, whose requests could not have settled, with an
// outcome-unknown ErrCircuitOpen after its round trip n.
func unknownAfterRefusal(tr *Trace, i, n int) {
	refusedAfter(tr, i, n)
	tr.Calls[i].Err = &pix.OutcomeUnknownError{Key: tr.Calls[i].Key(), Attempts: n,
		Err: fmt.Errorf("%w: %w", pix.ErrCircuitOpen, gobreaker.ErrTooManyRequests)}
}

// refusedAfter ends call i's questions to the breaker with a refusal after its round trip n,
// and drops the round trips after it.
func refusedAfter(tr *Trace, i, n int) {
	c := &tr.Calls[i]
	c.Trips, c.Tickets = c.Trips[:n], append(c.Tickets[:n], Ticket{Refused: gobreaker.ErrOpenState, TripsBefore: n})
}

// breakerHonestyPlanted are violations of this invariant, planted in the baseline trace.
var breakerHonestyPlanted = []planted{
	{"a definitive ErrCircuitOpen after a 503", checkBreakerHonesty, "definitive",
		func(tr *Trace) { openAfterSettling(tr, callUnknown, 1) }},
	{"an outcome-unknown ErrCircuitOpen after a refusal", checkBreakerHonesty, "yet no request of it may have settled",
		func(tr *Trace) { unknownAfterRefusal(tr, callRefused, 1) }},
}
