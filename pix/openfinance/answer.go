package openfinance

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"pixretry/pix"
)

// Paid reads the answer to an attempt to pay a payment. pix checks that the payment found is
// the one it paid.
//
// A 201 is a signed list of one payment ([spec] schema ResponseCreatePixPayment), and its
// status says where the payment stands ([spec] schema EnumPaymentStatusType): ACSC is
// settled; RCVD, ACCP, ACPD, PDNG and SCHD are pending, and the paymentId that
// [pix.Client.AwaitRef] looks up is in the Found's Ref; RJCT and CANC are rejected, with the
// rejectionReason as the Found's Reason. A replay is a 201 with the payment's current status
// ([idempotency]). Nothing in it tells a replay from a first answer, so Found.Replayed is
// false. Nor does it name the key, so Found.Key is empty: its endToEndId is made from the key,
// but Paid is not given the key to check it.
//
// A 422 is a signed refusal, an [*pix.Error] whose Means is what its first code stands for
// ([spec] schema EnumErrorsCreatePayment, and "Validações" item 2.2): SALDO_INSUFICIENTE
// [pix.ErrInsufficientFunds]; ERRO_IDEMPOTENCIA [pix.ErrKeyReused]; VALOR_ACIMA_LIMITE,
// PAGAMENTO_RECUSADO_DETENTORA, PAGAMENTO_RECUSADO_SPI and NAO_INFORMADO [pix.ErrRejected]; the
// spec's other codes [pix.ErrInvalidPayment], but CONSENTIMENTO_PENDENTE_AUTORIZACAO and codes
// the spec lacks, which mean none of them. refusal.go says why, code by code. Every other status
// is an [*pix.Error] read from the unsigned errors body of the API ([spec] schema
// ResponseError), Means nil, such as 529 SiteIsOverloaded and 504, which pix retries. A 400
// BAD_SIGNATURE or a 403 (claims or a jti refused) refuses the attempt before the PSP
// processes it ([spec] "Validações" items 2.1.3 and 2.1.4): pix takes it for proof that this
// attempt paid nothing, but after an attempt that may have paid, or to a resend, it keeps the
// outcome unknown. A 201 or a 422 that is not signed by the PSP, or whose claims or body break
// the contract, is an error wrapping [pix.ErrContract]: the outcome is unknown, never a
// refusal.
func (d *Dialect) Paid(a pix.Answer, _ pix.Payment) (pix.Found, error) {
	switch a.Status {
	case http.StatusCreated:
		payload, err := d.verified(a)
		if err != nil {
			return pix.Found{}, err
		}
		var body struct {
			Data []paymentAnswer `json:"data"`
		}
		if err := json.Unmarshal(payload, &body); err != nil || len(body.Data) != 1 {
			return pix.Found{}, contractError("the 201's data is not a list of one payment")
		}
		return body.Data[0].found(a.Status)
	case http.StatusUnprocessableEntity:
		return pix.Found{}, d.refusal(a, refusals)
	}
	return pix.Found{}, failure(a)
}

// paymentAnswer is a payment in an answer ([spec] schemas ResponseCreatePixPayment and
// ResponsePixPaymentData), with the fields that Found takes.
type paymentAnswer struct {
	PaymentID             string     `json:"paymentId"`
	EndToEndID            string     `json:"endToEndId"`
	ConsentID             string     `json:"consentId"`
	StatusUpdateDateTime  string     `json:"statusUpdateDateTime"`
	Status                string     `json:"status"`
	RejectionReason       *rejection `json:"rejectionReason"`
	Payment               money      `json:"payment"`
	Proxy                 string     `json:"proxy"`
	RemittanceInformation string     `json:"remittanceInformation"`
}

// rejection is why a payment or a consent was rejected ([spec] schemas RejectionReason and
// ConsentRejectionReason).
type rejection struct {
	Code   string `json:"code"`
	Detail string `json:"detail"`
}

// states are the payment statuses and the States they stand for ([spec] schema
// EnumPaymentStatusType). Only ACSC settles. CANC was cancelled before it settled, and RJCT
// was rejected: nothing was paid. The others may settle yet.
var states = map[string]pix.State{
	"ACSC": pix.Settled,
	"RCVD": pix.Pending,
	"ACCP": pix.Pending,
	"ACPD": pix.Pending,
	"PDNG": pix.Pending,
	"SCHD": pix.Pending,
	"RJCT": pix.Rejected,
	"CANC": pix.Rejected,
}

// The patterns of the ids in an answer ([spec] schemas ResponsePixPaymentData and EndToEndId).
var (
	paymentIDPattern  = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9\-]{0,99}$`)
	endToEndIDPattern = regexp.MustCompile(
		`^E[0-9]{8}[0-9]{4}(0[1-9]|1[0-2])(0[1-9]|[1-2][0-9]|3[0-1])(2[0-3]|[01][0-9])[0-5][0-9][a-zA-Z0-9]{11}$`)
	amountPattern = regexp.MustCompile(`^[0-9]{1,16}\.[0-9]{2}$`)
)

// found returns what p, read from an answer with code, says of its payment, or an error
// wrapping pix.ErrContract for the first field that breaks the contract.
func (p paymentAnswer) found(code int) (pix.Found, error) {
	state, ok := states[p.Status]
	switch {
	case !paymentIDPattern.MatchString(p.PaymentID):
		return pix.Found{}, contractError("the %d's paymentId %q is not 1 to 100 letters, digits and hyphens", code,
			p.PaymentID)
	case !endToEndIDPattern.MatchString(p.EndToEndID):
		return pix.Found{}, contractError("the %d's endToEndId %q is not E, an ISPB, yyyyMMddHHmm and 11 alphanumerics",
			code, p.EndToEndID)
	case !ok:
		return pix.Found{}, contractError("the %d's status %q is not a payment status", code, p.Status)
	case p.Payment.Currency != currency:
		return pix.Found{}, contractError("the %d's currency is %q, not %s", code, p.Payment.Currency, currency)
	}
	cents, ok := parseAmount(p.Payment.Amount)
	if !ok {
		return pix.Found{}, contractError("the %d's amount %q is not reais with 2 decimals", code, p.Payment.Amount)
	}
	at, err := time.Parse(time.RFC3339, p.StatusUpdateDateTime)
	if err != nil {
		return pix.Found{}, contractError("the %d's statusUpdateDateTime %q is not an RFC 3339 time", code,
			p.StatusUpdateDateTime)
	}
	return pix.Found{State: state, EndToEndID: p.EndToEndID, AmountCents: cents, PixKey: p.Proxy,
		Description: p.RemittanceInformation, At: at, Reason: p.RejectionReason.String(),
		Ref: pix.Ref{PaymentID: p.PaymentID, ConsentID: p.ConsentID}}, nil
}

// String returns "CODE: detail", or "" for no rejection.
func (r *rejection) String() string {
	if r == nil {
		return ""
	}
	return r.Code + ": " + r.Detail
}

// parseAmount reads an amount as the API writes it, such as "150.00", into cents. It reports
// false for anything else.
func parseAmount(s string) (int64, bool) {
	if !amountPattern.MatchString(s) {
		return 0, false
	}
	n, err := strconv.ParseInt(s[:len(s)-3]+s[len(s)-2:], 10, 64)
	return n, err == nil
}
