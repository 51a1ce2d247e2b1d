package openfinance_test

import (
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"pixretry/psp"
	"pixretry/psp/openfinance"
)

// wantPayment is the body of an answer about the payment id of paymentData(consent) in status,
// updated at updated: POST's 201 when created is true (data an array, links.self the
// payment's URI), else GET's 200. reason, if not nil, is its rejectionReason.
func wantPayment(id, consent, status, updated string, created bool, reason map[string]any) map[string]any {
	view := paymentData(consent)[0].(map[string]any)
	view["paymentId"], view["status"] = id, status
	view["creationDateTime"], view["statusUpdateDateTime"] = start, updated
	view["debtorAccount"] = map[string]any{"ispb": "12345678", "issuer": "0001", "number": "1234567890", "accountType": "CACC"}
	if reason != nil {
		view["rejectionReason"] = reason
	}
	var data any = view
	if created {
		data = []any{view}
	}
	return map[string]any{"data": data, "links": map[string]any{"self": "http://" + host + openfinance.PaymentsPath + "/" + id},
		"meta": map[string]any{"requestDateTime": time.Now().UTC().Format(time.RFC3339)}}
}

// paymentID is the paymentId of a, a POST's 201.
func paymentID(tb testing.TB, a answer) string {
	tb.Helper()
	if a.status != http.StatusCreated {
		tb.Fatalf("POST payment = %d %s, want 201", a.status, a.body)
	}
	id, _ := a.claims["data"].([]any)[0].(map[string]any)["paymentId"].(string)
	if uuid.Validate(id) != nil {
		tb.Fatalf("paymentId = %q, want a UUID", id)
	}
	return id
}

// wantError checks that a is the error answer status with code and detail: signed if a 422,
// plain otherwise.
func wantError(tb testing.TB, what string, a answer, status int, code, detail string) {
	tb.Helper()
	got := a.json
	if status == http.StatusUnprocessableEntity {
		got = a.claims
	}
	title := http.StatusText(status)
	switch {
	case status == 529:
		title = "Site Is Overloaded"
	case title == "":
		title = fmt.Sprintf("Status %d", status)
	}
	if diff := cmp.Diff(errorBody(code, title, detail), got); a.status != status || diff != "" {
		tb.Errorf("%s = %d %s, want %d (-want +got):\n%s", what, a.status, a.header.Get("Content-Type"), status, diff)
	}
}

func TestPaymentSettles(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		consent := b.mustConsent(consentData())
		a := b.pay("k1", paymentData(consent))
		id := paymentID(t, a)
		if diff := cmp.Diff(wantPayment(id, consent, "ACSC", start, true, nil), a.claims); diff != "" {
			t.Errorf("POST payment (-want +got):\n%s", diff)
		}
		if got := b.consentStatus(consent); got != "CONSUMED" {
			t.Errorf("consent = %s, want CONSUMED", got)
		}
		time.Sleep(time.Second)
		got := b.get(openfinance.PaymentsPath + "/" + id)
		if diff := cmp.Diff(wantPayment(id, consent, "ACSC", start, false, nil), got.claims); got.status != http.StatusOK || diff != "" {
			t.Errorf("GET payment = %d (-want +got):\n%s", got.status, diff)
		}
		settled := b.core.Settlements()
		if len(settled) != 1 || settled[0].IdempotencyKey != "k1" || settled[0].AmountCents != 15000 ||
			settled[0].PixKey != "pix@example.com" || settled[0].Description != "rent" {
			t.Errorf("Settlements() = %+v, want one of 150.00 to pix@example.com under k1, for rent", settled)
		}
	})
}

func TestPaymentReplayedAnewGetsItsPaymentID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		consent := b.mustConsent(consentData())
		id := paymentID(t, b.pay("k1", paymentData(consent)))
		time.Sleep(30 * time.Second)
		again := b.pay("k1", paymentData(consent)) // a new jti and iat, the same data
		if diff := cmp.Diff(wantPayment(id, consent, "ACSC", start, true, nil), again.claims); again.status != http.StatusCreated || diff != "" {
			t.Errorf("POST payment again = %d (-want +got):\n%s", again.status, diff)
		}
		if n := len(b.core.Settlements()); n != 1 {
			t.Errorf("len(Settlements()) = %d, want 1", n)
		}
		if st := b.core.Stats(); st.Requests != 2 {
			t.Errorf("Stats().Requests = %d, want 2: the replay is relayed", st.Requests)
		}
	})
}

