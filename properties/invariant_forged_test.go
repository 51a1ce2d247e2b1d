package properties

import "net/http"

// checkForged is invariant 20: a forged delivery has no effect. A delivery the run forged,
// signed with another secret or replayed once its signature was older than the receiver's
// window (300 s), is answered 401 and never reaches Apply. The PSP's own deliveries, signed
// anew at each try with the shared secret, are never refused: not as forged (401), and not
// as malformed or otherwise (any other 4xx but 404, the answer for a key the payer does not
// know). A receiver that cannot read the PSP's own form would leave every payment to polling.
func checkForged(tr Trace) error {
	var v violations
	for _, d := range tr.Deliveries {
		switch {
		case d.Forged != "" && (d.Answer != http.StatusUnauthorized || d.Applies > 0):
			v.addf("a delivery forged (%s) for key %q was answered %d and applied %d times", d.Forged, d.Key, d.Answer,
				d.Applies)
		case d.Forged == "" && d.Answer == http.StatusUnauthorized:
			v.addf("the PSP's delivery %s for key %q was refused as forged", d.ID, d.Key)
		case d.Forged == "" && d.Answer/100 == 4 && d.Answer != http.StatusNotFound:
			v.addf("the PSP's delivery %s for key %q was refused: %d", d.ID, d.Key, d.Answer)
		}
	}
	return v.err()
}

// forgedPlanted are violations of this invariant, planted in the baseline trace.
var forgedPlanted = []planted{
	{"a forged signature accepted", "forged (wrong secret) for key", func(tr *Trace) {
		d := forgedDelivery(tr, forgedSecret)
		d.Answer, d.Applies = http.StatusNoContent, 1
	}},
	{"a late replay applied", "forged (replayed late) for key",
		func(tr *Trace) { forgedDelivery(tr, forgedLate).Applies = 1 }},
	{"a genuine delivery refused", "was refused as forged",
		func(tr *Trace) { deliveryOf(tr, callPending, 1).Answer = http.StatusUnauthorized }},
	{"a genuine delivery refused as malformed", "was refused: 400",
		func(tr *Trace) { deliveryOf(tr, callPending, 1).Answer = http.StatusBadRequest }},
}

// forgedDelivery is the baseline's delivery forged how.
func forgedDelivery(tr *Trace, how string) *Delivery {
	for k := range tr.Deliveries {
		if tr.Deliveries[k].Forged == how {
			return &tr.Deliveries[k]
		}
	}
	panic("the baseline forges no delivery " + how)
}
