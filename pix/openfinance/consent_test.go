package openfinance_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"

	"pixretry/pix"
	"pixretry/pix/openfinance"
	"pixretry/retry"
)

// roundTripper is an http.RoundTripper made of a function.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// answering is a Client whose requests get a, and are kept in sent.
func answering(a pix.Answer, sent *[]*http.Request) *pix.Client {
	return &pix.Client{BaseURL: "http://psp.test", Token: "tok", Policy: retry.Policy{AttemptsMax: 1},
		HTTPClient: &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
			*sent = append(*sent, r)
			return &http.Response{StatusCode: a.Status, Header: a.Header, Body: io.NopCloser(bytes.NewReader(a.Body)),
				Request: r}, nil
		})}}
}

// CreateConsent signs one POST /consents under a fresh key, with the bearer token, for the
// payment today in Brasília, and returns the consentId of the signed 201.
func TestCreateConsentSignsOneRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var sent []*http.Request
		c := answering(signed(t, http.StatusCreated, map[string]any{"data": consentView("AUTHORISED")}), &sent)
		id, err := newDialect().CreateConsent(t.Context(), c, "11122233396", payment)
		if id != payment.ConsentID || err != nil {
			t.Fatalf("CreateConsent() = %q, %v, want %q", id, err, payment.ConsentID)
		}
		if len(sent) != 1 {
			t.Fatalf("CreateConsent() sent %d requests, want 1", len(sent))
		}
		req := sent[0]
		const endpoint = "http://psp.test/open-banking/payments/v4/consents"
		if req.Method != "POST" || req.URL.String() != endpoint || req.Header.Get("Authorization") != "Bearer tok" ||
			req.Header.Get("Content-Type") != "application/jwt" || newDialect().CheckKey(req.Header.Get("x-idempotency-key")) != nil {
			t.Errorf("CreateConsent() sent %s %s with %v, want POST %s, the token, a JWS and a UUIDv7 key", req.Method,
				req.URL, req.Header, endpoint)
		}
		got := decode(t, req)
		if got.Claims["aud"] != endpoint || got.Claims["iss"] != clientOrg {
			t.Errorf("the consent's aud and iss = %v and %v, want %s and %s", got.Claims["aud"], got.Claims["iss"],
				endpoint, clientOrg)
		}
		// 2000-01-01T00:00:00Z is still 1999-12-31 in Brasília.
		want := compact(t, `{"loggedUser":{"document":{"identification":"11122233396","rel":"CPF"}},
			"creditor":{"personType":"PESSOA_NATURAL","cpfCnpj":"12345678909","name":"Maria da Silva"},
			"payment":{"type":"PIX","date":"1999-12-31","currency":"BRL","amount":"150.00",
				"details":{"localInstrument":"DICT","proxy":"pix@example.com",
					"creditorAccount":{"ispb":"12345678","issuer":"0001","number":"1234567","accountType":"CACC"}}}}`)
		if got.Data != want {
			t.Errorf("the consent's data = %s, want %s", got.Data, want)
		}
	})
}

// A creditor with a CNPJ is a legal person.
func TestCreateConsentNamesALegalPerson(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var sent []*http.Request
		c := answering(signed(t, http.StatusCreated, map[string]any{"data": consentView("AUTHORISED")}), &sent)
		d := newDialect()
		d.Creditors = func(string) (openfinance.Creditor, error) {
			c := payee
			c.Document = "50685362000135"
			return c, nil
		}
		if _, err := d.CreateConsent(t.Context(), c, "11122233396", payment); err != nil {
			t.Fatal(err)
		}
		if got := decode(t, sent[0]).Data; !strings.Contains(got, `"personType":"PESSOA_JURIDICA","cpfCnpj":"50685362000135"`) {
			t.Errorf("the consent's data = %s, want a PESSOA_JURIDICA of CNPJ 50685362000135", got)
		}
	})
}

