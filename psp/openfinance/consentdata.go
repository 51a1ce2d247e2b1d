package openfinance

import (
	"net/http"

	"github.com/go-json-experiment/json/jsontext"
)

// consentData is the data claim of POST /consents, the spec's CreatePaymentConsent, as the
// double reads it: the members a payment must match, and the objects its answers echo as sent.
type consentData struct {
	amount, currency, proxy, localInstrument string
	creditorAccount                          account

	loggedUser, businessEntity, creditor, payment, debtorAccount jsontext.Value
}

// readConsent reads the data claim of POST /consents. It returns a 422 PARAMETRO_NAO_INFORMADO
// or PARAMETRO_INVALIDO for the first member that fails the spec's schema, or a 422
// FORMA_PAGAMENTO_INVALIDA or DETALHE_PAGAMENTO_INVALIDO for one the double cannot pay: it pays
// once, at once, to a Pix key typed in (localInstrument DICT), in reais.
func readConsent(raw jsontext.Value) (consentData, *apiError) {
	var c checker
	data := c.root(raw, "data", true)
	doc := data.object("loggedUser", true).object("document", true)
	doc.text("identification", cpfPattern, true)
	doc.text("rel", relPattern, true)
	creditor := data.object("creditor", true)
	creditor.oneOf("personType", true, "PESSOA_NATURAL", "PESSOA_JURIDICA")
	creditor.text("cpfCnpj", cpfCnpjPattern, true)
	creditor.text("name", namePattern, true)
	payment := data.object("payment", true)
	payment.oneOf("type", true, "PIX")
	scheduled := payment.has("schedule")
	payment.text("date", datePattern, !scheduled)
	d := consentData{currency: payment.text("currency", currencyPattern, true),
		amount: payment.text("amount", amountPattern, true)}
	details := payment.object("details", true)
	d.localInstrument = details.oneOf("localInstrument", true, "MANU", "DICT", "QRDN", "QRES", "INIC")
	d.proxy = details.text("proxy", proxyPattern, d.localInstrument != "MANU")
	d.creditorAccount = details.account("creditorAccount")
	switch {
	case c.bad != nil:
		return d, c.bad
	case scheduled:
		return d, errorf(http.StatusUnprocessableEntity, codeInvalidForm, "the PSP pays at once: data.payment.schedule "+
			"is not supported")
	case d.localInstrument != "DICT":
		return d, errorf(http.StatusUnprocessableEntity, codeInvalidForm, "the PSP pays to a Pix key typed in: "+
			"localInstrument %s is not supported", d.localInstrument)
	case d.currency != "BRL":
		return d, errorf(http.StatusUnprocessableEntity, codeInvalidDetail, "data.payment.currency must be BRL")
	}
	d.loggedUser, d.businessEntity, d.creditor = data.raw("loggedUser"), data.raw("businessEntity"), data.raw("creditor")
	d.payment, d.debtorAccount = data.raw("payment"), data.raw("debtorAccount")
	return d, nil
}
