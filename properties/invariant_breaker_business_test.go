package properties

import "net/http"

// checkBreakerBusiness is invariant 14: a business refusal never counts as a failure. An
// attempt whose answer was a whole 4xx other than 429 (a refusal, a replayed refusal, a 409)
// tells the breaker a success, so refusals such as insufficient funds never open it.
func checkBreakerBusiness(tr Trace) error {
	var v violations
	for i, c := range tr.Calls {
		for k, tk := range c.Tickets {
			for _, t := range c.admittedTrips(tk) {
				refusal := t.Err == nil && t.BodyErr == nil && t.Status/100 == 4 && t.Status != http.StatusTooManyRequests
				if refusal && tk.Counted != nil {
					v.addf("call %d: attempt %d answered %d, counted by the breaker as the failure %v", i, k+1, t.Status,
						tk.Counted)
				}
			}
		}
	}
	return v.err()
}

// breakerBusinessPlanted are violations of this invariant, planted in the baseline trace.
var breakerBusinessPlanted = []planted{
	{"insufficient funds counted as a failure", "answered 422, counted by the breaker as the failure",
		func(tr *Trace) { tr.ticket(callRefused, 1).Counted = tr.Calls[callRefused].Err }},
}
