package properties

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"pixretry/pix"
	"pixretry/psp"
)

// checkKeyAbandoned is invariant 16: a key is abandoned only on proof. A call ends with
// ErrNoSettlement only when its last round trip was a lookup of its key that the PSP answered
// 404 payment_not_found, paired by trip number: not a 409 while a request is in flight, not a
// 404 with another code, not an answer the call never read. A payment is paid under a new key
// only after such a proof for the key it used before, or an answer read whole that the PSP
// rejected the payment under it (ErrRejected), given before the new key's first request.
// A Resume's receipt is the ledger's settlement of its payment under its key. A lookup that
// found the settlement of another payment ends in ErrKeyReused, outcome unknown, never in a
// receipt.
//
// The proof is the dialect's (said.NoSettlement): Efí's 404 PixEnviadoNaoEncontrado, which
// closed the idEnvio at the core. Open Finance has no lookup by key, so nothing is closed by a
// lookup: what stands in is a lookup of the payment's consent that the PSP answered REJECTED,
// signed. A consent expires unconsumed 60 minutes after its authorisation, and reads
// AUTHORISED while a payment under it is relayed, so REJECTED proves that no payment consumed
// it, nor ever will. Efí's 422 pagamento_negado is a rejection too, as its pix.Dialect reads
// it: nothing was paid under the idEnvio, and nothing will be.
func checkKeyAbandoned(tr Trace) error {
	var v violations
	for i, c := range tr.Calls {
		if why := tr.notFoundProof(c); errors.Is(c.Err, pix.ErrNoSettlement) && why != "" {
			v.addf("call %d ended with ErrNoSettlement for key %q after %s", i, c.Key(), why)
		}
		if c.Resumed != nil {
			checkFound(&v, tr, i, c)
		}
	}
	for _, chain := range tr.chains() {
		checkNewKeys(&v, tr, chain)
	}
	return v.err()
}

// notFoundProof returns "" if call c's last round trip is a lookup of its key that the PSP
// answered with proof that nothing was paid under it (said.NoSettlement) and the call read
// whole. Otherwise it says what that round trip was.
func (tr Trace) notFoundProof(c Call) string {
	t, ok := lastOf(c.Lookup.Trips)
	if !ok {
		return "no lookup"
	}
	ex, ok := tr.exchangeOf(t)
	s := tr.Dialect.Says(ex, c.Payment)
	switch {
	case !ok || !lookup(ex) || tr.lookupKey(ex.Method, ex.Key) != c.Key():
		return fmt.Sprintf("round trip %d, which looked up no key %q at the PSP", t.Number, c.Key())
	case !s.NoSettlement:
		return fmt.Sprintf("a lookup answered %d %q", ex.Status, s.Code)
	case t.Err != nil || t.BodyErr != nil || t.Status != ex.Status:
		return fmt.Sprintf("a lookup answered %d, proof that nothing was paid, which reached the call as %d (%v)",
			ex.Status, t.Status, errors.Join(t.Err, t.BodyErr))
	}
	return ""
}

// checkNewKeys checks that chain, the calls of one payment, pays under a new key only once the
// key it paid under before was proven unpaid, before the new key's first payment request.
func checkNewKeys(v *violations, tr Trace, chain []int) {
	sends := tr.firstSends(chain)
	for k := 1; k < len(sends); k++ {
		prev, next := sends[k-1], sends[k]
		if !slices.ContainsFunc(chain, func(j int) bool {
			o := tr.Calls[j]
			return o.Key() == prev.key && tr.provenUnpaid(o) && !o.End.After(next.at)
		}) {
			v.addf("call %d paid under key %q, though the PSP had not proven its payment's key %q unpaid", next.call,
				next.key, prev.key)
		}
	}
}

// provenUnpaid reports whether call c proved its key unpaid: ErrNoSettlement after a lookup's
// 404 payment_not_found, or ErrRejected after an answer that the payment was rejected, each
// read whole.
func (tr Trace) provenUnpaid(c Call) bool {
	if errors.Is(c.Err, pix.ErrNoSettlement) {
		return tr.notFoundProof(c) == ""
	}
	t, _ := lastOf(c.final().Trips)
	ex, _ := tr.exchangeOf(t)
	return errors.Is(c.Err, pix.ErrRejected) && tr.lookupKey(ex.Method, ex.Key) == c.Key() &&
		tr.lastHeard(c) == statusRejected
}

// send is the first payment request under a key: its call and its start.
type send struct {
	key  string
	call int
	at   time.Time
}

