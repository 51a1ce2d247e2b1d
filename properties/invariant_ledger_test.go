package properties

import (
	"errors"
	"net"
	"net/http"
	"slices"
	"time"

	"pixretry/pix"
	"pixretry/psp"
)

// settlementsOf returns the ledger's settlements under key for token, in ledger order.
func settlementsOf(ledger []psp.Settlement, token, key string) []psp.Settlement {
	var out []psp.Settlement
	for _, s := range ledger {
		if s.Token == token && s.IdempotencyKey == key {
			out = append(out, s)
		}
	}
	return out
}

// pays reports whether s is the settlement of payment p.
func pays(s psp.Settlement, p pix.Payment) bool {
	return s.AmountCents == p.AmountCents && s.PixKey == p.PixKey && s.Description == p.Description
}

// refused reports whether err is a business refusal: the PSP (or local validation) said no.
func refused(err error) bool {
	return errors.Is(err, pix.ErrInsufficientFunds) || errors.Is(err, pix.ErrKeyReused) ||
		errors.Is(err, pix.ErrInvalidPayment)
}

// checkSettlements is invariant 3: exactly one settlement for a payment that succeeded, none for
// one that was refused, and never two for any key while the PSP remembers it (KeyTTL after the
// first). Every settlement in the ledger belongs to a call: one with its key and its payment.
func checkSettlements(tr Trace) error {
	var v violations
	for i, s := range tr.Ledger {
		for _, earlier := range tr.Ledger[:i] {
			if earlier.Token == s.Token && earlier.IdempotencyKey == s.IdempotencyKey && s.SettledAt.Sub(earlier.SettledAt) < tr.KeyTTL {
				v.addf("key %q settled twice: %s and %s", s.IdempotencyKey, earlier.EndToEndID, s.EndToEndID)
			}
		}
		if !slices.ContainsFunc(tr.Calls, func(c Call) bool { return c.Key() == s.IdempotencyKey && pays(s, c.Payment) }) {
			v.addf("settlement %s (key %q, %d cents to %q) belongs to no call", s.EndToEndID, s.IdempotencyKey, s.AmountCents, s.PixKey)
		}
	}
	for i, c := range tr.Calls {
		got := settlementsOf(tr.Ledger, tr.Token, c.Key())
		switch {
		case c.Err == nil && len(got) != 1:
			v.addf("call %d succeeded; the ledger holds %d settlements for its key %q", i, len(got), c.Key())
		case refused(c.Err) && c.Key() != "" && slices.ContainsFunc(got, func(s psp.Settlement) bool { return pays(s, c.Payment) }):
			v.addf("call %d was refused (%v), yet the ledger settled it under key %q", i, c.Err, c.Key())
		}
	}
	return v.err()
}

// checkHonesty is invariant 7, the client's promise: an error that is not ErrOutcomeUnknown
// means the PSP holds no settlement for this key and this payment; a success means the ledger
// holds exactly the receipt's settlement (endToEndId, amount, Pix key, time), and the receipt
// describes the payment and the answer that made it (Replayed as the wire said), a 201 that
// keeps the contract. The closing
// record's outcome_unknown agrees with the error.
//
// The converse holds for a Send, whose fresh key has no history at the PSP: it ends in
// ErrOutcomeUnknown only when one of its requests may have settled.
//
// A duplicate sender may settle the same payment under the same key after a call has failed,
// which breaks no promise of that call. So a failed call is held to the settlements that
// existed before its last request left, and to every settlement of its payment under its key
// when no other call sent that payment under that key.
func checkHonesty(tr Trace) error {
	var v violations
	for i, c := range tr.Calls {
		got := settlementsOf(tr.Ledger, tr.Token, c.Key())
		unknown := errors.Is(c.Err, pix.ErrOutcomeUnknown)
		if c.Summary != nil && c.Err != nil && c.Summary.OutcomeUnknown != unknown {
			v.addf("call %d: closing record says outcome_unknown=%v, the error %v says %v", i, c.Summary.OutcomeUnknown, c.Err, unknown)
		}
		switch {
		case c.Err == nil:
			checkReceipt(&v, i, c, got)
			checkAccepted(&v, tr, i, c)
		case !unknown && c.Key() != "":
			for _, s := range got {
				if pays(s, c.Payment) && (soleSender(tr, i) || s.SettledAt.Before(lastRequest(c))) {
					v.addf("call %d failed with %v, not outcome-unknown, but the PSP settled it under key %q (%s)", i, c.Err, c.Key(), s.EndToEndID)
				}
			}
		case unknown && c.GivenKey == "" && !slices.ContainsFunc(c.Trips, maySettle):
			v.addf("call %d failed with %v, outcome-unknown, yet none of its requests could have settled it", i, c.Err)
		}
	}
	return v.err()
}

