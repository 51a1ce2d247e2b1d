package main

import (
	encjson "encoding/json" // json is exposure_test.go's media type
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
	"pixretry/psp/openfinance"
)

// TestOpenFinanceAnswersMatchTheDocument produces every answer that the OpenAPI document gives
// the operations tagged openfinance, through a handler that holds each to the document (psp/
// control's tests cannot: package psp/openfinance would bring go-jose into its module).
func TestOpenFinanceAnswersMatchTheDocument(t *testing.T) {
	const consents, payments = openfinance.ConsentsPath, openfinance.PaymentsPath
	type maker = func(*testing.T, *ofBank) *http.Request
	fault := func(f psp.Fault) maker {
		return func(t *testing.T, b *ofBank) *http.Request {
			consent := b.mustConsent(t, "1.00")
			b.core.Inject(f)
			return b.client.request(t, "POST", ofBase, payments, psp.DefaultToken, "k1", paymentData(consent, "1.00"))
		}
	}
	lookupFault := func(f psp.Fault) maker {
		return func(t *testing.T, b *ofBank) *http.Request {
			id := b.mustPay(t, "k1", "1.00")
			b.core.Inject(f.ForLookup())
			return b.client.request(t, "GET", ofBase, payments+"/"+id, psp.DefaultToken, "", nil)
		}
	}
	newConsent := func(t *testing.T, b *ofBank) *http.Request {
		return b.client.request(t, "POST", ofBase, consents, psp.DefaultToken, "c1", consentData("1.00"))
	}
	// altered makes, of a function that makes a request, one that changes the request so.
	altered := func(change func(*http.Request)) func(maker) maker {
		return func(request maker) maker {
			return func(t *testing.T, b *ofBank) *http.Request {
				r := request(t, b)
				change(r)
				return r
			}
		}
	}
	noInteraction := altered(func(r *http.Request) { r.Header.Del("x-fapi-interaction-id") })
	badInteraction := altered(func(r *http.Request) { r.Header.Set("x-fapi-interaction-id", "nope") })
	noToken := altered(func(r *http.Request) { r.Header.Del("Authorization") })
	asJSON := altered(func(r *http.Request) { r.Header.Set("Content-Type", "application/json") })
	noKey := altered(func(r *http.Request) { r.Header.Del("x-idempotency-key") })
	getConsent := func(t *testing.T, b *ofBank) *http.Request {
		return b.client.request(t, "GET", ofBase, consents+"/"+b.mustConsent(t, "1.00"), psp.DefaultToken, "", nil)
	}
	pay := func(t *testing.T, b *ofBank) *http.Request {
		return b.client.request(t, "POST", ofBase, payments, psp.DefaultToken, "k1", paymentData(b.mustConsent(t, "1.00"), "1.00"))
	}
	getPayment := func(t *testing.T, b *ofBank) *http.Request {
		return b.client.request(t, "GET", ofBase, payments+"/"+b.mustPay(t, "k1", "1.00"), psp.DefaultToken, "", nil)
	}
	control := func(path, token, host string) maker {
		return func(t *testing.T, _ *ofBank) *http.Request {
			r, _ := http.NewRequest("GET", ofBase+path, nil)
			r.Host = host
			if token != "" {
				r.Header.Set("Authorization", "Bearer "+token)
			}
			return r
		}
	}
	tests := []struct {
		name    string
		edit    func(*options) // of the options of ofKeyFlags and -control-token ctl
		request maker
		status  int
		code    string // of errors[], if any
	}{
		{"a consent", nil, newConsent, 201, ""},
		{"a consent without x-fapi-interaction-id", nil, noInteraction(newConsent), 400, "PARAMETRO_NAO_INFORMADO"},
		{"a consent without a token", nil, noToken(newConsent), 401, "UNAUTHORIZED"},
		{"a consent of another iss", nil, func(t *testing.T, b *ofBank) *http.Request {
			claims := claimsFor(ofBase+consents, consentData("1.00"))
			claims["iss"] = "someone-else"
			return b.client.signedRequest(t, "POST", ofBase+consents, psp.DefaultToken, "c1", claims)
		}, 403, "INVALID_CLIENT"},
		{"a consent in JSON", nil, asJSON(newConsent), 415, "UNSUPPORTED_MEDIA_TYPE"},
		{"a consent without an amount", nil, func(t *testing.T, b *ofBank) *http.Request {
			data := consentData("1.00")
			delete(data["payment"].(map[string]any), "amount")
			return b.client.request(t, "POST", ofBase, consents, psp.DefaultToken, "c1", data)
		}, 422, "PARAMETRO_NAO_INFORMADO"},
		{"a consent beyond the jtis held", func(o *options) { o.openFinance.MaxJTIs = 1 }, func(t *testing.T, b *ofBank) *http.Request {
			b.mustConsent(t, "1.00")
			return newConsent(t, b)
		}, 529, "SITE_IS_OVERLOADED"},
		{"a consent read", nil, getConsent, 200, ""},
		{"a consent read with a bad x-fapi-interaction-id", nil, badInteraction(getConsent), 400, "PARAMETRO_INVALIDO"},
		{"a consent read without a token", nil, noToken(getConsent), 401, "UNAUTHORIZED"},
		{"an unknown consent", nil, func(t *testing.T, b *ofBank) *http.Request {
			return b.client.request(t, "GET", ofBase, consents+"/urn:pixretry:none", psp.DefaultToken, "", nil)
		}, 404, "NOT_FOUND"},
		{"a payment", nil, pay, 201, ""},
		{"a payment without x-idempotency-key", nil, noKey(pay), 400, "PARAMETRO_NAO_INFORMADO"},
		{"a payment without a token", nil, noToken(pay), 401, "UNAUTHORIZED"},
		{"a payment with a token the PSP does not know", nil, func(t *testing.T, b *ofBank) *http.Request {
			r := b.client.request(t, "POST", ofBase, consents, "unknown", "c1", consentData("1.00"))
			consent := b.serve(t, r).data("consentId")
			return b.client.request(t, "POST", ofBase, payments, "unknown", "k1", paymentData(consent, "1.00"))
		}, 401, "UNAUTHORIZED"},
		{"a payment whose jti was used", nil, func(t *testing.T, b *ofBank) *http.Request {
			claims := claimsFor(ofBase+payments, paymentData(b.mustConsent(t, "1.00"), "1.00"))
			b.serve(t, b.client.signedRequest(t, "POST", ofBase+payments, psp.DefaultToken, "k1", claims))
			return b.client.signedRequest(t, "POST", ofBase+payments, psp.DefaultToken, "k1", claims)
		}, 403, "INVALID_CLIENT"},
		{"a payment in JSON", nil, asJSON(pay), 415, "UNSUPPORTED_MEDIA_TYPE"},
		{"a payment over the balance", nil, func(t *testing.T, b *ofBank) *http.Request {
			consent := b.mustConsent(t, "1500.00")
			return b.client.request(t, "POST", ofBase, payments, psp.DefaultToken, "k1", paymentData(consent, "1500.00"))
		}, 422, "SALDO_INSUFICIENTE"},
		{"a payment with a status fault of 409", nil, fault(psp.Status(409)), 409, "CONFLICT"},
		{"a payment with a status fault of 500", nil, fault(psp.Status(500)), 500, "INTERNAL_SERVER_ERROR"},
		{"a payment with a status fault of 504", nil, fault(psp.Status(504)), 504, "GATEWAY_TIMEOUT"},
		{"a payment with a status fault of 503", nil, fault(psp.Status(503)), 529, "SITE_IS_OVERLOADED"},
		{"a payment with a status fault of 429", nil, fault(psp.Status(429)), 429, "TOO_MANY_REQUESTS"},
		{"a payment with a commit_status fault of 502", nil, fault(psp.CommitStatus(502)), 502, "BAD_GATEWAY"},
		{"a payment read", nil, getPayment, 200, ""},
		{"a payment read without x-fapi-interaction-id", nil, noInteraction(getPayment), 400, "PARAMETRO_NAO_INFORMADO"},
		{"a payment read without a token", nil, noToken(getPayment), 401, "UNAUTHORIZED"},
		{"an unknown payment", nil, func(t *testing.T, b *ofBank) *http.Request {
			return b.client.request(t, "GET", ofBase, payments+"/none", psp.DefaultToken, "", nil)
		}, 404, "NOT_FOUND"},
		{"a payment read with a lookup fault of 409", nil, lookupFault(psp.Status(409)), 409, "CONFLICT"},
		{"a payment read with a lookup fault of 500", nil, lookupFault(psp.Status(500)), 500, "INTERNAL_SERVER_ERROR"},
		{"a payment read with a lookup fault of 504", nil, lookupFault(psp.Status(504)), 504, "GATEWAY_TIMEOUT"},
		{"a payment read with a lookup fault of 503", nil, lookupFault(psp.Status(503)), 529, "SITE_IS_OVERLOADED"},
		{"a payment read with a lookup fault of 410", nil, lookupFault(psp.Status(410)), 410, "GONE"},
		{"a payment read with a lookup fault of 502", nil, lookupFault(psp.Status(502)), 502, "BAD_GATEWAY"},
		{"a path of payments v3", nil, func(t *testing.T, b *ofBank) *http.Request {
			return b.client.request(t, "GET", ofBase, "/open-banking/payments/v3/consents", psp.DefaultToken, "", nil)
		}, 404, "NOT_FOUND"},
		{"PUT of payments", nil, func(t *testing.T, b *ofBank) *http.Request {
			return b.client.request(t, "PUT", ofBase, payments, psp.DefaultToken, "", nil)
		}, 405, "METHOD_NOT_ALLOWED"},
		{"HEAD of a payment", nil, func(t *testing.T, b *ofBank) *http.Request {
			return b.client.request(t, "HEAD", ofBase, payments+"/none", psp.DefaultToken, "", nil)
		}, 405, "METHOD_NOT_ALLOWED"},
		{"the JWKS", nil, control(openfinance.JWKSPath, "ctl", "127.0.0.1:8080"), 200, ""},
		{"the JWKS without the control token", nil, control(openfinance.JWKSPath, "", "127.0.0.1:8080"), 401, ""},
		{"the JWKS for another Host", nil, control(openfinance.JWKSPath, "ctl", "rebound.example"), 403, ""},
		{"the client key given in a file", nil, control(openfinance.ClientKeyPath, "ctl", "127.0.0.1:8080"), 404, ""},
		{"the client key made at start", func(o *options) { o.openFinance.ClientKeysFile = "" },
			control(openfinance.ClientKeyPath, "ctl", "127.0.0.1:8080"), 200, ""},
		{"the client key without the control token", nil, control(openfinance.ClientKeyPath, "", "127.0.0.1:8080"), 401, ""},
		{"the client key for another Host", nil, control(openfinance.ClientKeyPath, "ctl", "rebound.example"), 403, ""},
		{"the JWKS with the control API off", func(o *options) { o.addr = "0.0.0.0:8080"; o.controlToken = "" },
			control(openfinance.JWKSPath, "", "127.0.0.1:8080"), 404, "NOT_FOUND"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := mustOFBank(t, tt.edit, "-control-token", "ctl")
			a := b.serve(t, tt.request(t, b))
			if a.status != tt.status || a.code() != tt.code {
				t.Errorf("%s = %d %s, want %d %s", tt.name, a.status, a.body, tt.status, tt.code)
			}
		})
	}
}

