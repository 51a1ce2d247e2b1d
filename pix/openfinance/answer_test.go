package openfinance_test

import (
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/google/go-cmp/cmp"

	"pixretry/pix"
)

// settledAt is when the payments of paymentView last changed status.
var settledAt = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// A signed 201 says where the payment stands: ACSC settled; RCVD, ACCP, ACPD, PDNG and SCHD
// pending; RJCT and CANC rejected, with the rejectionReason. The Found carries the paymentId
// and the consent.
func TestPaidReadsEachStatus(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		states := map[string]pix.State{"ACSC": pix.Settled, "RCVD": pix.Pending, "ACCP": pix.Pending,
			"ACPD": pix.Pending, "PDNG": pix.Pending, "SCHD": pix.Pending, "RJCT": pix.Rejected, "CANC": pix.Rejected}
		for status, state := range states {
			view := paymentView(status)
			want := pix.Found{State: state, EndToEndID: "E99999999200001010000abcdefghijk", AmountCents: 15000,
				PixKey: payment.PixKey, Description: payment.Description, At: settledAt,
				Ref: pix.Ref{PaymentID: "pay-1", ConsentID: payment.ConsentID}}
			if state == pix.Rejected {
				view["rejectionReason"] = map[string]any{"code": "SALDO_INSUFICIENTE", "detail": "sem saldo"}
				want.Reason = "SALDO_INSUFICIENTE: sem saldo"
			}
			got, err := newDialect().Paid(signed(t, http.StatusCreated, map[string]any{"data": []any{view}}), payment)
			if err != nil {
				t.Errorf("Paid(201 %s) error = %v", status, err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Paid(201 %s) differs (-want +got):\n%s", status, diff)
			}
		}
	})
}

// A signed 422 is a refusal whose Means is the pix error its code stands for; its Code is the
// first error's, and its Detail has every error's title and detail.
func TestPaidReadsRefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		means := map[string]error{
			"SALDO_INSUFICIENTE": pix.ErrInsufficientFunds, "ERRO_IDEMPOTENCIA": pix.ErrKeyReused,
			"VALOR_ACIMA_LIMITE": pix.ErrRejected, "PAGAMENTO_RECUSADO_DETENTORA": pix.ErrRejected,
			"PAGAMENTO_RECUSADO_SPI": pix.ErrRejected, "NAO_INFORMADO": pix.ErrRejected,
			"PARAMETRO_NAO_INFORMADO": pix.ErrInvalidPayment, "PARAMETRO_INVALIDO": pix.ErrInvalidPayment,
			"DETALHE_PAGAMENTO_INVALIDO": pix.ErrInvalidPayment, "VALOR_INVALIDO": pix.ErrInvalidPayment,
			"COBRANCA_INVALIDA": pix.ErrInvalidPayment, "PAGAMENTO_DIVERGENTE_CONSENTIMENTO": pix.ErrInvalidPayment,
			"CONSENTIMENTO_INVALIDO": pix.ErrInvalidPayment, "CONSENTIMENTO_PENDENTE_AUTORIZACAO": nil,
			"UM_CODIGO_NOVO": nil,
		}
		for code, want := range means {
			a := signed(t, http.StatusUnprocessableEntity, map[string]any{"errors": []any{
				map[string]any{"code": code, "title": "Título", "detail": "Detalhe"}}})
			_, err := newDialect().Paid(a, payment)
			e, ok := errors.AsType[*pix.Error](err)
			if !ok {
				t.Errorf("Paid(422 %s) error = %v, want a *pix.Error", code, err)
				continue
			}
			if diff := cmp.Diff(pix.Error{Status: 422, Code: code, Detail: "Título Detalhe", Means: want}, *e,
				cmp.Comparer(func(a, b error) bool { return a == b }), cmp.AllowUnexported(pix.Error{})); diff != "" {
				t.Errorf("Paid(422 %s) differs (-want +got):\n%s", code, diff)
			}
		}
		a := signed(t, http.StatusUnprocessableEntity, map[string]any{"errors": []any{
			map[string]any{"code": "PARAMETRO_INVALIDO", "title": "Parâmetro inválido.", "detail": "endToEndId"},
			map[string]any{"code": "SALDO_INSUFICIENTE", "title": "Saldo insuficiente.", "detail": "Sem saldo."}}})
		_, err := newDialect().Paid(a, payment)
		const want = "pix: PSP answered 422 PARAMETRO_INVALIDO: Parâmetro inválido. endToEndId; " +
			"SALDO_INSUFICIENTE: Saldo insuficiente. Sem saldo."
		if errorText(err) != want || !errors.Is(err, pix.ErrInvalidPayment) || errors.Is(err, pix.ErrInsufficientFunds) {
			t.Errorf("Paid(422 of two errors) = %v, want %s, meaning the first code's ErrInvalidPayment", err, want)
		}
	})
}

