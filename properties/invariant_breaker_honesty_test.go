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
// have settled it (maySettle). Invariant 7 holds such a call to the ledger; this one holds it
// to its requests, settled or not. The converse, that a Send is ErrOutcomeUnknown only after a
// request that may have settled, is invariant 7's for every call.
func checkBreakerHonesty(tr Trace) error {
	var v violations
	for i, c := range tr.Calls {
		if errors.Is(c.Err, pix.ErrCircuitOpen) && !errors.Is(c.Err, pix.ErrOutcomeUnknown) &&
			slices.ContainsFunc(c.Trips, tr.maySettle(c)) {
			v.addf("call %d: the breaker ended it with a definitive %v, after a request that may have settled", i, c.Err)
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

// breakerHonestyPlanted are violations of this invariant, planted in the baseline trace.
var breakerHonestyPlanted = []planted{
	{"a definitive ErrCircuitOpen after a 503", "definitive",
		func(tr *Trace) { openAfterSettling(tr, callUnknown, 1) }},
}
