package openfinance

import (
	"encoding/json"
	"strings"

	"pixretry/pix"
)

// refusals are what the 422 codes of POST /pix/payments mean to pix ([spec] schema
// EnumErrorsCreatePayment, and "Validações" item 2.2). The PSP stores a 422 under its key,
// as it does a 201 ([idempotency]), so a retry under the key gets the same refusal.
//
// pix takes ErrInsufficientFunds, ErrKeyReused and ErrRejected as the key's outcome even
// after an attempt that may have paid, since the PSP would have replayed a payment it made.
// ErrInvalidPayment, or no meaning, is a refusal on a first attempt only: after an attempt
// that may have paid, the outcome stays unknown. That matters for CONSENTIMENTO_INVALIDO,
// which an earlier attempt of the same payment may have caused by consuming the consent, or
// the consent's expiry. [pix.Client.LookupRef] with the consent then tells which.
var refusals = map[string]error{
	// The payer's balance is short (item 2.2.2.1).
	"SALDO_INSUFICIENTE": pix.ErrInsufficientFunds,
	// The key holds another data claim (item 2.2.2.10). This dialect writes the same data on
	// every attempt of a payment, so another payment holds the key.
	"ERRO_IDEMPOTENCIA": pix.ErrKeyReused,
	// The account holder refused the payment: above the payer's limit (item 2.2.2.2),
	// refused by the holder (2.2.2.7) or by the SPI, or for a reason it does not give, such
	// as a suspicion of fraud (2.2.2.9). The payment can be made no more under this key.
	"VALOR_ACIMA_LIMITE":           pix.ErrRejected,
	"PAGAMENTO_RECUSADO_DETENTORA": pix.ErrRejected,
	"PAGAMENTO_RECUSADO_SPI":       pix.ErrRejected,
	"NAO_INFORMADO":                pix.ErrRejected,
	// The request, the payee or the consent is wrong: a field missing or malformed (item
	// 2.2.1), a detail the business rules or the DICT refuse (2.2.2.8 and 2.3), an amount or
	// a charge a QR code refuses (2.2.2.3 and 2.2.2.4), a payment other than the consent's
	// (2.2.2.6), or a consent already CONSUMED or REJECTED (2.2.2.5).
	"PARAMETRO_NAO_INFORMADO":            pix.ErrInvalidPayment,
	"PARAMETRO_INVALIDO":                 pix.ErrInvalidPayment,
	"DETALHE_PAGAMENTO_INVALIDO":         pix.ErrInvalidPayment,
	"VALOR_INVALIDO":                     pix.ErrInvalidPayment,
	"COBRANCA_INVALIDA":                  pix.ErrInvalidPayment,
	"PAGAMENTO_DIVERGENTE_CONSENTIMENTO": pix.ErrInvalidPayment,
	"CONSENTIMENTO_INVALIDO":             pix.ErrInvalidPayment,
	// CONSENTIMENTO_PENDENTE_AUTORIZACAO, a consent that more approvers must authorise (item
	// 2.2.2.11), means none of these: the consent may be consumed later, under another key.
}

// apiError is one error of an errors body ([spec] schemas ResponseError and
// 422ResponseErrorCreatePixPayments).
type apiError struct {
	Code   string `json:"code"`
	Title  string `json:"title"`
	Detail string `json:"detail"`
}

// errorsBody is the body of an answer that is an error.
type errorsBody struct {
	Errors []apiError `json:"errors"`
}

// refusal reads a, a 422 that the PSP signs ([spec] response UnprocessableEntityPixPayment),
// as an *pix.Error whose Means is what means gives for its first code. A 422 that is not the
// PSP's, or has no error, is an error wrapping pix.ErrContract instead, and no *pix.Error:
// pix would take any 4xx *pix.Error as proof that the attempt paid nothing.
func (d *Dialect) refusal(a pix.Answer, means map[string]error) error {
	payload, err := d.verified(a)
	if err != nil {
		return err
	}
	var body errorsBody
	if err := json.Unmarshal(payload, &body); err != nil || len(body.Errors) == 0 {
		return contractError("the 422 has no errors")
	}
	e := body.pixError(a.Status)
	e.Means = means[e.Code]
	return e
}

// failure reads a, an answer that is neither a 201 nor a 422, as an *pix.Error. Its body is
// the unsigned errors body of the API ([spec] schema ResponseError). A body that is not one
// leaves Code and Detail empty. A 2xx or a 3xx matches pix.ErrContract.
func failure(a pix.Answer) *pix.Error {
	var body errorsBody
	if json.Unmarshal(a.Body, &body) != nil || len(body.Errors) == 0 {
		return &pix.Error{Status: a.Status}
	}
	return body.pixError(a.Status)
}

// pixError is the *pix.Error of b, an answer with status: the first error's code, and the
// title and detail of every error.
func (b errorsBody) pixError(status int) *pix.Error {
	details := make([]string, len(b.Errors))
	for i, e := range b.Errors {
		details[i] = e.Title + " " + e.Detail
		if i > 0 {
			details[i] = e.Code + ": " + details[i]
		}
	}
	return &pix.Error{Status: status, Code: b.Errors[0].Code, Detail: strings.Join(details, "; ")}
}
