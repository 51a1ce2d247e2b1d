package openfinance

import (
	"fmt"
	"net/http"

	"pixretry/psp"
)

// verdict is what an answer of the psp.Server to a relayed payment says became of it.
type verdict uint8

const (
	untouched verdict = iota // the Server did not process it: nothing changed under the key
	accepted                 // the Server holds a payment under the key, pending, settled or rejected
	refusal                  // the Server refused it for a business rule (a 422 the key keeps)
	uncertain                // the Server may have committed it, and gave no answer that says
)

// verdictOf reads n, the answer to a payment relayed, or none when ok is false. read says
// whether the Server read the payment's body: a request whose body it never read was refused
// before any processing, for its token, for overload or by a fault. Of the refusals made after
// reading it, a full key store and a key held otherwise process nothing either.
func verdictOf(n native, ok, read bool) verdict {
	switch code := n.code(); {
	case !ok:
	case n.receipt != nil && n.Status/100 == 2, code == "payment_rejected":
		return accepted
	case code == "insufficient_funds", code == "invalid_request":
		return refusal
	case code == "key_store_full", code == "idempotency_key_reused", code == "idempotency_key_closed":
		return untouched
	}
	if read {
		return uncertain
	}
	return untouched
}

// nativeMembers maps the members of the psp.Server's payment body to the v4 members they were
// built from.
var nativeMembers = map[string]string{"valor": "data[0].payment.amount", "chave": "data[0].proxy",
	"infoPagador": "data[0].remittanceInformation"}

// businessError is the 422 of a refusal verdict: SALDO_INSUFICIENTE for the payer's balance,
// or DETALHE_PAGAMENTO_INVALIDO for a member the psp.Server refuses, as the DICT would refuse
// a Pix key (the spec's description, item 2.3).
func businessError(n native) *apiError {
	if n.code() == "insufficient_funds" {
		return errorf(http.StatusUnprocessableEntity, codeInsufficient, "%s", n.problem.Detail)
	}
	v := n.problem.Violations[0] // a 400 invalid_request names at least one
	return errorf(http.StatusUnprocessableEntity, codeInvalidDetail, "%s breaks a rule of the PSP: %s",
		nativeMembers[v.Field], v.Reason)
}

// relayError is the v4 error of n, an error answer of the psp.Server that is no business
// error. It keeps n's status but a 503's, for overload or any other cause: that becomes 529
// SiteIsOverloaded, since v4 answers no 503, and 529 is its answer when it cannot serve
// (4.1.0.yml, SiteIsOverloaded). A 504 stays a 504 (GatewayTimeout). Its Retry-After and
// WWW-Authenticate go with it.
func relayError(n native) *apiError {
	detail := fmt.Sprintf("the PSP answered %d", n.Status)
	if n.problem != nil {
		detail = n.problem.Detail
	}
	e := statusError(n.Status, detail)
	switch n.code() {
	case "idempotency_key_in_use":
		e.code = codeInProgress
	case "idempotency_key_reused", "idempotency_key_closed":
		e.code = codeIdempotency
	}
	if e.status == http.StatusServiceUnavailable {
		e.status, e.code = statusSiteOverloaded, codeOverloaded
	}
	for _, name := range []string{"Retry-After", "Www-Authenticate"} {
		if v := n.Header.Get(name); v != "" {
			if e.header == nil {
				e.header = http.Header{}
			}
			e.header.Set(name, v)
		}
	}
	return e
}

// reply is the answer of a request relayed to the psp.Server: a payment with its status, an
// error, the Server's answer as it is, or nothing.
type reply struct {
	status  int
	view    *paymentView
	created bool // view answers POST /pix/payments, else GET /pix/payments/{paymentId}
	err     *apiError
	raw     *psp.Relayed
	none    bool // the Server closed the connection: no answer is owed
}

// errorReply is the reply of n, an answer the Server did not accept the payment with, or of no
// answer when ok is false. A redirect keeps its status and points to the request's own path.
// A 2xx the double cannot read goes as it is: the client meets the broken answer it was sent.
func errorReply(n native, ok bool) reply {
	switch {
	case !ok:
		return reply{none: true}
	case n.Status/100 == 3, n.Status/100 == 2:
		return reply{raw: &n.Relayed}
	}
	return reply{err: relayError(n)}
}

// write sends rp.
func (rp reply) write(x *exchange) {
	switch {
	case rp.none:
	case rp.err != nil:
		x.fail(rp.err)
	case rp.raw != nil && rp.raw.Status/100 == 3:
		x.write(rp.raw.Status, "text/plain; charset=utf-8", nil, http.Header{"Location": {x.r.URL.Path}})
	case rp.raw != nil:
		x.write(rp.raw.Status, rp.raw.Header.Get("Content-Type"), rp.raw.Body, nil)
	case rp.created: // links.self is the payment's URI (4.1.0.yml, LinkSinglePost)
		x.signed(rp.status, createdBody{[]paymentView{*rp.view}, links{x.url() + "/" + rp.view.PaymentID}, x.meta()})
	default:
		x.signed(rp.status, paymentBody{*rp.view, x.links(), x.meta()})
	}
}
