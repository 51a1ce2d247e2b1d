package properties

import (
	"errors"
	"slices"
	"time"

	"pixretry/pix"
	"pixretry/psp"
)

// checkSettlements is invariant 3: a payment is settled at most once, across all its keys and
// however long it takes, pending or not. A payment is a chain of calls (Call.Chain): a call,
// the duplicate senders of its payment under its key, and the reconciliations after it, each of
// which resumes or awaits the key before it or, once the PSP proved that key unpaid (a lookup's
// 404, a rejection), pays again under a new one. The ledger holds at most one settlement of the
// payment under the chain's keys; a payment accepted pending is in it once it settles. A call
// that succeeded has exactly one under its key; a call refused for good (refused: a balance too
// low, a key reused, a rejection) has none of its payment under its key, since the PSP stores
// its refusal; a call that ended with ErrNoSettlement has none at all under its key, which the
// PSP closed. In Open Finance the proof is the payment's consent, which expired unconsumed, so
// that no payment can consume it: what stands in is none of its payment under its key, which
// may hold another payment, one that reused the key. No key is settled twice while the PSP
// remembers it, and every settlement in the ledger belongs to a call: one with its key and its
// payment. The ledger is the core's, in every dialect: the key a front end relays is the
// client's.
func checkSettlements(tr Trace) error {
	var v violations
	for _, chain := range tr.chains() {
		if got := tr.paymentSettlements(chain); len(got) > 1 {
			c := tr.Calls[chain[0]]
			v.addf("the payment of call %d (%d cents to %q) settled %d times: %v", chain[0], c.Payment.AmountCents,
				c.Payment.PixKey, len(got), endToEndIDs(got))
		}
	}
	for i, c := range tr.Calls {
		got := settlementsOf(tr.Ledger, tr.Token, c.Key())
		paid := slices.DeleteFunc(slices.Clone(got), func(s psp.Settlement) bool { return !pays(s, c.Payment) })
		switch {
		case c.Err == nil && len(paid) != 1:
			v.addf("call %d succeeded; the ledger holds %d settlements of its payment under its key %q", i, len(paid), c.Key())
		case refused(c.Err) && c.Key() != "" && len(paid) > 0:
			v.addf("call %d was refused (%v), yet the ledger settled it under key %q", i, c.Err, c.Key())
		case errors.Is(c.Err, pix.ErrNoSettlement) && tr.Dialect.LooksUpByID && len(paid) > 0:
			v.addf("call %d ended with ErrNoSettlement, yet the ledger holds %v of its payment under its key %q", i,
				endToEndIDs(paid), c.Key())
		case errors.Is(c.Err, pix.ErrNoSettlement) && !tr.Dialect.LooksUpByID && len(got) > 0:
			v.addf("call %d ended with ErrNoSettlement, yet the ledger holds %v under its key %q", i, endToEndIDs(got),
				c.Key())
		}
	}
	checkLedgerKeys(&v, tr)
	return v.err()
}

// checkLedgerKeys reports a key settled twice within the PSP's KeyTTL, and a settlement that no
// call made.
func checkLedgerKeys(v *violations, tr Trace) {
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
}

// paymentSettlements returns the ledger's settlements of the payment of chain, the calls of
// one payment: those under any of its calls' keys that pay it.
func (tr Trace) paymentSettlements(chain []int) []psp.Settlement {
	p := tr.Calls[chain[0]].Payment
	var out []psp.Settlement
	for _, s := range tr.Ledger {
		if pays(s, p) && slices.ContainsFunc(chain, func(i int) bool { return tr.Calls[i].Key() == s.IdempotencyKey }) &&
			s.Token == tr.Token {
			out = append(out, s)
		}
	}
	return out
}

// refused reports whether err is a business refusal for good: the PSP said no, at once or, for
// a payment it accepted, later (ErrRejected), and keeps saying it under the key. An
// ErrKeyReused from a lookup, which sees only the key's latest settlement, is also outcome
// unknown, and no refusal. ErrInvalidPayment is none either: it binds only the attempt it
// answered. pix refuses an invalid payment before any request (invariant 10), the PSP finds
// none invalid, and a proxy in front of it may answer a 400 that Efí's dialect reads as one;
// the PSP stores nothing then, and the payment may be made under the key later. Invariant 7
// holds such a call to the ledger as it stood.
func refused(err error) bool {
	return (errors.Is(err, pix.ErrInsufficientFunds) || errors.Is(err, pix.ErrKeyReused) ||
		errors.Is(err, pix.ErrRejected)) && !errors.Is(err, pix.ErrOutcomeUnknown)
}

// endToEndIDs lists the endToEndIds of settlements.
func endToEndIDs(settlements []psp.Settlement) []string {
	var ids []string
	for _, s := range settlements {
		ids = append(ids, s.EndToEndID)
	}
	return ids
}

// secondSettlement settles the payment of call i a second time under its key, after its first
// settlement under it.
func secondSettlement(tr *Trace, i int, after time.Duration) {
	c := tr.Calls[i]
	s := tr.Ledger[slices.IndexFunc(tr.Ledger, func(s psp.Settlement) bool {
		return s.IdempotencyKey == c.Key() && pays(s, c.Payment)
	})]
	s.EndToEndID, s.SettledAt = "E12345678202601021001abcdefghijl", s.SettledAt.Add(after)
	tr.Ledger = append(tr.Ledger, s)
}

// settlementsPlanted are violations of this invariant, planted in the baseline trace.
var settlementsPlanted = []planted{
	{"a key settled twice while the PSP remembers it", "settled twice",
		func(tr *Trace) { secondSettlement(tr, callSettled, 100*time.Millisecond) }},
	// pix before issue 27: Resume resent past the key's TTL, and the PSP, which had forgotten the
	// key, paid again.
	{"a resend past the TTL paid again", "the payment of call 8 (2500 cents to \"pix@example.com\") settled 2 times",
		func(tr *Trace) { secondSettlement(tr, callFound, tr.KeyTTL+time.Second) }},
	{"a payment paid under its abandoned key too",
		"the payment of call 5 (700 cents to \"11222333000181\") settled 2 times",
		func(tr *Trace) { settle(tr, callNoSettlement) }},
	{"a settlement under a key proven unpaid", "ended with ErrNoSettlement, yet the ledger holds",
		func(tr *Trace) { settle(tr, callNoSettlement) }},
	{"a settlement no call made", "belongs to no call", func(tr *Trace) { tr.Ledger[0].AmountCents = 15001 }},
	{"a success with no settlement", "call 0 succeeded; the ledger holds 0", func(tr *Trace) { tr.Ledger = nil }},
	{"a refused payment settled", "call 1 was refused", func(tr *Trace) { settle(tr, callRefused) }},
	{"a rejected payment settled", "call 13 was refused", func(tr *Trace) { settle(tr, callAwaitRejected) }},
}
