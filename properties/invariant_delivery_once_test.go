package properties

import (
	"net/http"

	"pixretry/psp"
)

// checkDeliveryOnce is invariant 19: each delivery has its effect once. The PSP sends each end
// of a payment under one delivery id, however often it tries it or duplicates it, so that a
// receiver can tell a copy from another end. The payer's state of a key changes at most once,
// by one delivery: a delivery id, and a payment's end, are applied once. The change is the end
// the PSP reported for that payment, paired by endToEndId. The receiver answers 2xx only once
// the end is stored: Apply ran, did not fail, and left the key settled or refused. An Apply
// that failed is answered 503, so that the PSP delivers again. Forged deliveries are invariant
// 20's.
func checkDeliveryOnce(tr Trace) error {
	var v violations
	ends := map[string]psp.Ended{}
	for _, e := range tr.Ends {
		ends[e.EndToEndID] = e
	}
	ids, changedBy := map[string]string{}, map[string]string{} // endToEndId → delivery id; key → delivery id
	for _, d := range tr.Deliveries {
		if d.Forged != "" {
			continue
		}
		if id, ok := ids[d.EndToEndID]; ok && id != d.ID {
			v.addf("the end of %s was delivered as %s and as %s", d.EndToEndID, id, d.ID)
		}
		ids[d.EndToEndID] = d.ID
		if d.changed() {
			if by, ok := changedBy[d.Key]; ok {
				v.addf("key %q was changed by delivery %s, then by %s", d.Key, by, d.ID)
			}
			changedBy[d.Key] = d.ID
			if e := ends[d.EndToEndID]; d.After != payerState(e.Status) {
				v.addf("delivery %s made key %q %s; the PSP ended its payment %q", d.ID, d.Key, d.After, e.Status)
			}
		}
		switch stored := d.Applies > 0 && !d.Failed && (d.After == stateSettled || d.After == stateRefused); {
		case d.Answer/100 == 2 && !stored:
			v.addf("delivery %s was answered %d, yet the payer's key %q is %q (applied %d times, failed=%v)", d.ID,
				d.Answer, d.Key, d.After, d.Applies, d.Failed)
		case d.Failed && d.Answer != http.StatusServiceUnavailable:
			v.addf("delivery %s failed to apply, yet was answered %d", d.ID, d.Answer)
		}
	}
	return v.err()
}

// deliveryOncePlanted are violations of this invariant, planted in the baseline trace.
var deliveryOncePlanted = []planted{
	{"a duplicate delivered under another id", "was delivered as",
		func(tr *Trace) { deliveryOf(tr, callSettled, 2).ID = "wh_anotheridforthesameend" }},
	{"a key changed twice", "then by", func(tr *Trace) {
		d := deliveryOf(tr, callSettled, 2)
		d.Before = statePending
	}},
	{"an end applied as another", "the PSP ended its payment \"NAO_REALIZADO\"",
		func(tr *Trace) { deliveryOf(tr, callRejected, 1).After = stateSettled }},
	{"an acknowledgement of a failed Apply", "was answered 204, yet the payer's key",
		func(tr *Trace) { deliveryOf(tr, callLost, 1).Answer = http.StatusNoContent }},
	{"an acknowledgement without Apply", "was answered 204, yet the payer's key", func(tr *Trace) {
		d := deliveryOf(tr, callPending, 1)
		d.Applies, d.Before, d.After = 0, "", ""
	}},
	{"a failed Apply answered otherwise", "failed to apply, yet was answered 404",
		func(tr *Trace) { deliveryOf(tr, callLost, 1).Answer = http.StatusNotFound }},
}
