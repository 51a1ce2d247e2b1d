package efi_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
	"pixretry/psp/efi"
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
// and those it does: a Content-Length and an Idempotency-Key of the caller's own.
func callersHeaders(r *http.Request) {
	r.Header.Set("Traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	r.Header.Set("Round-Trip", "7")
	r.Header["X-Caller"] = []string{"a", "b"}
	r.Header.Set("Accept", "application/json")
	r.Header.Set("Content-Length", "999")
	r.Header.Set(psp.IdempotencyKeyHeader, "other")
}

// TestRelayedRequestsCarryTheCallersHeaders checks that the front end passes on to the
// handler in front of the core every header field of a PUT and of a lookup, as a gateway
// does, but those it translates: Content-Type, Content-Length and Idempotency-Key.
func TestRelayedRequestsCarryTheCallersHeaders(t *testing.T) {
	s := mustServer(t)
	seen := &headersSeen{next: s}
	h := efi.NewHandler(seen)
	put := putRequest("abc", payout)
	put.Header.Set("Content-Type", "application/json; charset=utf-8")
	callersHeaders(put)
	if got := serve(h, put); got.status != http.StatusCreated {
		t.Fatalf("PUT = %d %s, want 201", got.status, got.body)
	}
	get := httptest.NewRequest(http.MethodGet, efi.LookupPath+"abc", nil)
	get.Header.Set("Authorization", "Bearer "+psp.DefaultToken)
	get.Header.Set("Content-Type", "application/json") // of no body: the lookup's has none
	callersHeaders(get)
	if got := serve(h, get); got.status != http.StatusOK {
		t.Fatalf("GET = %d %s, want 200", got.status, got.body)
	}
	callers := http.Header{"Authorization": {"Bearer " + psp.DefaultToken},
		"Traceparent": {"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}, "Round-Trip": {"7"},
		"X-Caller": {"a", "b"}, "Accept": {"application/json"}}
	payment := callers.Clone()
	payment.Set("Content-Type", "application/json")
	payment.Set(psp.IdempotencyKeyHeader, "abc")
	if diff := cmp.Diff([]http.Header{payment, callers}, seen.seen); diff != "" {
		t.Errorf("the core's header fields (-want +got):\n%s", diff)
	}
}

// TestRelayedRequestsReachTheCoreThroughAHandler checks that a handler in front of the core
// sees the requests relayed and passes the core's answers back: here a gateway that answers
// the first request itself.
func TestRelayedRequestsReachTheCoreThroughAHandler(t *testing.T) {
	s := mustServer(t)
	first := true
	gateway := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if first {
			first = false
			w.Header().Set("Retry-After", "3")
			http.Error(w, "gateway: busy", http.StatusServiceUnavailable)
			return
		}
		s.ServeHTTP(w, r)
	})
	h := efi.NewHandler(gateway)
	busy := put(h, "abc", payout)
	want := `{"type":"https://pix.bcb.gov.br/api/v2/error/ServicoIndisponivel","title":"Service Unavailable",` +
		`"status":503,"detail":"a proxy in front of the PSP answered 503"}` + "\n"
	if busy.status != http.StatusServiceUnavailable || busy.header.Get("Retry-After") != "3" || busy.body != want {
		t.Errorf("PUT through a busy gateway = %d %v %s, want 503 %s with Retry-After 3", busy.status, busy.header,
			busy.body, want)
	}
	if got := put(h, "abc", payout); got.status != http.StatusCreated || len(s.Settlements()) != 1 {
		t.Errorf("PUT through the gateway = %d %s with %d settlements, want 201 and 1", got.status, got.body,
			len(s.Settlements()))
	}
}
