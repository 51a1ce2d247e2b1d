package properties

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"pixretry/pix"
)

// validByContract reports whether p is a payment the PSP's contract accepts, read from the
// contract rather than from pix: an amount from 0.01 to 9,999,999,999.99, a Pix key psp
// accepts, and a description of valid UTF-8 and at most 140 characters.
func validByContract(p pix.Payment) bool {
	return p.AmountCents >= 1 && p.AmountCents <= 999_999_999_999 && validPixKey(p.PixKey) &&
		utf8.ValidString(p.Description) && utf8.RuneCountInString(p.Description) <= 140
}

// checkValidation is the invariant that bad input gets a clear error and loses nothing: pix's
// local validation agrees with the PSP. A payment refused locally makes
// no attempt and is one the contract refuses; a payment the contract accepts is never refused
// locally; and no request pix sends is answered 400 invalid_request.
func checkValidation(tr Trace) error {
	var v violations
	for i, c := range tr.Calls {
		local := errors.Is(c.Err, pix.ErrInvalidPayment) && len(c.Trips) == 0 && len(c.Lookup.Trips) == 0
		switch {
		case errors.Is(c.Err, pix.ErrInvalidPayment) && len(c.Attempts) > 0 && len(c.Trips) == 0:
			v.addf("call %d refused locally (%v), yet logged %d attempts", i, c.Err, len(c.Attempts))
		case local && validByContract(c.Payment):
			v.addf("call %d: payment %+v refused locally (%v), but the contract accepts it", i, c.Payment, c.Err)
		case !local && !validByContract(c.Payment):
			v.addf("call %d: payment %+v breaks the contract, yet pix sent it", i, c.Payment)
		}
	}
	for _, ex := range tr.Wire {
		var p struct{ Code string }
		if ex.Status == http.StatusBadRequest && json.Unmarshal(ex.Body, &p) == nil && p.Code == codeInvalidRequest {
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
	{"a local refusal that logged attempts", "yet logged 1 attempts",
		func(tr *Trace) { tr.Calls[callLocal].Attempts = []Attempt{{Number: 1}} }},
	{"a request the PSP found invalid", "the PSP refused request", func(tr *Trace) {
		tr.answer(callRefused, 1).Status = 400
		tr.answer(callRefused, 1).Body = []byte(`{"status":400,"code":"invalid_request"}`)
	}},
}
