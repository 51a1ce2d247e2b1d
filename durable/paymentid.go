package durable

import (
	"errors"

	"pixretry/pix"
)

// learnedID returns the PSP's id of the payment that err, an unknown outcome, carries, or "".
func learnedID(err error) string {
	if unknown, ok := errors.AsType[*pix.OutcomeUnknownError](err); ok {
		return unknown.Ref.PaymentID
	}
	return ""
}

// learned is the SQL expression of payment_id once an answer gave the id in the placeholder
// param: that id, or the one stored if the answer gave none. So an id learned once is never
// lost by a later call that did not learn it, even one that read the intent before the id
// was stored.
func learned(param string) string {
	return "COALESCE(NULLIF(" + param + ", ''), payment_id)"
}
