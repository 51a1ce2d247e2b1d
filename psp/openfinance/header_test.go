package openfinance_test

import (
	"net/http"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/go-jose/go-jose/v4"
	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
	"pixretry/psp/openfinance"
)

// headersSeen is a handler in front of the core that notes the header fields of each request
// it passes on, as a recorder between the front end and the core does.
type headersSeen struct {
	next http.Handler
	mu   sync.Mutex
	seen []http.Header
}

func (h *headersSeen) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.seen = append(h.seen, r.Header.Clone())
	h.mu.Unlock()
	h.next.ServeHTTP(w, r)
}

// callersHeaders sets on r the fields a caller sends that the front end does not translate,
// and an Idempotency-Key and a Content-Length of the caller's own, which it does.
func callersHeaders(r *http.Request) {
	r.Header.Set("Traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	r.Header.Set("Round-Trip", "7")
	r.Header["X-Caller"] = []string{"a", "b"}
	r.Header.Set("Accept", "application/jwt")
	r.Header.Set("Content-Length", "999")
	r.Header.Set(psp.IdempotencyKeyHeader, "other")
}

// TestRelayedRequestsCarryTheCallersHeaders checks that the Server passes on to the handler in
// front of the core every header field of a payment and of its lookup, as a gateway does, but
// those it translates or owns: Content-Type, Content-Length, x-idempotency-key (relayed as the
// Idempotency-Key), an Idempotency-Key of the caller's, and x-fapi-interaction-id.
func TestRelayedRequestsCarryTheCallersHeaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		seen := &headersSeen{next: b.core}
		of, err := openfinance.New(seen, openfinance.Config{SigningKey: signingKey,
			ClientKeys: []jose.JSONWebKey{clientJWK()}})
		if err != nil {
			t.Fatal(err)
		}
		b.of = of
		consent := b.mustConsent(consentData())
		pay := signedRequest(openfinance.PaymentsPath, "k 1", claimsFor(openfinance.PaymentsPath, paymentData(consent)))
		callersHeaders(pay)
		id := paymentID(t, b.serve(pay))
		get := request(http.MethodGet, openfinance.PaymentsPath+"/"+id, "")
		get.Header.Set("Content-Type", "application/jwt") // of no body: the lookup's has none
		callersHeaders(get)
		if a := b.serve(get); a.status != http.StatusOK {
			t.Fatalf("GET payment = %d %s, want 200", a.status, a.body)
		}
		callers := http.Header{"Authorization": {"Bearer " + token},
			"Traceparent": {"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}, "Round-Trip": {"7"},
			"X-Caller": {"a", "b"}, "Accept": {"application/jwt"}}
		payment := callers.Clone()
		payment.Set("Content-Type", "application/json")
		payment.Set(psp.IdempotencyKeyHeader, "k%201")
		if diff := cmp.Diff([]http.Header{payment, callers}, seen.seen); diff != "" {
			t.Errorf("the core's header fields (-want +got):\n%s", diff)
		}
	})
}
