package openfinance

import (
	"net/http"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// paymentItem is the data claim of POST /pix/payments, the spec's CreatePixPayment, as the
// double reads it: its one item.
type paymentItem struct {
	endToEndID, localInstrument, amount, currency, cnpjInitiator, consentID string
	proxy, remittance, transactionID, townCode, authorisationFlow           string // "" when absent
	creditorAccount                                                         account
}

// readPayment reads the data claim of POST /pix/payments. It returns a 422
// PARAMETRO_NAO_INFORMADO or PARAMETRO_INVALIDO for the first member that fails the spec's
// schema. The double asks two things more of it: data holds one payment, since a consent
// that is not scheduled pays once; and the payment names its consent in consentId, since the
// double has no authorisation server to bind the consent to the access token.
func readPayment(raw jsontext.Value) (paymentItem, *apiError) {
	var c checker
	var items []jsontext.Value
	switch {
	case raw == nil:
		c.missing("data")
	case raw.Kind() != '[' || json.Unmarshal(raw, &items) != nil || len(items) != 1:
		c.invalid("data", "must be an array of one payment")
	}
	var p paymentItem
	if c.bad != nil {
		return p, c.bad
	}
	item := c.root(items[0], "data[0]", true)
	p.endToEndID = item.text("endToEndId", endToEndPattern, true)
	p.localInstrument = item.oneOf("localInstrument", true, "MANU", "DICT", "QRDN", "QRES", "INIC")
	amount := item.object("payment", true)
	p.amount = amount.text("amount", amountPattern, true)
	p.currency = amount.text("currency", currencyPattern, true)
	p.creditorAccount = item.account("creditorAccount")
	p.cnpjInitiator = item.text("cnpjInitiator", cnpjPattern, true)
	p.consentID = item.text("consentId", consentIDPattern, true)
	p.proxy = item.text("proxy", proxyPattern, p.localInstrument != "MANU")
	p.remittance = item.text("remittanceInformation", remittancePattern, false)
	p.transactionID = item.text("transactionIdentification", txidPattern, false)
	p.townCode = item.text("ibgeTownCode", townPattern, false)
	p.authorisationFlow = item.oneOf("authorisationFlow", false, "HYBRID_FLOW", "CIBA_FLOW", "FIDO_FLOW")
	return p, c.bad
}

// divergence names the first member of p that differs from its consent's, or is "" when p
// matches it: amount, currency, form, Pix key and account (the spec's description, item
// 2.2.2.6).
func (d consentData) divergence(p paymentItem) string {
	switch {
	case p.amount != d.amount:
		return "data[0].payment.amount"
	case p.currency != d.currency:
		return "data[0].payment.currency"
	case p.localInstrument != d.localInstrument:
		return "data[0].localInstrument"
	case p.proxy != d.proxy:
		return "data[0].proxy"
	case p.creditorAccount != d.creditorAccount:
		return "data[0].creditorAccount"
	}
	return ""
}

// divergent is the 422 of a payment whose member differs from its consent's.
func divergent(member string) *apiError {
	return errorf(http.StatusUnprocessableEntity, codeDivergent, "%s differs from the consent's", member)
}
