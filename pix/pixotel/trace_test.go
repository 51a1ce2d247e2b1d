package pixotel_test

import (
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/trace"

	"pixretry/pix"
	"pixretry/psp"
)

// TestEachRequestCarriesItsAttemptsSpan: the traceparent the PSP's journal received with each
// request names the trace and the span of the attempt that sent it, for the payment's POSTs
// and for Resume's GET alike.
func TestEachRequestCarriesItsAttemptsSpan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, psp.Drop(), psp.Status(503), psp.Status(503), psp.Status(503))
		r.client.KeyTTL = 10 * time.Second
		_, err := r.client.Send(t.Context(), payment)
		unknown, ok := errors.AsType[*pix.OutcomeUnknownError](err)
		if !ok {
			t.Fatalf("Send() error = %v, want an OutcomeUnknownError", err)
		}
		time.Sleep(10 * time.Second)
		if _, err := r.client.Resume(t.Context(), unknown, payment); err != nil {
			t.Fatalf("Resume() error = %v", err)
		}
		var want []string
		for _, s := range r.spans.Ended() {
			if s.SpanKind() == trace.SpanKindClient {
				want = append(want, "00-"+s.SpanContext().TraceID().String()+"-"+s.SpanContext().SpanID().String()+"-01")
			}
		}
		var got []string
		requests, _ := r.srv.Requests(psp.RequestFilter{})
		for _, req := range requests {
			got = append(got, req.Traceparent)
		}
		if len(want) != 5 {
			t.Fatalf("%d attempt spans ended, want 5", len(want))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("traceparents the PSP received (-the attempts' spans +got):\n%s", diff)
		}
	})
}

// TestAttemptSpanNamesItsRequest pins every attribute of a retry's span: the request's method,
// URL and server, the key, and the resend count.
func TestAttemptSpanNamesItsRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, psp.Status(503))
		if _, err := r.client.Send(t.Context(), payment); err != nil {
			t.Fatal(err)
		}
		got := r.spanLines()
		key := r.keyOf(t)
		want := []string{
			"POST client in pix.send: error.type=503,http.request.method=POST,http.response.status_code=503,outcome=transient," +
				"pix.attempt=1,pix.idempotency_key=KEY,pix.retry.wait=0.025,server.address=pipe,server.port=80," +
				"url.full=http://pipe/v1/pix/payments [Error]",
			"POST client in pix.send: http.request.method=POST,http.request.resend_count=1,http.response.status_code=201," +
				"outcome=settled,pix.attempt=2,pix.idempotency_key=KEY,pix.retry.stop=success,server.address=pipe," +
				"server.port=80,url.full=http://pipe/v1/pix/payments",
			"pix.send internal: outcome=settled,pix.idempotency_key=KEY",
		}
		for i := range got {
			got[i] = strings.ReplaceAll(got[i], key, "KEY")
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("spans (-want +got):\n%s", diff)
		}
	})
}
