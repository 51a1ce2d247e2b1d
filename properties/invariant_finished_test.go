package properties

import (
	"net/http"
	"slices"
	"time"

	"pixretry/psp"
)

// checkFinished is invariant 18: a finished payment never changes. The PSP ends each payment
// once (one end per endToEndId, psp.Config.OnEnd). Its ledger holds exactly the payments it
// ended REALIZADO, each once and at its end: not one at its acceptance, nor one it rejected.
// Every answer that states its payment's status agrees with that payment's end, paired by the
// endToEndId of its body (or by key for a 422 payment_rejected, which names none): it says
// REALIZADO or NAO_REALIZADO only once the payment ended so, by the time it was written, and
// EM_PROCESSAMENTO only if the payment had not ended before the request arrived (a payment
// pending for 0 s is accepted, then ends, at one instant). So once a payment
// has finished, every answer about it says how. On the payer's side, no delivery changes the
// state of a key that was settled or refused.
func checkFinished(tr Trace) error {
	var v violations
	ends := map[string]psp.Ended{}
	for _, e := range tr.Ends {
		if _, twice := ends[e.EndToEndID]; twice {
			v.addf("payment %s ended twice, the second time %s at %v", e.EndToEndID, e.Status, e.At)
		}
		ends[e.EndToEndID] = e
	}
	checkLedgerEnds(&v, tr, ends)
	for _, ex := range tr.Wire {
		checkSays(&v, tr, ex, ends)
	}
	for _, d := range tr.Deliveries {
		if d.Before != statePending && d.changed() {
			v.addf("delivery %s changed the payer's key %q from %s to %s", d.ID, d.Key, d.Before, d.After)
		}
	}
	return v.err()
}

// checkLedgerEnds checks that the ledger holds each payment ended REALIZADO once, at its end,
// and nothing else.
func checkLedgerEnds(v *violations, tr Trace, ends map[string]psp.Ended) {
	held := map[string]int{}
	for _, s := range tr.Ledger {
		held[s.EndToEndID]++
		if e, ok := ends[s.EndToEndID]; !ok || e.Status != statusSettled || !e.At.Equal(s.SettledAt) {
			v.addf("the ledger holds %s at %v, which the PSP did not end REALIZADO then", s.EndToEndID, s.SettledAt)
		}
	}
	for id, e := range ends {
		if e.Status == statusSettled && held[id] != 1 {
			v.addf("payment %s ended REALIZADO, and the ledger holds it %d times", id, held[id])
		}
	}
}

// checkSays checks that the status the answer of ex states, if any, is its payment's by then.
func checkSays(v *violations, tr Trace, ex Exchange, ends map[string]psp.Ended) {
	body, _ := statusBodyOf(ex)
	said, id := statusSaid(ex), body.EndToEndID
	e, ok := ends[id]
	switch {
	case ex.Status == http.StatusUnprocessableEntity && said == statusRejected:
		if !tr.endedBy(ex.Answered, statusRejected, func(e psp.Ended) bool { return e.IdempotencyKey == ex.Key }) {
			v.addf("key %q: a 422 at %v says its payment was rejected; the PSP had not rejected it", ex.Key, ex.Answered)
		}
	case said == "":
	case said == statusPending && ok && e.At.Before(ex.Arrived):
		v.addf("key %q: an answer at %v says %s is pending; it ended %s at %v", ex.Key, ex.Arrived, id, e.Status, e.At)
	case said != statusPending && (!ok || e.Status != said || e.At.After(ex.Answered)):
		v.addf("key %q: an answer at %v says %s is %s; the PSP ended it %q at %v", ex.Key, ex.Answered, id, said,
			e.Status, e.At)
	}
}

// endedLater makes the payment of call i end later than it did, by by, at the PSP and in its
// ledger.
func endedLater(tr *Trace, i int, by time.Duration) {
	end := endOf(tr, i)
	end.At = end.At.Add(by)
	if s := settlementOf(tr, i); s != nil {
		s.SettledAt = s.SettledAt.Add(by)
	}
}

// finishedPlanted are violations of this invariant, planted in the baseline trace.
var finishedPlanted = []planted{
	{"a payment ended twice", "ended twice", func(tr *Trace) { tr.Ends = append(tr.Ends, *endOf(tr, callPending)) }},
	{"a settlement at acceptance", "the ledger holds it 2 times", func(tr *Trace) {
		s := *settlementOf(tr, callPending)
		s.SettledAt = tr.Calls[callPending].End
		tr.Ledger = append(tr.Ledger, s)
	}},
	{"a rejected payment in the ledger", "which the PSP did not end REALIZADO", func(tr *Trace) {
		s := *settlementOf(tr, callPending)
		s.EndToEndID = endOf(tr, callRejected).EndToEndID
		tr.Ledger = append(tr.Ledger, s)
	}},
	{"a payment settled without its settlement", "the ledger holds it 0 times", func(tr *Trace) {
		id := settlementOf(tr, callPending).EndToEndID
		tr.Ledger = slices.DeleteFunc(tr.Ledger, func(s psp.Settlement) bool { return s.EndToEndID == id })
	}},
	{"a settlement said before its end", `is REALIZADO; the PSP ended it "REALIZADO"`,
		func(tr *Trace) { endedLater(tr, callPending, time.Second) }},
	{"pending said after its end", "is pending; it ended", func(tr *Trace) { endedLater(tr, callPending, -2*time.Second) }},
	{"a rejection said that never was", `is NAO_REALIZADO; the PSP ended it "REALIZADO"`,
		func(tr *Trace) { endOf(tr, callRejected).Status = statusSettled }},
	{"a finished key changed at the payer's", "from settled to refused",
		func(tr *Trace) { deliveryOf(tr, callSettled, 2).After = stateRefused }},
}
