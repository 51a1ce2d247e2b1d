package openfinance_test

import (
	"errors"
	"net/http"
	"net/url"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"pixretry/pix"
	"pixretry/pix/openfinance"
)

// Look asks for the payment by its paymentId, else for its consent, escaping the ids in the
// path; with neither it is ErrNoLookup, and with an invalid Dialect an error, with no request.
func TestLookAsksByPaymentIDThenByConsent(t *testing.T) {
	base, _ := url.Parse("http://psp.test/sandbox")
	tests := []struct {
		name string
		ref  pix.Ref
		want string
	}{
		{"a paymentId", pix.Ref{PaymentID: "pay-1", ConsentID: "urn:pixretry:c1"},
			"http://psp.test/sandbox/open-banking/payments/v4/pix/payments/pay-1"},
		{"a consent", pix.Ref{ConsentID: "urn:pixretry:c/1?x#y"},
			"http://psp.test/sandbox/open-banking/payments/v4/consents/urn:pixretry:c%2F1%3Fx%23y"},
	}
	for _, tt := range tests {
		req, err := newDialect().Look(t.Context(), base, fixedKey, tt.ref)
		if err != nil {
			t.Fatalf("Look(%s) error = %v", tt.name, err)
		}
		if req.Method != "GET" || req.URL.String() != tt.want || req.Header.Get("Accept") != "application/jwt, application/json" ||
			!uuidPattern.MatchString(req.Header.Get("x-fapi-interaction-id")) {
			t.Errorf("Look(%s) = %s %s with %v, want GET %s, an Accept and an interaction id", tt.name, req.Method, req.URL,
				req.Header, tt.want)
		}
	}
	root, _ := url.Parse("http://psp.test")
	if req, err := newDialect().Look(t.Context(), root, fixedKey, pix.Ref{PaymentID: "pay-1"}); err != nil ||
		req.URL.RequestURI() != "/open-banking/payments/v4/pix/payments/pay-1" {
		t.Errorf("Look() below http://psp.test = %v, %v, want the path /open-banking/payments/v4/pix/payments/pay-1", req, err)
	}
	req, err := newDialect().Look(t.Context(), base, fixedKey, pix.Ref{})
	const want = "openfinance: pix: the PSP offers no lookup for what is known of the payment: neither the paymentId " +
		"nor the consentId is known, and the API has no lookup by key"
	if req != nil || errorText(err) != want || !errors.Is(err, pix.ErrNoLookup) {
		t.Errorf("Look(no ids) = %v, %v, want no request and %s", req, err, want)
	}
	d := newDialect()
	d.KeyID = ""
	if req, err := d.Look(t.Context(), base, fixedKey, pix.Ref{PaymentID: "pay-1"}); req != nil ||
		errorText(err) != "openfinance: invalid Dialect: KeyID is empty" {
		t.Errorf("Look() with no KeyID = %v, %v, want no request and KeyID named", req, err)
	}
}

// A payment's 200 reads as a 201 does, and must be the payment looked up; any other status
// is a *pix.Error.
func TestSeenReadsAPayment(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ref := pix.Ref{PaymentID: "pay-1"}
		got, err := newDialect().Seen(signed(t, http.StatusOK, map[string]any{"data": paymentView("ACSC")}), ref)
		want := pix.Found{State: pix.Settled, EndToEndID: "E99999999200001010000abcdefghijk", AmountCents: 15000,
			PixKey: payment.PixKey, Description: payment.Description, At: settledAt,
			Ref: pix.Ref{PaymentID: "pay-1", ConsentID: payment.ConsentID}}
		if diff := cmp.Diff(want, got); err != nil || diff != "" {
			t.Errorf("Seen(200 ACSC) = %v, differs (-want +got):\n%s", err, diff)
		}
		const contract = "openfinance: pix: PSP broke the response contract: "
		tests := []struct {
			name   string
			answer pix.Answer
			want   string
		}{
			{"another payment", signed(t, 200, map[string]any{"data": with(paymentView("ACSC"),
				map[string]any{"paymentId": "pay-2"})}), contract + `the 200 is for paymentId "pay-2", not "pay-1"`},
			{"a list", signed(t, 200, map[string]any{"data": []any{paymentView("ACSC")}}),
				contract + "the 200's data is not a payment"},
			{"no data", signed(t, 200, map[string]any{}), contract + "the 200's data is not a payment"},
			{"a bad status", signed(t, 200, map[string]any{"data": paymentView("OK")}),
				contract + `the 200's status "OK" is not a payment status`},
			{"unsigned", pix.Answer{Status: 200, Body: []byte(`{"data":{}}`)},
				contract + "the 200 answer is not a compact JWS signed with PS256: go-jose/go-jose: compact JWS " +
					"format must have three parts"},
		}
		for _, tt := range tests {
			_, err := newDialect().Seen(tt.answer, ref)
			if errorText(err) != tt.want || !errors.Is(err, pix.ErrContract) || isPixError(err) {
				t.Errorf("Seen() of %s = %v, want %s", tt.name, err, tt.want)
			}
		}
		_, err = newDialect().Seen(plain(404, "NOT_FOUND"), ref)
		if e, ok := errors.AsType[*pix.Error](err); !ok || e.Status != 404 || e.Code != "NOT_FOUND" {
			t.Errorf("Seen(404) = %v, want a *pix.Error 404 NOT_FOUND", err)
		}
	})
}