// Every other status is a *pix.Error read from the unsigned errors body, Means nil; a 2xx
// other than 201, or a 3xx, matches ErrContract, and a body that is not an errors body leaves
// Code and Detail empty.
func TestPaidReadsFailures(t *testing.T) {
	tests := []struct {
		answer   pix.Answer
		want     string
		contract bool
	}{
		{plain(400, "BAD_SIGNATURE"), "pix: PSP answered 400 BAD_SIGNATURE: Title Detail", false},
		{plain(403, "INVALID_CLIENT"), "pix: PSP answered 403 INVALID_CLIENT: Title Detail", false},
		{plain(529, "SITE_IS_OVERLOADED"), "pix: PSP answered 529 SITE_IS_OVERLOADED: Title Detail", false},
		{plain(504, "GATEWAY_TIMEOUT"), "pix: PSP answered 504 GATEWAY_TIMEOUT: Title Detail", false},
		{pix.Answer{Status: 500, Body: []byte("<html>oops</html>")}, "pix: PSP answered 500", false},
		{pix.Answer{Status: 500, Body: []byte(`{"errors":[]}`)}, "pix: PSP answered 500", false},
		{plain(200, "OK"), "pix: PSP answered 200 OK: Title Detail", true},
		{pix.Answer{Status: 302}, "pix: PSP answered 302", true},
	}
	for _, tt := range tests {
		_, err := newDialect().Paid(tt.answer, payment)
		e, ok := errors.AsType[*pix.Error](err)
		if !ok || err.Error() != tt.want || e.Means != nil || errors.Is(err, pix.ErrContract) != tt.contract {
			t.Errorf("Paid(%d %s) error = %v, want a *pix.Error %s, matching ErrContract: %t", tt.answer.Status,
				tt.answer.Body, err, tt.want, tt.contract)
		}
	}
}

