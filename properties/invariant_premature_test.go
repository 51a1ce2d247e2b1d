package properties

import (
	"errors"
	"net/http"
	"slices"
	"time"

	"pixretry/pix"
	"pixretry/psp"
)

// checkPremature is invariant 17: nothing is called settled before REALIZADO, nor refused while
// it may still settle. A call's receipt is a payment that the PSP ended REALIZADO
// (psp.Config.OnEnd), paired by endToEndId (by key in Open Finance, whose endToEndId is the
// client's), by the time the call returned. A call that ended with ErrRejected returned after
// the PSP ended its key's payment NAO_REALIZADO, and is no ErrOutcomeUnknown: nothing was paid,
// nor will be. An ErrPending is always an ErrOutcomeUnknown: the payment may settle yet. And a
// call takes the PSP's word as it was given: when its last round trip brought whole an answer
// that the payment is pending (a 202 EM_PROCESSAMENTO), it ends with ErrPending; that it was
// rejected (a 422 payment_rejected, a lookup's 200 NAO_REALIZADO), with ErrRejected. An answer
// about another payment under the key ends it with ErrKeyReused instead.
//
// Each dialect's answers are read as its contract says (said): Efí's PUT always answers 201
// EM_PROCESSAMENTO first, even for a payment the core settled at once, so that its call ends
// pending; Open Finance's pending statuses (ACCP) and a consent still AUTHORISED are pending
// too. Efí's 422 pagamento_negado also refuses a payment the core refused at once (a balance
// too low, a key a lookup closed): what stands in for the end NAO_REALIZADO is then the core's
// refusal of that very request (refusedAtCore).
func checkPremature(tr Trace) error {
	var v violations
	for i, c := range tr.Calls {
		pending, rejected := errors.Is(c.Err, pix.ErrPending), errors.Is(c.Err, pix.ErrRejected)
		switch unknown := errors.Is(c.Err, pix.ErrOutcomeUnknown); {
		case c.Err == nil && !tr.endedBy(c.End, statusSettled, func(e psp.Ended) bool {
			return e.EndToEndID == c.Receipt.EndToEndID
		}):
			v.addf("call %d returned the receipt of %q before the PSP settled it", i, c.Receipt.EndToEndID)
		case rejected && (unknown || !tr.endedBy(c.End, statusRejected, func(e psp.Ended) bool {
			return e.IdempotencyKey == c.Key()
		}) && !(tr.lastHeard(c) == statusRejected && tr.refusedAtCore(c))):
			v.addf("call %d returned %v while its payment under key %q might still settle", i, c.Err, c.Key())
		case pending && !unknown:
			v.addf("call %d returned %v, pending but not outcome-unknown", i, c.Err)
		}
		said := tr.lastHeard(c)
		if (said == statusPending && !pending || said == statusRejected && !rejected) && !errors.Is(c.Err, pix.ErrKeyReused) {
			v.addf("call %d heard its payment was %s, yet returned %v", i, said, c.Err)
		}
	}
	return v.err()
}

// refusedAtCore reports whether the core refused the request of call c's last round trip for
// good: a 422 insufficient_funds, or idempotency_key_closed for a key a lookup closed. Nothing
// was paid under the key, and nothing will be.
func (tr Trace) refusedAtCore(c Call) bool {
	t, _ := lastOf(c.final().Trips)
	for _, ex := range tr.Wire {
		if ex.Trip == t.Number && ex.Status == http.StatusUnprocessableEntity {
			code := problemCode(ex.Body)
			return code == "insufficient_funds" || code == "idempotency_key_closed"
		}
	}
	return false
}

// endedBy reports whether the PSP ended a payment that is chosen with status, at or before at.
func (tr Trace) endedBy(at time.Time, status string, chosen func(psp.Ended) bool) bool {
	return slices.ContainsFunc(tr.Ends, func(e psp.Ended) bool {
		return chosen(e) && e.Token == tr.Token && e.Status == status && !e.At.After(at)
	})
}

// prematurePlanted are violations of this invariant, planted in the baseline trace.
var prematurePlanted = []planted{
	{"a receipt before the payment settled", "call 11 returned the receipt of",
		func(tr *Trace) { tr.Calls[callAwaited].End = tr.Calls[callPending].End }},
	{"a receipt of a payment never settled", "call 11 returned the receipt of",
		func(tr *Trace) { tr.Calls[callAwaited].Receipt.EndToEndID = "E12345678202601021000abcdefghijz" }},
	{"a rejection before the payment was rejected", "call 13 returned",
		func(tr *Trace) { tr.Calls[callAwaitRejected].End = tr.Calls[callRejected].End }},
	{"a rejection that is also outcome-unknown", "might still settle", func(tr *Trace) {
		c := &tr.Calls[callAwaitRejected]
		c.Err = &pix.OutcomeUnknownError{Key: c.Key(), Err: c.Err}
	}},
	{"a pending payment not outcome-unknown", "pending but not outcome-unknown",
		func(tr *Trace) { tr.Calls[callPending].Err = tr.unknownErr(callPending).Err }},
	{"a 202 pending taken as a contract breach", "call 10 heard its payment was EM_PROCESSAMENTO", func(tr *Trace) {
		tr.unknownErr(callPending).Err = &pix.Error{Status: 202}
	}},
	{"a lookup's 200 NAO_REALIZADO taken as unknown", "call 13 heard its payment was NAO_REALIZADO", func(tr *Trace) {
		c := &tr.Calls[callAwaitRejected]
		c.Err = &pix.OutcomeUnknownError{Key: c.Key(), Err: pix.ErrContract}
	}},
}
