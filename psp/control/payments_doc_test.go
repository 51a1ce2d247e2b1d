package control_test

import (
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"pixretry/psp"
)

// TestPaymentRefusalsMatchTheDocument sends the payment and lookup requests the double refuses
// through its control handler, where openapitest holds every answer to the OpenAPI document:
// psp's own tests, in the core module, cannot import the document's validator.
func TestPaymentRefusalsMatchTheDocument(t *testing.T) {
	tests := []struct {
		name   string
		fault  psp.Fault // queued before the request, if it has a Kind
		r      func() *http.Request
		status int
		code   string
	}{
		{"a payment without a token", psp.Fault{}, func() *http.Request {
			r := paymentRequest("k1", validBody)
			r.Header.Del("Authorization")
			return r
		}, 401, "unauthorized"},
		{"a payment over 64 KiB", psp.Fault{}, func() *http.Request {
			return paymentRequest("k1", `{"valor":"1.00","chave":"`+strings.Repeat("a", psp.MaxBodyBytes)+`"}`)
		}, 413, "payload_too_large"},
		{"a payment of text", psp.Fault{}, func() *http.Request {
			r := paymentRequest("k1", validBody)
			r.Header.Set("Content-Type", "text/plain")
			return r
		}, 415, "unsupported_media_type"},
		{"a payment that meets a status fault of 418", psp.Status(418), func() *http.Request {
			return paymentRequest("k1", validBody)
		}, 418, "injected_fault"},
		{"a lookup of a malformed key", psp.Fault{}, func() *http.Request {
			r, _ := http.NewRequest(http.MethodGet, psp.PaymentsPath+"?"+psp.LookupParam+"=%20", nil)
			r.Header.Set("Authorization", "Bearer "+token)
			return r
		}, 400, "idempotency_key_invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := mustBank(t)
			if tt.fault.Kind != "" {
				b.Inject(tt.fault)
			}
			wantProblem(t, serve(b, tt.r()), tt.status, tt.code)
		})
	}
}

// TestLookupOfAKeyInFlightMatchesTheDocument: a lookup while the key's payment is in flight
// answers 409, as the document says.
func TestLookupOfAKeyInFlightMatchesTheDocument(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t)
		b.Inject(psp.Slow(time.Second))
		paid := make(chan answer)
		go func() { paid <- pay(b, "k1", validBody) }()
		synctest.Wait() // the payment holds its key, asleep in its fault
		wantProblem(t, lookUp(b, "k1"), 409, "idempotency_key_in_use")
		wantSettled(t, <-paid)
	})
}
