package openfinance_test

import (
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
)

func TestPaymentDataRefused(t *testing.T) {
	const (
		missing = "PARAMETRO_NAO_INFORMADO"
		invalid = "PARAMETRO_INVALIDO"
	)
	item := func(consent string, v any, path ...string) []any {
		return []any{edited(paymentData(consent)[0].(map[string]any), v, path...)}
	}
	for _, tc := range []struct {
		name         string
		data         func(consent string) any
		code, detail string
	}{
		{"no data", func(string) any { return nil }, missing, "data is required"},
		{"data an object", func(c string) any { return paymentData(c)[0] }, invalid, "data must be an array of one payment"},
		{"data empty", func(string) any { return []any{} }, invalid, "data must be an array of one payment"},
		{"two payments", func(c string) any { return append(paymentData(c), paymentData(c)...) }, invalid,
			"data must be an array of one payment"},
		{"item a string", func(string) any { return []any{"x"} }, invalid, "data[0] must be a JSON object"},
		{"no endToEndId", func(c string) any { return item(c, nil, "endToEndId") }, missing, "data[0].endToEndId is required"},
		{"endToEndId of 31", func(c string) any { return item(c, "E904008882000010100000012387317", "endToEndId") },
			invalid, "data[0].endToEndId must match ^E[0-9]{8}[0-9]{4}(0[1-9]|1[0-2])(0[1-9]|[1-2][0-9]|3[0-1])" +
				"(2[0-3]|[01][0-9])[0-5][0-9][a-zA-Z0-9]{11}$"},
		{"localInstrument", func(c string) any { return item(c, "PIX", "localInstrument") }, invalid,
			`data[0].localInstrument must be one of "MANU","DICT","QRDN","QRES","INIC"`},
		{"no localInstrument", func(c string) any { return item(c, nil, "localInstrument") }, missing,
			"data[0].localInstrument is required"},
		{"no currency", func(c string) any { return item(c, nil, "payment", "currency") }, missing,
			"data[0].payment.currency is required"},
		{"no ispb", func(c string) any { return item(c, nil, "creditorAccount", "ispb") }, missing,
			"data[0].creditorAccount.ispb is required"},
		{"no accountType", func(c string) any { return item(c, nil, "creditorAccount", "accountType") }, missing,
			"data[0].creditorAccount.accountType is required"},
		{"no payment", func(c string) any { return item(c, nil, "payment") }, missing, "data[0].payment is required"},
		{"no amount", func(c string) any { return item(c, nil, "payment", "amount") }, missing,
			"data[0].payment.amount is required"},
		{"amount a number", func(c string) any { return item(c, 150, "payment", "amount") }, invalid,
			"data[0].payment.amount must be a JSON string"},
		{"currency", func(c string) any { return item(c, "R$", "payment", "currency") }, invalid,
			"data[0].payment.currency must match ^[A-Z]{3}$"},
		{"no creditorAccount", func(c string) any { return item(c, nil, "creditorAccount") }, missing,
			"data[0].creditorAccount is required"},
		{"number with a letter", func(c string) any { return item(c, "12a", "creditorAccount", "number") }, invalid,
			`data[0].creditorAccount.number must match ^\d{1,20}$`},
		{"no cnpjInitiator", func(c string) any { return item(c, nil, "cnpjInitiator") }, missing,
			"data[0].cnpjInitiator is required"},
		{"cnpjInitiator of 13", func(c string) any { return item(c, "5068536200013", "cnpjInitiator") }, invalid,
			`data[0].cnpjInitiator must match ^\d{14}$`},
		{"no consentId", func(c string) any { return item(c, nil, "consentId") }, missing, "data[0].consentId is required"},
		{"consentId no URN", func(c string) any { return item(c, "C1DD33123", "consentId") }, invalid,
			`data[0].consentId must match ^urn:[a-zA-Z0-9][a-zA-Z0-9\-]{0,31}:[a-zA-Z0-9()+,\-.:=@;$_!*'%/?#]+$`},
		{"no proxy", func(c string) any { return item(c, nil, "proxy") }, missing, "data[0].proxy is required"},
		{"remittanceInformation of 141", func(c string) any {
			return item(c, strings.Repeat("é", 141), "remittanceInformation")
		}, invalid, "data[0].remittanceInformation must match (?s)^.{0,140}$"},
		{"transactionIdentification", func(c string) any { return item(c, "a-b", "transactionIdentification") }, invalid,
			"data[0].transactionIdentification must match ^[a-zA-Z0-9]{1,35}$"},
		{"ibgeTownCode", func(c string) any { return item(c, "530010", "ibgeTownCode") }, invalid,
			`data[0].ibgeTownCode must match ^\d{7}$`},
		{"authorisationFlow", func(c string) any { return item(c, "OTHER", "authorisationFlow") }, invalid,
			`data[0].authorisationFlow must be one of "HYBRID_FLOW","CIBA_FLOW","FIDO_FLOW"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := mustBank(t, nil)
				consent := b.mustConsent(consentData())
				claims := claimsFor("/open-banking/payments/v4/pix/payments", tc.data(consent))
				if claims["data"] == nil {
					delete(claims, "data")
				}
				a := b.serve(signedRequest("/open-banking/payments/v4/pix/payments", "k1", claims))
				wantError(t, "POST payment", a, http.StatusUnprocessableEntity, tc.code, tc.detail)
				if got := b.consentStatus(consent); got != "AUTHORISED" {
					t.Errorf("consent = %s, want AUTHORISED: a syntax error is no business error", got)
				}
				paymentID(t, b.pay("k1", paymentData(consent))) // the key was not kept
			})
		})
	}
}

func TestPaymentDataOptionalMembersEchoed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		consent := b.mustConsent(edited(consentData(), map[string]any{"ispb": "87654321", "number": "1", "accountType": "TRAN"},
			"debtorAccount"))
		data := paymentData(consent)
		extra := map[string]any{"transactionIdentification": "abc123", "ibgeTownCode": "5300108", "authorisationFlow": "CIBA_FLOW"}
		for k, v := range extra {
			data[0].(map[string]any)[k] = v
		}
		view := b.pay("k1", data).claims["data"].([]any)[0].(map[string]any)
		extra["debtorAccount"] = map[string]any{"ispb": "87654321", "number": "1", "accountType": "TRAN"}
		for k, v := range extra {
			if got := view[k]; !equalJSON(got, v) {
				t.Errorf("%s = %v, want %v", k, got, v)
			}
		}
	})
}

// TestPaymentDataOfOtherForms: a MANU payment needs no proxy, and a creditorAccount no issuer,
// by the schema: then only its consent, DICT and with an issuer, refuses it.
func TestPaymentDataOfOtherForms(t *testing.T) {
	for _, tc := range []struct {
		name   string
		path   []string
		v      any
		detail string
	}{
		{"MANU without a proxy", []string{"localInstrument"}, "MANU", "data[0].localInstrument differs from the consent's"},
		{"no issuer", []string{"creditorAccount", "issuer"}, nil, "data[0].creditorAccount differs from the consent's"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := mustBank(t, nil)
				consent := b.mustConsent(consentData())
				item := edited(paymentData(consent)[0].(map[string]any), tc.v, tc.path...)
				if tc.v == "MANU" {
					item = edited(item, nil, "proxy")
				}
				wantError(t, "POST payment", b.pay("k1", []any{item}), http.StatusUnprocessableEntity,
					"PAGAMENTO_DIVERGENTE_CONSENTIMENTO", tc.detail)
			})
		})
	}
}
