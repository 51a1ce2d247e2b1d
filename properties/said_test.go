package properties

import (
	"encoding/json"
	"net/http"

	"pixretry/pix"
	"pixretry/psp"
)

// said is what one answer told the client, read as its dialect's contract says rather than as
// pix reads it. Each dialect has its reader (dialect.says); the double's own API's is
// nativeSays. A field the answer does not give is zero.
type said struct {
	// State is the status of its payment that the answer states, in the double's words:
	// REALIZADO, EM_PROCESSAMENTO or NAO_REALIZADO (statusSaid), or "" when it states none.
	// An answer that nothing was paid under the key and nothing will be, after the PSP
	// accepted or refused the payment, says NAO_REALIZADO.
	State string
	// Receipt says that the answer is a settlement of the call's payment that keeps the
	// contract: the answer a call may return a receipt for.
	Receipt bool
	// Foreign says that the answer is a lookup's, keeping the contract, that found another
	// payment than the call's under its key.
	Foreign bool
	// Code and Detail are an error's, as the answer gives them: what a *pix.Error must carry.
	Code, Detail string
	// NoSettlement says that the answer proves that nothing was paid under the key, nor ever
	// will be: a lookup's 404 that closed the key, or, in Open Finance, a consent REJECTED.
	NoSettlement bool
	// Consumed says that the answer is an Open Finance consent CONSUMED: a payment consumed
	// it, and the answer does not say which. The outcome stays unknown.
	Consumed bool
	// Unsigned says that the answer is an Open Finance 422 that the PSP's keys do not
	// verify: anyone in between may have written it, so it proves nothing.
	Unsigned bool
	// Replayed says that the answer tells a replay apart by its body: Efí's 201 REALIZADO.
	// The double's own API tells it by a header, which Trip.Replayed holds.
	Replayed bool
	// ID is the PSP's id of the payment the answer names: its endToEndId, or Open Finance's
	// paymentId. It is "" when the answer names none.
	ID string
}

// nativeSays reads ex, an answer of the double's own API, for payment p, with the oracles of
// oracle_test.go.
func nativeSays(ex Exchange, p pix.Payment) said {
	s := said{State: statusSaid(ex)}
	var body struct{ Code, Detail, EndToEndID string }
	if json.Unmarshal(ex.Body, &body) == nil {
		s.Code, s.Detail, s.ID = body.Code, body.Detail, body.EndToEndID
	}
	success := http.StatusCreated
	if lookup(ex) {
		success, ex.Request = http.StatusOK, paymentRequest(p)
	}
	s.Receipt = ex.Status == success && keepsContract(ex) && (!lookup(ex) || receiptOf(ex.Body, p))
	s.Foreign = lookup(ex) && ex.Status == http.StatusOK && !receiptOf(ex.Body, p) && validReceipt(ex.Body)
	s.NoSettlement = lookup(ex) && ex.Status == http.StatusNotFound && s.Code == "payment_not_found"
	return s
}

// validReceipt reports whether body is a receipt that keeps the contract, of any payment the
// contract accepts.
func validReceipt(body []byte) bool {
	var r receiptBody
	if json.Unmarshal(body, &r) != nil {
		return false
	}
	cents, err := psp.ParseBalance(r.Valor)
	p := pix.Payment{AmountCents: cents, PixKey: r.Chave, Description: r.InfoPagador}
	return err == nil && validByContract(p) && keepsContract(Exchange{Request: paymentRequest(p), Body: body})
}
