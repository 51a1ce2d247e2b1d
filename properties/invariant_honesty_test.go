package properties

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"time"

	"github.com/sony/gobreaker/v2"

	"pixretry/pix"
	"pixretry/psp"
)

// checkHonesty is invariant 7, the client's promise: an error that is not ErrOutcomeUnknown
// means the PSP holds no settlement for this key and this payment; a success means the ledger
// holds exactly the receipt's settlement (endToEndId, amount, Pix key, time), and the receipt
// describes the payment and the answer that made it, a 201 that keeps the contract (Replayed as
// the wire said), or a lookup's 200 with the payment's receipt (Replayed). The closing record of
// the phase that ended the call agrees: its outcome_unknown with the error, its endToEndId and
// replayed with the receipt. In a dialect, the answer is read as its contract says (said):
// Efí tells a replay by its 201 REALIZADO rather than a header, and times carry milliseconds;
// Open Finance tells no replay, its times carry seconds, and its endToEndId is the client's
// own, not the ledger's, so that the settlement is the receipt's by key alone.
//
// The converse holds for a Send, whose fresh key has no history at the PSP: it ends in
// ErrOutcomeUnknown only when one of its requests may have settled, or when the key deadline
// stopped it (pix then always leaves the outcome to Resume).
//
// A duplicate sender may settle the same payment under the same key after a call has failed,
// which breaks no promise of that call. So a failed call is held to the settlements that
// existed before its last request left, and to every settlement of its payment under its key
// when no other call sent that payment under that key.
func checkHonesty(tr Trace) error {
	var v violations
	for i, c := range tr.Calls {
		got := slices.DeleteFunc(settlementsOf(tr.Ledger, tr.Token, c.Key()), func(s psp.Settlement) bool {
			return !pays(s, c.Payment)
		})
		unknown := errors.Is(c.Err, pix.ErrOutcomeUnknown)
		if sum := c.final().Summary; sum != nil && c.Err != nil && sum.OutcomeUnknown != unknown {
			v.addf("call %d: closing record says outcome_unknown=%v, the error %v says %v", i, sum.OutcomeUnknown, c.Err,
				unknown)
		}
		switch {
		case c.Err == nil:
			checkReceipt(&v, tr, i, c, got)
			checkAccepted(&v, tr, i, c)
		case !unknown && c.Key() != "":
			for _, s := range got {
				if soleSender(tr, i) || s.SettledAt.Before(lastRequest(c)) {
					v.addf("call %d failed with %v, not outcome-unknown, but the PSP settled it under key %q (%s)", i, c.Err,
						c.Key(), s.EndToEndID)
				}
			}
		case unknown && c.GivenKey == "" && !slices.ContainsFunc(c.Trips, tr.maySettle(c)) &&
			!errors.Is(c.Err, pix.ErrKeyExpired):
			v.addf("call %d failed with %v, outcome-unknown, yet none of its requests could have settled it", i, c.Err)
		}
	}
	return v.err()
}

// soleSender reports whether no call but call i sent its payment under its key.
func soleSender(tr Trace, i int) bool {
	c := tr.Calls[i]
	for j, o := range tr.Calls {
		if j != i && o.Key() == c.Key() && o.Payment == c.Payment && len(o.Trips) > 0 {
			return false
		}
	}
	return true
}

// lastRequest is when call c's last round trip began, a lookup's included, or its end if it
// made none.
func lastRequest(c Call) time.Time {
	if t, ok := lastOf(c.final().Trips); ok {
		return t.Start
	}
	if t, ok := lastOf(c.Trips); ok {
		return t.Start
	}
	return c.End
}

// checkReceipt checks the receipt of successful call i against got, the settlements of its
// payment under its key.
func checkReceipt(v *violations, tr Trace, i int, c Call, got []psp.Settlement) {
	r := c.Receipt
	if len(got) != 1 {
		return // invariant 3 reports it
	}
	s := got[0]
	if !tr.describes(r, s) {
		v.addf("call %d: receipt %+v, but the ledger holds %+v", i, r, s)
	}
	if r.Status != "REALIZADO" {
		v.addf("call %d: receipt %+v for payment %+v", i, r, c.Payment)
	}
	t, ok := lastOf(c.final().Trips)
	told, _ := tr.saidTo(t, c.Payment)
	if replayed := t.Replayed || told.Replayed || c.lookedUp(); ok && r.Replayed != replayed {
		v.addf("call %d: Receipt.Replayed = %v, the answer (Idempotent-Replayed %v, a replay by its body %v, a lookup %v) "+
			"says %v", i, r.Replayed, t.Replayed, told.Replayed, c.lookedUp(), replayed)
	}
	sum := c.final().Summary
	if sum != nil && (sum.EndToEndID != r.EndToEndID || !c.lookedUp() && sum.Replayed != r.Replayed) {
		v.addf("call %d: closing record says end_to_end_id %q, replayed=%v; the receipt %q, %v", i,
			sum.EndToEndID, sum.Replayed, r.EndToEndID, r.Replayed)
	}
}