// A 201 or a 422 that the PSP did not sign, or whose claims or body break the contract, is an
// error wrapping ErrContract and no *pix.Error, which pix would take for a refusal. The iat
// may be 60 seconds away, not 61.
func TestPaidRefusesWhatThePSPDidNotSign(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ok := map[string]any{"data": []any{paymentView("ACSC")}}
		now := time.Now().Unix()
		k := testKeys()
		const contract = "openfinance: pix: PSP broke the response contract: "
		tests := []struct {
			name   string
			answer pix.Answer
			want   string
		}{
			{"iat 60 s ago", signed(t, 201, with(ok, map[string]any{"iat": now - 60})), "<nil>"},
			{"iat in 60 s", signed(t, 201, with(ok, map[string]any{"iat": now + 60})), "<nil>"},
			{"aud in a list", signed(t, 201, with(ok, map[string]any{"aud": []string{"other", clientOrg}})), "<nil>"},
			{"iat 61 s ago", signed(t, 201, with(ok, map[string]any{"iat": now - 61})),
				contract + "the 201 answer's iat 1999-12-31T23:58:59Z is 1m1s from now, more than 1m0s"},
			{"iat in 61 s", signed(t, 201, with(ok, map[string]any{"iat": now + 61})),
				contract + "the 201 answer's iat 2000-01-01T00:01:01Z is -1m1s from now, more than 1m0s"},
			{"no iat", signed(t, 201, with(ok, map[string]any{"iat": nil})), contract + "the 201 answer has no iat"},
			{"no jti", signed(t, 201, with(ok, map[string]any{"jti": nil})), contract + "the 201 answer has no jti"},
			{"another aud", signed(t, 201, with(ok, map[string]any{"aud": "other"})),
				contract + `the 201 answer is for aud ["other"], not Issuer "pixretry-initiator"`},
			{"another iss", signed(t, 201, with(ok, map[string]any{"iss": "other"})),
				contract + `the 201 answer is from iss "other", not PSPIssuer "pixretry-psp"`},
			{"signed by a stranger", pix.Answer{Status: 201, Body: sign(t, k.stranger, pspKID, claims(ok))},
				contract + "the 201 answer's signature does not verify with PSPKeys: go-jose/go-jose: error in " +
					"cryptographic primitive"},
			{"an unknown kid", pix.Answer{Status: 201, Body: sign(t, k.psp, "psp-2", claims(ok))},
				contract + "the 201 answer's signature does not verify with PSPKeys: go-jose/go-jose: JWK with " +
					"matching kid not found in JWK Set"},
			{"not a JWS", pix.Answer{Status: 201, Body: []byte(`{"data":[]}`)},
				contract + "the 201 answer is not a compact JWS signed with PS256: go-jose/go-jose: compact JWS " +
					"format must have three parts"},
			{"claims not JSON", pix.Answer{Status: 201, Body: signRaw(t, []byte("not json"))},
				contract + "the 201 answer's claims are not JSON: invalid character 'o' in literal null (expecting 'u')"},
			{"two payments", signed(t, 201, map[string]any{"data": []any{paymentView("ACSC"), paymentView("ACSC")}}),
				contract + "the 201's data is not a list of one payment"},
			{"no payment", signed(t, 201, map[string]any{"data": []any{}}),
				contract + "the 201's data is not a list of one payment"},
			{"data an object", signed(t, 201, map[string]any{"data": paymentView("ACSC")}),
				contract + "the 201's data is not a list of one payment"},
			{"a bad paymentId", signed(t, 201, one(with(paymentView("ACSC"), map[string]any{"paymentId": "-1"}))),
				contract + `the 201's paymentId "-1" is not 1 to 100 letters, digits and hyphens`},
			{"a bad endToEndId", signed(t, 201, one(with(paymentView("ACSC"), map[string]any{"endToEndId": "E1"}))),
				contract + `the 201's endToEndId "E1" is not E, an ISPB, yyyyMMddHHmm and 11 alphanumerics`},
			{"an unknown status", signed(t, 201, one(paymentView("DONE"))),
				contract + `the 201's status "DONE" is not a payment status`},
			{"another currency", signed(t, 201, one(with(paymentView("ACSC"),
				map[string]any{"payment": map[string]any{"amount": "150.00", "currency": "USD"}}))),
				contract + `the 201's currency is "USD", not BRL`},
			{"an amount without its point", signed(t, 201, one(with(paymentView("ACSC"),
				map[string]any{"payment": map[string]any{"amount": "15000", "currency": "BRL"}}))),
				contract + `the 201's amount "15000" is not reais with 2 decimals`},
			{"an amount of one decimal", signed(t, 201, one(with(paymentView("ACSC"),
				map[string]any{"payment": map[string]any{"amount": "150.0", "currency": "BRL"}}))),
				contract + `the 201's amount "150.0" is not reais with 2 decimals`},
			{"a bad time", signed(t, 201, one(with(paymentView("ACSC"), map[string]any{"statusUpdateDateTime": "now"}))),
				contract + `the 201's statusUpdateDateTime "now" is not an RFC 3339 time`},
			{"a 422 by a stranger", pix.Answer{Status: 422, Body: sign(t, k.stranger, pspKID,
				claims(map[string]any{"errors": []any{map[string]any{"code": "SALDO_INSUFICIENTE"}}}))},
				contract + "the 422 answer's signature does not verify with PSPKeys: go-jose/go-jose: error in " +
					"cryptographic primitive"},
			{"an unsigned 422", plain(422, "SALDO_INSUFICIENTE"),
				contract + "the 422 answer is not a compact JWS signed with PS256: go-jose/go-jose: compact JWS " +
					"format must have three parts"},
			{"a 422 without errors", signed(t, 422, map[string]any{"errors": []any{}}), contract + "the 422 has no errors"},
		}
		for _, tt := range tests {
			_, err := newDialect().Paid(tt.answer, payment)
			if got := errorText(err); got != tt.want {
				t.Errorf("Paid() of %s = %s, want %s", tt.name, got, tt.want)
			}
			if err != nil && (!errors.Is(err, pix.ErrContract) || isPixError(err)) {
				t.Errorf("Paid() of %s = %v, want an error wrapping ErrContract, and no *pix.Error", tt.name, err)
			}
		}
	})
}

// one is the body of a 201 holding the payment view.
func one(view map[string]any) map[string]any { return map[string]any{"data": []any{view}} }

// signRaw signs payload, bytes that need not be JSON, with the PSP's key.
func signRaw(t *testing.T, payload []byte) []byte {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.PS256,
		Key: jose.JSONWebKey{Key: testKeys().psp, KeyID: pspKID}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	compact, _ := jws.CompactSerialize()
	return []byte(compact)
}