// TestOpenAPIDocumentListsTheOpenFinanceRoutes: the operations tagged openfinance are the paths
// that -dialect openfinance serves, each with the methods its 405 allows (psp/control's
// TestOpenAPIDocumentListsEveryRoute checks the others).
func TestOpenAPIDocumentListsTheOpenFinanceRoutes(t *testing.T) {
	data, err := os.ReadFile("../../psp/control/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Tags []string `json:"tags"`
		} `json:"paths"`
	}
	if err := encjson.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	documented := map[string]string{}
	for path, item := range doc.Paths {
		for method, op := range item {
			if slices.Contains(op.Tags, "openfinance") {
				documented[path] = strings.Join(slices.Sorted(slices.Values(append(strings.Fields(documented[path]),
					strings.ToUpper(method)))), " ")
			}
		}
	}
	b := mustOFBank(t, nil, "-control-token", "ctl")
	served := map[string]string{}
	for _, path := range []string{openfinance.ConsentsPath, openfinance.ConsentsPath + "/{consentId}", openfinance.PaymentsPath,
		openfinance.PaymentsPath + "/{paymentId}", openfinance.JWKSPath, openfinance.ClientKeyPath} {
		r := b.client.request(t, "PATCH", ofBase, path, psp.DefaultToken, "", nil)
		r.Header.Set("Authorization", "Bearer ctl") // for the keys; the API's 405 comes before the token
		served[path] = b.serve(t, r).header.Get("Allow")
	}
	if diff := cmp.Diff(served, documented); diff != "" {
		t.Errorf("paths and methods mismatch (-served +documented):\n%s", diff)
	}
}