// checkAccepted reports successful call i if the answer it accepted, as the PSP wrote it for
// the call's last round trip, is not a settlement of the call's payment that keeps the
// contract (said.Receipt): a 201, or a lookup's 200.
func checkAccepted(v *violations, tr Trace, i int, c Call) {
	t, ok := lastOf(c.final().Trips)
	if !ok {
		return
	}
	ex, ok := tr.exchangeOf(t)
	if !ok {
		return // invariant 1 reports an answer to no request the PSP received
	}
	if !tr.Dialect.Says(ex, c.Payment).Receipt {
		v.addf("call %d accepted a %d that breaks the contract: %q", i, ex.Status, ex.Body)
	}
}

// unknownAfterRefusal ends call i, whose requests could not have settled, with an
// outcome-unknown ErrCircuitOpen after its round trip n.
func unknownAfterRefusal(tr *Trace, i, n int) {
	refusedAfter(tr, i, n)
	tr.Calls[i].Err = &pix.OutcomeUnknownError{Key: tr.Calls[i].Key(), Attempts: n,
		Err: fmt.Errorf("%w: %w", pix.ErrCircuitOpen, gobreaker.ErrTooManyRequests)}
}

// honestyPlanted are violations of this invariant, planted in the baseline trace.
var honestyPlanted = []planted{
	{"a success on a 201 that breaks the contract", "accepted a 201 that breaks the contract",
		func(tr *Trace) { rewriteAnswer(tr, callSettled, 2, "150.00", "150.01") }},
	{"a plain error for a settled payment", "not outcome-unknown, but the PSP settled it",
		func(tr *Trace) {
			tr.Calls[callUnknown].Err = &pix.Error{Status: 503, Code: "injected_fault"}
			settle(tr, callUnknown)
		}},
	{"outcome unknown after requests that could not have settled", "yet none of its requests could have settled it",
		func(tr *Trace) {
			refusedDial := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}
			lostConnection(tr, callUnknown, 1, refusedDial)
			tr.trip(callUnknown, 2).Err, tr.trip(callUnknown, 2).Status = nil, 400
			tr.trip(callUnknown, 3).Status = 422
		}},
	{"an outcome-unknown ErrCircuitOpen after a refusal", "yet none of its requests could have settled it",
		func(tr *Trace) { unknownAfterRefusal(tr, callRefused, 1) }},
	{"a closing record that contradicts the error", "outcome_unknown=false",
		func(tr *Trace) { tr.Calls[callUnknown].Summary.OutcomeUnknown = false }},
	{"a receipt with another endToEndId", "but the ledger holds",
		func(tr *Trace) { tr.Calls[callSettled].Receipt.EndToEndID = "E12345678202601021000abcdefghijz" }},
	{"a receipt with another settlement time", "but the ledger holds",
		func(tr *Trace) {
			r := &tr.Calls[callSettled].Receipt
			r.SettledAt = r.SettledAt.Add(time.Second)
		}},
	{"a receipt not REALIZADO", "for payment", func(tr *Trace) { tr.Calls[callSettled].Receipt.Status = "PENDENTE" }},
	{"a receipt that hides the replay", "Receipt.Replayed = false",
		func(tr *Trace) { tr.Calls[callSettled].Receipt.Replayed = false }},
	{"a found receipt not marked replayed", "Receipt.Replayed = false",
		func(tr *Trace) { tr.Calls[callFound].Receipt.Replayed = false }},
	{"a found receipt on a 200 that breaks the contract", "accepted a 200 that breaks the contract",
		func(tr *Trace) {
			ex := tr.exchange(tr.lookupTrip(callFound, 1).Number)
			ex.Body = withBody(ex.Body, "25.00", "25.01")
		}},
	{"a closing record with another endToEndId", "closing record says end_to_end_id",
		func(tr *Trace) { tr.Calls[callSettled].Summary.EndToEndID = "E12345678202601021000abcdefghijz" }},
	{"a closing record that hides the replay", "replayed=false",
		func(tr *Trace) { tr.Calls[callSettled].Summary.Replayed = false }},
}
