package pixotel_test

import (
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
)

// TestAwaitIsAPaymentCall: Await counts in pix.payments and pix.payment.duration as
// pix.call=await, its looks count as GET attempts, and its span is pix.await, the parent of
// theirs.
func TestAwaitIsAPaymentCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		if _, err := r.client.SendWithKey(t.Context(), "order-1", payment); err != nil {
			t.Fatal(err)
		}
		r.srv.Inject(psp.Status(503).ForLookup())
		if _, err := r.client.Await(t.Context(), "order-1"); err != nil {
			t.Fatalf("Await() error = %v", err)
		}
		want := []string{
			"http.client.request.duration{error.type=503," + get + ",http.response.status_code=503," + pipe + "} count=1 sum=0",
			"http.client.request.duration{" + get + ",http.response.status_code=200," + pipe + "} count=1 sum=0",
			"http.client.request.duration{" + post + ",http.response.status_code=201," + pipe + "} count=1 sum=0",
			"pix.attempts{http.request.method=GET,outcome=lookup_found} 1",
			"pix.attempts{http.request.method=GET,outcome=transient} 1",
			"pix.attempts{http.request.method=POST,outcome=settled} 1",
			"pix.payment.duration{outcome=lookup_found,pix.call=await} count=1 sum=0.025",
			"pix.payment.duration{outcome=settled,pix.call=send_with_key} count=1 sum=0",
			"pix.payments{outcome=lookup_found,pix.call=await} 1",
			"pix.payments{outcome=settled,pix.call=send_with_key} 1",
			"pix.retry.wait{http.request.method=GET} count=1 sum=0.025",
		}
		if diff := cmp.Diff(want, r.points(t)); diff != "" {
			t.Errorf("metric points (-want +got):\n%s", diff)
		}
		wantSpans := []string{
			"POST client in pix.send_with_key: http.response.status_code=201,outcome=settled,pix.attempt=1,pix.retry.stop=success",
			"pix.send_with_key internal: outcome=settled",
			"GET client in pix.await: error.type=503,http.response.status_code=503,outcome=transient,pix.attempt=1,pix.retry.wait=0.025 [Error]",
			"GET client in pix.await: http.request.resend_count=1,http.response.status_code=200,outcome=lookup_found,pix.attempt=2,pix.retry.stop=success",
			"pix.await internal: outcome=lookup_found",
		}
		if diff := cmp.Diff(wantSpans, r.spanLines(perRequest...)); diff != "" {
			t.Errorf("spans (-want +got):\n%s", diff)
		}
	})
}