// consentView is a consent as an answer shows it, with status.
func consentView(status string) map[string]any {
	return map[string]any{"consentId": payment.ConsentID, "creationDateTime": "2000-01-01T00:00:00Z",
		"expirationDateTime": "2000-01-01T01:00:00Z", "statusUpdateDateTime": "2000-01-01T00:00:00Z",
		"status": status}
}

// A consent's status says what became of the payment whose paymentId is unknown: REJECTED,
// never consumed, proves nothing was paid; CONSUMED leaves the outcome unknown and says so; a
// consent not consumed yet is pending, since an attempt in flight may consume it.
func TestSeenReadsAConsent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		expired := with(consentView("REJECTED"), map[string]any{"statusUpdateDateTime": "2000-01-01T01:00:00Z",
			"rejectionReason": map[string]any{"code": "TEMPO_EXPIRADO_CONSUMO", "detail": "expirou"}})
		const contract = "openfinance: pix: PSP broke the response contract: "
		tests := []struct {
			name string
			view map[string]any
			is   error
			want string
		}{
			{"expired", expired, pix.ErrNoSettlement, "openfinance: pix: the PSP holds no settlement under the key, " +
				"and closed it: consent urn:pixretry:c1 was REJECTED at 2000-01-01T01:00:00Z (TEMPO_EXPIRADO_CONSUMO: " +
				"expirou), never consumed"},
			{"rejected without reason", consentView("REJECTED"), pix.ErrNoSettlement, "openfinance: pix: the PSP holds " +
				"no settlement under the key, and closed it: consent urn:pixretry:c1 was REJECTED at " +
				"2000-01-01T00:00:00Z (no rejectionReason), never consumed"},
			{"consumed", consentView("CONSUMED"), openfinance.ErrConsentConsumed, "openfinance: the consent was " +
				"consumed, and the paymentId is unknown: consent urn:pixretry:c1, consumed at 2000-01-01T00:00:00Z"},
			{"authorised", consentView("AUTHORISED"), pix.ErrPending, "openfinance: pix: payment pending, neither " +
				"settled nor rejected yet: consent urn:pixretry:c1 is AUTHORISED since 2000-01-01T00:00:00Z, not " +
				"consumed yet: it ends CONSUMED, or REJECTED unconsumed at 2000-01-01T01:00:00Z"},
			{"awaiting", consentView("AWAITING_AUTHORISATION"), pix.ErrPending, "openfinance: pix: payment pending, " +
				"neither settled nor rejected yet: consent urn:pixretry:c1 is AWAITING_AUTHORISATION since " +
				"2000-01-01T00:00:00Z, not consumed yet: it ends CONSUMED, or REJECTED unconsumed at 2000-01-01T01:00:00Z"},
			{"partially accepted", consentView("PARTIALLY_ACCEPTED"), pix.ErrPending, "openfinance: pix: payment " +
				"pending, neither settled nor rejected yet: consent urn:pixretry:c1 is PARTIALLY_ACCEPTED since " +
				"2000-01-01T00:00:00Z, not consumed yet: it ends CONSUMED, or REJECTED unconsumed at 2000-01-01T01:00:00Z"},
			{"another consent", with(consentView("REJECTED"), map[string]any{"consentId": "urn:pixretry:c2"}),
				pix.ErrContract, contract + `the 200 is for consentId "urn:pixretry:c2", not "urn:pixretry:c1"`},
			{"an unknown status", consentView("REVOKED"), pix.ErrContract,
				contract + `the consent's status "REVOKED" is not a consent status`},
			{"a bad time", with(consentView("REJECTED"), map[string]any{"statusUpdateDateTime": "2000-01-01"}),
				pix.ErrContract, contract + `the consent's statusUpdateDateTime "2000-01-01" is not an RFC 3339 time`},
			{"no data", nil, pix.ErrContract, contract + "the 200's data is not a consent"},
		}
		ref := pix.Ref{ConsentID: payment.ConsentID}
		for _, tt := range tests {
			body := map[string]any{"data": tt.view}
			if tt.view == nil {
				body = map[string]any{}
			}
			f, err := newDialect().Seen(signed(t, http.StatusOK, body), ref)
			if errorText(err) != tt.want || !errors.Is(err, tt.is) || isPixError(err) || f != (pix.Found{}) {
				t.Errorf("Seen() of %s = %+v, %v, want no Found and %s", tt.name, f, err, tt.want)
			}
		}
	})
}
