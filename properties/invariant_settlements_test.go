package properties

import (
	"errors"
	"slices"

	"pixretry/pix"
	"pixretry/psp"
)

// checkSettlements is invariant 3: exactly one settlement for a payment that succeeded, none for
// one that was refused, and never two for any key while the PSP remembers it (KeyTTL after the
// first). Every settlement in the ledger belongs to a call: one with its key and its payment.
func checkSettlements(tr Trace) error {
	var v violations
	for i, s := range tr.Ledger {
		for _, earlier := range tr.Ledger[:i] {
			if earlier.Token == s.Token && earlier.IdempotencyKey == s.IdempotencyKey &&
				s.SettledAt.Sub(earlier.SettledAt) < tr.KeyTTL {
				v.addf("key %q settled twice: %s and %s", s.IdempotencyKey, earlier.EndToEndID, s.EndToEndID)
			}
		}
		if !slices.ContainsFunc(tr.Calls, func(c Call) bool { return c.Key() == s.IdempotencyKey && pays(s, c.Payment) }) {
			v.addf("settlement %s (key %q, %d cents to %q) belongs to no call", s.EndToEndID, s.IdempotencyKey, s.AmountCents,
				s.PixKey)
		}
	}
	for i, c := range tr.Calls {
		got := settlementsOf(tr.Ledger, tr.Token, c.Key())
		switch {
		case c.Err == nil && len(got) != 1:
			v.addf("call %d succeeded; the ledger holds %d settlements for its key %q", i, len(got), c.Key())
		case refused(c.Err) && c.Key() != "" && slices.ContainsFunc(got, func(s psp.Settlement) bool {
			return pays(s,
				c.Payment)
		}):
			v.addf("call %d was refused (%v), yet the ledger settled it under key %q", i, c.Err, c.Key())
		}
	}
	return v.err()
}

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

// settlementsPlanted are violations of this invariant, planted in the baseline trace.
var settlementsPlanted = []planted{
	{"a second settlement for the key of a settled call", "settled twice",
		func(tr *Trace) { secondSettlement(tr, callSettled) }},
	{"a settlement no call made", "belongs to no call",
		func(tr *Trace) { tr.Ledger[0].AmountCents = 15001 }},
	{"a success with no settlement", "call 0 succeeded; the ledger holds 0",
		func(tr *Trace) { tr.Ledger = nil }},
	{"a refused payment settled", "call 1 was refused",
		func(tr *Trace) { settle(tr, callRefused) }},
}