func TestPaymentDataComparedNotItsBytes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		consent := b.mustConsent(consentData())
		id := paymentID(t, b.pay("k1", paymentData(consent)))
		claims := claimsFor(openfinance.PaymentsPath, nil)
		payload := fmt.Sprintf(`{"data": [ {"proxy":"pix@example.com", "remittanceInformation":"rent",
			"payment": {"currency":"BRL","amount":"150.00"}, "endToEndId":"E9040088820000101000000123873170",
			"localInstrument":"DICT", "creditorAccount":{"number":"1234567890","ispb":"12345678","issuer":"1774",
			"accountType":"CACC"}, "consentId":%q, "cnpjInitiator":"50685362000135"} ],
			"iss":%q, "aud":%q, "jti":%q, "iat":%d}`, consent, claims["iss"], claims["aud"], claims["jti"], claims["iat"])
		r := request(http.MethodPost, openfinance.PaymentsPath, signPayload(payload, jose.PS256, clientJWK()))
		r.Header.Set("x-idempotency-key", "k1")
		if got := paymentID(t, b.serve(r)); got != id {
			t.Errorf("paymentId = %s, want %s: the same data, in another order", got, id)
		}
	})
}

func TestPaymentKeyReusedWithOtherData(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		consent := b.mustConsent(consentData())
		paymentID(t, b.pay("k1", paymentData(consent)))
		other := paymentData(consent)
		other[0].(map[string]any)["endToEndId"] = "E9040088820000101000000123873171"
		wantError(t, "POST payment with other data", b.pay("k1", other), http.StatusUnprocessableEntity,
			"ERRO_IDEMPOTENCIA", "the data claim differs from the one first sent under this x-idempotency-key")
		if st := b.core.Stats(); st.Requests != 1 {
			t.Errorf("Stats().Requests = %d, want 1: nothing relayed", st.Requests)
		}
	})
}

func TestPaymentDivergentFromItsConsent(t *testing.T) {
	for _, tc := range []struct {
		member string
		path   []string
		value  any
	}{
		{"data[0].payment.amount", []string{"payment"}, map[string]any{"amount": "150.01", "currency": "BRL"}},
		{"data[0].payment.currency", []string{"payment"}, map[string]any{"amount": "150.00", "currency": "USD"}},
		{"data[0].localInstrument", []string{"localInstrument"}, "INIC"},
		{"data[0].proxy", []string{"proxy"}, "other@example.com"},
		{"data[0].creditorAccount", []string{"creditorAccount"}, edited(creditorAccount(), "1775", "issuer")},
	} {
		t.Run(tc.member, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := mustBank(t, nil)
				consent := b.mustConsent(consentData())
				data := []any{edited(paymentData(consent)[0].(map[string]any), tc.value, tc.path...)}
				detail := tc.member + " differs from the consent's"
				wantError(t, "POST payment", b.pay("k1", data), http.StatusUnprocessableEntity,
					"PAGAMENTO_DIVERGENTE_CONSENTIMENTO", detail)
				if got := b.consentStatus(consent); got != "CONSUMED" {
					t.Errorf("consent = %s, want CONSUMED", got)
				}
				wantError(t, "POST payment again", b.pay("k1", data), http.StatusUnprocessableEntity,
					"PAGAMENTO_DIVERGENTE_CONSENTIMENTO", detail)
				wantError(t, "POST payment under another key", b.pay("k2", paymentData(consent)),
					http.StatusUnprocessableEntity, "CONSENTIMENTO_INVALIDO", "the consent "+consent+" is CONSUMED")
				if st := b.core.Stats(); st.Requests != 0 {
					t.Errorf("Stats().Requests = %d, want 0: nothing relayed", st.Requests)
				}
			})
		})
	}
}

func TestPaymentConsentConsumedByAnotherKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		consent := b.mustConsent(consentData())
		paymentID(t, b.pay("k1", paymentData(consent)))
		wantError(t, "POST payment under k2", b.pay("k2", paymentData(consent)), http.StatusUnprocessableEntity,
			"CONSENTIMENTO_INVALIDO", "the consent "+consent+" is CONSUMED")
		if n := len(b.core.Settlements()); n != 1 {
			t.Errorf("len(Settlements()) = %d, want 1", n)
		}
	})
}

func TestPaymentOfAnUnknownConsent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		r := signedRequest(openfinance.ConsentsPath, "c1", claimsFor(openfinance.ConsentsPath, consentData()))
		r.Header.Set("Authorization", "Bearer other-token")
		theirs := b.serve(r).claims["data"].(map[string]any)["consentId"].(string)
		for i, id := range []string{"urn:pixretry:nope", theirs} {
			wantError(t, "POST payment of "+id, b.pay(fmt.Sprint("k", i), paymentData(id)), http.StatusUnprocessableEntity,
				"CONSENTIMENTO_INVALIDO", "the consent "+id+" is unknown")
		}
		other := paymentData("urn:pixretry:nope")
		other[0].(map[string]any)["proxy"] = "other@example.com"
		wantError(t, "POST payment under the key of a 422 with other data", b.pay("k0", other),
			http.StatusUnprocessableEntity, "ERRO_IDEMPOTENCIA",
			"the data claim differs from the one first sent under this x-idempotency-key")
	})
}

func TestPaymentRefusedForInsufficientFunds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, func(c *psp.Config, _ *openfinance.Config) { c.BalanceCents = 14999 })
		consent := b.mustConsent(consentData())
		for _, what := range []string{"POST payment", "POST payment again"} {
			wantError(t, what, b.pay("k1", paymentData(consent)), http.StatusUnprocessableEntity, "SALDO_INSUFICIENTE",
				"valor 150.00 exceeds the payer's balance")
		}
		if got := b.consentStatus(consent); got != "CONSUMED" {
			t.Errorf("consent = %s, want CONSUMED", got)
		}
		if st := b.core.Stats(); st.Requests != 1 {
			t.Errorf("Stats().Requests = %d, want 1: the 422 is kept under the key", st.Requests)
		}
	})
}

func TestPaymentToAPixKeyThePSPRefuses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		consent := b.mustConsent(edited(consentData(), "not a pix key", "payment", "details", "proxy"))
		data := paymentData(consent)
		data[0].(map[string]any)["proxy"] = "not a pix key"
		wantError(t, "POST payment", b.pay("k1", data), http.StatusUnprocessableEntity, "DETALHE_PAGAMENTO_INVALIDO",
			"data[0].proxy breaks a rule of the PSP: must be a Pix key: CPF (11 digits), CNPJ (14 digits), phone "+
				"(+ and up to 15 digits), e-mail (lower case, at most 77 characters) or EVP (lower-case UUID)")
		if got := b.consentStatus(consent); got != "CONSUMED" {
			t.Errorf("consent = %s, want CONSUMED: the DICT refused the key", got)
		}
	})
}

// TestPaymentOfAnAmountThePSPRefuses: an amount the schema takes and the PSP does not, above
// its largest, is refused as the DICT refuses a key, the member named in v4's terms.
func TestPaymentOfAnAmountThePSPRefuses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		consent := b.mustConsent(edited(consentData(), "10000000000.00", "payment", "amount"))
		data := paymentData(consent)
		data[0].(map[string]any)["payment"] = map[string]any{"amount": "10000000000.00", "currency": "BRL"}
		wantError(t, "POST payment", b.pay("k1", data), http.StatusUnprocessableEntity, "DETALHE_PAGAMENTO_INVALIDO",
			`data[0].payment.amount breaks a rule of the PSP: must match ^\d{1,10}\.\d{2}$, as in "150.00"`)
	})
}
