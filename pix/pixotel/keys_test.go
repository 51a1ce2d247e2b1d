package pixotel_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"

	"pixretry/pix"
)

// TestLookupsAndCallersKeys: a payment under the caller's key, a Lookup that finds it, and a
// Resume of a key never sent, which a lookup proves paid nothing. That proof is an answer, so
// neither the lookup's span nor Resume's is an error.
func TestLookupsAndCallersKeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		if _, err := r.client.SendWithKey(t.Context(), "order-1", payment); err != nil {
			t.Fatal(err)
		}
		if _, err := r.client.Lookup(t.Context(), "order-1"); err != nil {
			t.Fatal(err)
		}
		if _, err := r.client.Resume(t.Context(), &pix.OutcomeUnknownError{Key: "order-2"}, payment); !errors.Is(err, pix.ErrNoSettlement) {
			t.Fatalf("Resume() error = %v, want ErrNoSettlement", err)
		}
		want := []string{
			"http.client.request.duration{error.type=404," + get + ",http.response.status_code=404," + pipe + "} count=1 sum=0",
			"http.client.request.duration{" + get + ",http.response.status_code=200," + pipe + "} count=1 sum=0",
			"http.client.request.duration{" + post + ",http.response.status_code=201," + pipe + "} count=1 sum=0",
			"pix.attempts{http.request.method=GET,outcome=lookup_found} 1",
			"pix.attempts{http.request.method=GET,outcome=lookup_none} 1",
			"pix.attempts{http.request.method=POST,outcome=settled} 1",
			"pix.lookups{outcome=lookup_found} 1",
			"pix.lookups{outcome=lookup_none} 1",
			"pix.payment.duration{outcome=lookup_none,pix.call=resume} count=1 sum=0",
			"pix.payment.duration{outcome=settled,pix.call=send_with_key} count=1 sum=0",
			"pix.payments{outcome=lookup_none,pix.call=resume} 1",
			"pix.payments{outcome=settled,pix.call=send_with_key} 1",
		}
		if diff := cmp.Diff(want, r.points(t)); diff != "" {
			t.Errorf("metric points (-want +got):\n%s", diff)
		}
		wantSpans := []string{
			"POST client in pix.send_with_key: http.response.status_code=201,outcome=settled,pix.attempt=1,pix.retry.stop=success",
			"pix.send_with_key internal: outcome=settled",
			"GET client in pix.lookup: http.response.status_code=200,outcome=lookup_found,pix.attempt=1,pix.retry.stop=success",
			"pix.lookup internal: outcome=lookup_found",
			"GET client in pix.lookup: error.type=404,http.response.status_code=404,outcome=lookup_none,pix.attempt=1,pix.retry.stop=permanent [Error]",
			"pix.lookup internal in pix.resume: outcome=lookup_none",
			"pix.resume internal: outcome=lookup_none",
		}
		if diff := cmp.Diff(wantSpans, r.spanLines(perRequest...)); diff != "" {
			t.Errorf("spans (-want +got):\n%s", diff)
		}
	})
}

// TestKeyRotatedAndBreakerChanges: a key rotation is counted and is a span of its own, a child
// of the caller's; a breaker's change is counted and is an event on the caller's span.
func TestKeyRotatedAndBreakerChanges(t *testing.T) {
	r := newRig(t)
	ctx, parent := r.tp.Tracer("test").Start(context.Background(), "work")
	r.obs.KeyRotated(ctx, "key-1", "key-2")
	r.obs.BreakerStateChanged(ctx, "psp", "open", "half-open")
	parent.End()

	want := []string{
		"pix.breaker.state_changes{pix.breaker.from=open,pix.breaker.name=psp,pix.breaker.to=half-open} 1",
		"pix.key.rotations 1",
	}
	if diff := cmp.Diff(want, r.points(t)); diff != "" {
		t.Errorf("metric points (-want +got):\n%s", diff)
	}
	wantSpans := []string{
		"pix.key.rotate internal in work: pix.idempotency_key=key-2,pix.idempotency_key.previous=key-1",
		"work internal: ",
	}
	if diff := cmp.Diff(wantSpans, r.spanLines()); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	var events []string
	for _, e := range r.spans.Ended()[1].Events() {
		events = append(events, e.Name+" "+braced(attribute.NewSet(e.Attributes...)))
	}
	wantEvents := []string{"pix.breaker.state_change {pix.breaker.from=open,pix.breaker.name=psp,pix.breaker.to=half-open}"}
	if diff := cmp.Diff(wantEvents, events); diff != "" {
		t.Errorf("events of the caller's span (-want +got):\n%s", diff)
	}
}