// maySettle reports whether round trip t may have left a settlement behind, by pix's contract:
// every one does but a connection that could not be made (the request never left) and a 4xx
// other than 409 and 429 that arrived whole (a refusal before processing, or a stored one).
func maySettle(t Trip) bool {
	if e, ok := errors.AsType[*net.OpError](t.Err); ok && e.Op == "dial" {
		return false
	}
	refusal := t.Status/100 == 4 && t.Status != http.StatusConflict && t.Status != http.StatusTooManyRequests
	return t.Err != nil || t.BodyErr != nil || !refusal
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

// lastRequest is when call c's last round trip began, or its end if it made none.
func lastRequest(c Call) time.Time {
	if t, ok := lastOf(c.Trips); ok {
		return t.Start
	}
	return c.End
}

// checkReceipt checks the receipt of successful call i against the settlements under its key.
func checkReceipt(v *violations, i int, c Call, got []psp.Settlement) {
	r := c.Receipt
	if len(got) != 1 {
		v.addf("call %d succeeded with %s; the ledger holds %d settlements for its key", i, r.EndToEndID, len(got))
		return
	}
	s := got[0]
	if s.EndToEndID != r.EndToEndID || s.AmountCents != r.AmountCents || s.PixKey != r.PixKey || !s.SettledAt.Equal(r.SettledAt) {
		v.addf("call %d: receipt %+v, but the ledger holds %+v", i, r, s)
	}
	if !pays(s, c.Payment) || r.Status != "REALIZADO" {
		v.addf("call %d: receipt %+v for payment %+v", i, r, c.Payment)
	}
	if t, ok := lastOf(c.Trips); ok && r.Replayed != t.Replayed {
		v.addf("call %d: Receipt.Replayed = %v, the answer's Idempotent-Replayed header said %v", i, r.Replayed, t.Replayed)
	}
}

// checkMoney is invariant 9: money is conserved. The final balance is the initial balance less
// the sum of the settlements; every settlement moved a positive amount; and the balance never
// went below zero, replaying the ledger in order.
func checkMoney(tr Trace) error {
	var v violations
	balance := tr.BalanceStart
	for _, s := range tr.Ledger {
		if s.AmountCents <= 0 {
			v.addf("settlement %s moved %d cents", s.EndToEndID, s.AmountCents)
		}
		balance -= s.AmountCents
		if balance < 0 {
			v.addf("settlement %s took the balance to %d cents", s.EndToEndID, balance)
		}
	}
	if balance != tr.BalanceEnd {
		v.addf("balance %d − settlements = %d cents, the PSP reports %d", tr.BalanceStart, balance, tr.BalanceEnd)
	}
	if tr.BalanceEnd < 0 {
		v.addf("final balance %d cents is negative", tr.BalanceEnd)
	}
	return v.err()
}

// checkAccepted reports successful call i if the answer it accepted, as the PSP wrote it on the
// wire, breaks the contract: a success rests on a 201 that keeps it. The answer is one of the
// exchanges under the call's key that arrived when its last round trip began, with the same
// status and Replayed mark; when several fit, one keeping the contract is enough.
func checkAccepted(v *violations, tr Trace, i int, c Call) {
	t, ok := lastOf(c.Trips)
	if !ok {
		return
	}
	var broken []Exchange
	for _, ex := range tr.Wire {
		if ex.Key != t.Key || !ex.Arrived.Equal(t.Start) || ex.Status != t.Status || ex.Replayed != t.Replayed {
			continue
		}
		if keepsContract(ex) {
			return
		}
		broken = append(broken, ex)
	}
	if len(broken) > 0 {
		v.addf("call %d accepted a %d that breaks the contract: %q", i, broken[0].Status, broken[0].Body)
	}
}
