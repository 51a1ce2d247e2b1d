package properties

import (
	"errors"
	"net/http"
	"strings"

	"pixretry/pix"
)

// checkValidation is invariant 10: bad input gets a clear error and loses nothing, for pix's
// local validation agrees with the PSP's contract (validByContract). A payment refused locally
// makes no attempt and is one the contract refuses; a payment the contract accepts is never
// refused locally; and no request pix sends is answered 400 invalid_request.
func checkValidation(tr Trace) error {
	var v violations
	for i, c := range tr.Calls {
		local := errors.Is(c.Err, pix.ErrInvalidPayment) && len(c.Trips) == 0 && len(c.Lookup.Trips) == 0
		switch {
		case errors.Is(c.Err, pix.ErrInvalidPayment) && len(c.Attempts) > 0 && len(c.Trips) == 0:
			v.addf("call %d refused locally (%v), yet reported %d attempts", i, c.Err, len(c.Attempts))
		case local && validByContract(c.Payment):
			v.addf("call %d: payment %+v refused locally (%v), but the contract accepts it", i, c.Payment, c.Err)
		case !local && !validByContract(c.Payment):
			v.addf("call %d: payment %+v breaks the contract, yet pix sent it", i, c.Payment)
		}
	}
	for _, ex := range tr.Wire {
		if ex.Status == http.StatusBadRequest && problemCode(ex.Body) == "invalid_request" {
			v.addf("key %q: the PSP refused request %s as invalid: %s", ex.Key, ex.Request, ex.Body)
		}
	}
	return v.err()
}

// validationPlanted are violations of this invariant, planted in the baseline trace.
var validationPlanted = []planted{
	{"a valid payment refused locally", "but the contract accepts it",
		func(tr *Trace) { tr.Calls[callLocal].Payment.AmountCents = 1 }},
	{"an invalid payment sent", "breaks the contract, yet pix sent it",
		func(tr *Trace) { tr.Calls[callRefused].Payment.PixKey = "Pix@Example.com" }},
	{"a description of 141 characters sent", "breaks the contract, yet pix sent it",
		func(tr *Trace) { tr.Calls[callRefused].Payment.Description = strings.Repeat("ç", 141) }},
	{"a local refusal that reported attempts", "yet reported 1 attempts",
		func(tr *Trace) { tr.Calls[callLocal].Attempts = []Attempt{{Number: 1}} }},
	{"a request the PSP found invalid", "the PSP refused request", func(tr *Trace) {
		tr.answer(callRefused, 1).Status = 400
		tr.answer(callRefused, 1).Body = []byte(`{"status":400,"code":"invalid_request"}`)
	}},
}