// CreateConsent sends nothing for a bad payer, payment, creditor, Client or Dialect.
func TestCreateConsentRefusesWhatItCannotWrite(t *testing.T) {
	holder := func(name, document string) func(string) (openfinance.Creditor, error) {
		return func(string) (openfinance.Creditor, error) {
			c := payee
			c.Name, c.Document = name, document
			return c, nil
		}
	}
	const creditor = `openfinance: pix: invalid payment: the creditor of Pix key "pix@example.com": `
	tests := []struct {
		name      string
		payer     string
		p         pix.Payment
		creditors func(string) (openfinance.Creditor, error)
		baseURL   string
		want      string
		invalid   bool
	}{
		{"a payer of 10 digits", "1112223339", payment, nil, "", `openfinance: pix: invalid payment: the payer's CPF ` +
			`"1112223339" is not 11 digits`, true},
		{"a payer of 12 digits", "111222333960", payment, nil, "", `openfinance: pix: invalid payment: the payer's ` +
			`CPF "111222333960" is not 11 digits`, true},
		{"an invalid payment", "11122233396", pix.Payment{PixKey: payment.PixKey}, nil, "",
			"pix: invalid payment: AmountCents 0 is not between 1 and 999999999999", true},
		{"a name of 121 characters", "11122233396", payment, holder(strings.Repeat("á", 121), payee.Document), "",
			creditor + `its Name "` + strings.Repeat("á", 121) + `" is not 1 to 120 letters, digits, spaces and punctuation`,
			true},
		{"no name", "11122233396", payment, holder("", payee.Document), "",
			creditor + `its Name "" is not 1 to 120 letters, digits, spaces and punctuation`, true},
		{"a name with a line break", "11122233396", payment, holder("Maria\nSilva", payee.Document), "",
			creditor + `its Name "Maria\nSilva" is not 1 to 120 letters, digits, spaces and punctuation`, true},
		{"a document of 12 digits", "11122233396", payment, holder(payee.Name, "123456789012"), "",
			creditor + `its Document "123456789012" is not a CPF of 11 digits or a CNPJ of 14`, true},
		{"a bad account", "11122233396", payment, func(string) (openfinance.Creditor, error) {
			c := payee
			c.Account.ISPB = ""
			return c, nil
		}, "", creditor + `its Account.ISPB "" is not 8 digits`, true},
		{"a relative BaseURL", "11122233396", payment, nil, "/psp",
			`openfinance: the Client's BaseURL "/psp" is not an absolute http or https URL`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sent []*http.Request
			c := answering(pix.Answer{Status: 500}, &sent)
			if tt.baseURL != "" {
				c.BaseURL = tt.baseURL
			}
			d := newDialect()
			if tt.creditors != nil {
				d.Creditors = tt.creditors
			}
			id, err := d.CreateConsent(t.Context(), c, tt.payer, tt.p)
			if id != "" || errorText(err) != tt.want || errors.Is(err, pix.ErrInvalidPayment) != tt.invalid || len(sent) != 0 {
				t.Errorf("CreateConsent() = %q, %v after %d requests, want none and %s", id, err, len(sent), tt.want)
			}
		})
	}
	var sent []*http.Request
	d := newDialect()
	d.Issuer = ""
	if _, err := d.CreateConsent(t.Context(), answering(pix.Answer{Status: 500}, &sent), "11122233396", payment); errorText(err) !=
		"openfinance: invalid Dialect: Issuer is empty" || len(sent) != 0 {
		t.Errorf("CreateConsent() with no Issuer = %v after %d requests, want Issuer named and none", err, len(sent))
	}
}

// An answer other than a signed 201 with a consentId is an error: a *pix.Error for a refusal
// or a failure, and ErrContract for an answer the PSP did not sign or whose consentId is not
// a URN.
func TestCreateConsentReadsTheAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const contract = "openfinance: pix: PSP broke the response contract: "
		tests := []struct {
			name     string
			answer   pix.Answer
			want     string
			pixError bool
		}{
			{"a 422", signed(t, 422, map[string]any{"errors": []any{map[string]any{"code": "FORMA_PAGAMENTO_INVALIDA",
				"title": "Forma de pagamento inválida.", "detail": "QRES"}}}),
				"pix: PSP answered 422 FORMA_PAGAMENTO_INVALIDA: Forma de pagamento inválida. QRES", true},
			{"a 529", plain(529, "SITE_IS_OVERLOADED"), "pix: PSP answered 529 SITE_IS_OVERLOADED: Title Detail", true},
			{"an unsigned 201", pix.Answer{Status: 201, Body: []byte(`{"data":{}}`)}, contract + "the 201 answer is not " +
				"a compact JWS signed with PS256: go-jose/go-jose: compact JWS format must have three parts", false},
			{"no data", signed(t, 201, map[string]any{}), contract + "the consent's 201 has no data", false},
			{"a bad consentId", signed(t, 201, map[string]any{"data": with(consentView("AUTHORISED"),
				map[string]any{"consentId": "c1"})}), contract + `the consent's 201 has consentId "c1", not a URN`, false},
		}
		for _, tt := range tests {
			var sent []*http.Request
			id, err := newDialect().CreateConsent(t.Context(), answering(tt.answer, &sent), "11122233396", payment)
			if id != "" || errorText(err) != tt.want || isPixError(err) != tt.pixError {
				t.Errorf("CreateConsent() of %s = %q, %v, want %s", tt.name, id, err, tt.want)
			}
		}
	})
}

// A Client without HTTPClient creates its consent through http.DefaultClient.
func TestCreateConsentWithoutHTTPClient(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := signed(t, http.StatusCreated, map[string]any{"data": consentView("AUTHORISED")})
		w.Header().Set("Content-Type", "application/jwt")
		w.WriteHeader(a.Status)
		w.Write(a.Body)
	}))
	defer srv.Close()
	c := &pix.Client{BaseURL: srv.URL, Token: "tok", Policy: retry.Policy{AttemptsMax: 1}}
	if id, err := newDialect().CreateConsent(t.Context(), c, payer, payment); id != payment.ConsentID || err != nil {
		t.Errorf("CreateConsent() = %q, %v, want %q", id, err, payment.ConsentID)
	}
}