// firstSends are the first payment requests under each key of the calls of chain, in order.
func (tr Trace) firstSends(chain []int) []send {
	var sends []send
	for _, i := range chain {
		c := tr.Calls[i]
		if len(c.Trips) == 0 {
			continue
		}
		s := send{c.Key(), i, c.Trips[0].Start}
		switch k := slices.IndexFunc(sends, func(o send) bool { return o.key == s.key }); {
		case k < 0:
			sends = append(sends, s)
		case s.at.Before(sends[k].at):
			sends[k] = s
		}
	}
	slices.SortFunc(sends, func(a, b send) int { return a.at.Compare(b.at) })
	return sends
}

// checkFound checks Resume call i: its receipt is the ledger's settlement of its payment under
// its key, and a lookup that found another payment's settlement ended in ErrKeyReused.
func checkFound(v *violations, tr Trace, i int, c Call) {
	settled := slices.ContainsFunc(settlementsOf(tr.Ledger, tr.Token, c.Key()), func(s psp.Settlement) bool {
		return pays(s, c.Payment) && tr.describes(c.Receipt, s)
	})
	if c.Err == nil && !settled {
		v.addf("call %d: Resume's receipt %s is not the ledger's settlement of its payment under key %q", i,
			c.Receipt.EndToEndID, c.Key())
	}
	t, ok := lastOf(c.Lookup.Trips)
	if !ok || t.Status != http.StatusOK {
		return
	}
	if s, whole := tr.saidTo(t, c.Payment); whole && s.Foreign &&
		(!errors.Is(c.Err, pix.ErrKeyReused) || !errors.Is(c.Err, pix.ErrOutcomeUnknown)) {
		ex, _ := tr.exchangeOf(t)
		v.addf("call %d: its lookup found another payment, %s, yet Resume returned %v", i, ex.Body, c.Err)
	}
}

// lookupAnswered makes the last lookup of call i answered status with problem code, on the wire
// and as the call read it.
func lookupAnswered(tr *Trace, i, status int, code string) {
	t := tr.lookupTrip(i, len(tr.Calls[i].Lookup.Trips))
	t.Status = status
	ex := tr.exchange(t.Number)
	ex.Status, ex.Body = status, []byte(fmt.Sprintf(`{"status":%d,"code":%q}`, status, code))
}

// foreignReceipt makes the lookup of Resume call i find the settlement of call j, another
// payment, and Resume return it as i's receipt.
func foreignReceipt(tr *Trace, i, j int) {
	c := &tr.Calls[i]
	tr.exchange(tr.lookupTrip(i, len(c.Lookup.Trips)).Number).Body = tr.answer(j, len(tr.Calls[j].Trips)).Body
	r := tr.Calls[j].Receipt
	r.IdempotencyKey, r.Attempts = c.Key(), c.Receipt.Attempts
	c.Receipt = r
}

// keyAbandonedPlanted are violations of this invariant, planted in the baseline trace.
var keyAbandonedPlanted = []planted{
	{"a lookup's 409 taken as no settlement", `after a lookup answered 409 "idempotency_key_in_use"`,
		func(tr *Trace) {
			lookupAnswered(tr, callNoSettlement, http.StatusConflict, "idempotency_key_in_use")
		}},
	{"any 404 taken as no settlement", `after a lookup answered 404 "not_found"`,
		func(tr *Trace) { lookupAnswered(tr, callNoSettlement, http.StatusNotFound, "not_found") }},
	{"a receipt found for another payment accepted", "is not the ledger's settlement of its payment",
		func(tr *Trace) { foreignReceipt(tr, callFound, callSettled) }},
	{"another payment's settlement found, and not reported", "found another payment",
		func(tr *Trace) {
			foreignReceipt(tr, callFound, callSettled)
			tr.Calls[callFound].Err = &pix.OutcomeUnknownError{Key: tr.Calls[callFound].Key(), Err: pix.ErrContract}
		}},
	{"ErrNoSettlement with no lookup", "after no lookup", func(tr *Trace) {
		tr.Calls[callUnknown].Err = fmt.Errorf("%w: %w", pix.ErrNoSettlement, &pix.Error{Status: 404})
	}},
	{"a new key before the old one was proven unpaid", "though the PSP had not proven",
		func(tr *Trace) { tr.Calls[callNoSettlement].End = tr.trip(callRepaid, 1).Start.Add(1) }},
	{"a new key while the old one was pending", "call 14 paid under key",
		func(tr *Trace) { gaveUpPending(tr, callAwaitRejected, 2) }},
}
