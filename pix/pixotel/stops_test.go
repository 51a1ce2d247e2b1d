package pixotel_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sony/gobreaker/v2"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

var payment = pix.Payment{AmountCents: 15000, PixKey: "pix@example.com", Description: "aluguel"}

// TestQuotaStopsAPayment: a quota of one token and no refill grants the retry after the first
// 503 and refuses the one after the second. The payment ends quota_empty, and the gauge shows
// the quota empty.
func TestQuotaStopsAPayment(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, psp.Status(503), psp.Status(503), psp.Status(503))
		q, err := retry.NewQuota(0, 1)
		if err != nil {
			t.Fatal(err)
		}
		r.client.Quota = q
		if err := r.obs.ObserveQuota("psp", q); err != nil {
			t.Fatalf("ObserveQuota() error = %v", err)
		}
		if _, err := r.client.Send(t.Context(), payment); !errors.Is(err, retry.ErrQuotaExhausted) {
			t.Fatalf("Send() error = %v, want ErrQuotaExhausted", err)
		}
		want := []string{
			"http.client.request.duration{error.type=503," + post + ",http.response.status_code=503," + pipe + "} count=2 sum=0",
			"pix.attempts{http.request.method=POST,outcome=transient} 2",
			"pix.payment.duration{outcome=quota_empty,pix.call=send} count=1 sum=0.025",
			"pix.payments{outcome=quota_empty,pix.call=send} 1",
			"pix.quota.grants 1",
			"pix.quota.refusals 1",
			"pix.quota.tokens{pix.quota.name=psp} 0",
			"pix.retry.wait{http.request.method=POST} count=1 sum=0.025",
		}
		if diff := cmp.Diff(want, r.points(t)); diff != "" {
			t.Errorf("metric points (-want +got):\n%s", diff)
		}
		wantSpans := []string{
			"POST client in pix.send: error.type=503,http.response.status_code=503,outcome=transient,pix.attempt=1,pix.retry.wait=0.025 [Error]",
			"POST client in pix.send: error.type=503,http.request.resend_count=1,http.response.status_code=503,outcome=transient,pix.attempt=2,pix.retry.stop=quota [Error]",
			"pix.send internal: outcome=quota_empty [Error]",
		}
		if diff := cmp.Diff(wantSpans, r.spanLines(perRequest...)); diff != "" {
			t.Errorf("spans (-want +got):\n%s", diff)
		}
	})
}

// TestBreakerStopsAPayment: a gobreaker two-step breaker that opens after two failures in a row
// reports its change through OnStateChange, and refuses the third attempt. The payment ends
// circuit_open after its two waits.
func TestBreakerStopsAPayment(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, psp.Status(503), psp.Status(503))
		r.client.Breaker = gobreaker.NewTwoStepCircuitBreaker[pix.Receipt](gobreaker.Settings{
			Name:        "psp",
			Timeout:     time.Minute,
			ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= 2 },
			OnStateChange: func(name string, from, to gobreaker.State) {
				r.obs.BreakerStateChanged(context.Background(), name, from.String(), to.String())
			},
		})
		if _, err := r.client.Send(t.Context(), payment); !errors.Is(err, pix.ErrCircuitOpen) {
			t.Fatalf("Send() error = %v, want ErrCircuitOpen", err)
		}
		want := []string{
			"http.client.request.duration{error.type=503," + post + ",http.response.status_code=503," + pipe + "} count=2 sum=0",
			"pix.attempts{http.request.method=POST,outcome=transient} 2",
			"pix.breaker.refusals 1",
			"pix.breaker.state_changes{pix.breaker.from=closed,pix.breaker.name=psp,pix.breaker.to=open} 1",
			"pix.payment.duration{outcome=circuit_open,pix.call=send} count=1 sum=0.075",
			"pix.payments{outcome=circuit_open,pix.call=send} 1",
			"pix.retry.wait{http.request.method=POST} count=2 sum=0.075",
		}
		if diff := cmp.Diff(want, r.points(t)); diff != "" {
			t.Errorf("metric points (-want +got):\n%s", diff)
		}
		wantSpans := []string{
			"POST client in pix.send: error.type=503,http.response.status_code=503,outcome=transient,pix.attempt=1,pix.retry.wait=0.025 [Error]",
			"POST client in pix.send: error.type=503,http.request.resend_count=1,http.response.status_code=503,outcome=transient,pix.attempt=2,pix.retry.wait=0.05 [Error]",
			"pix.send internal: outcome=circuit_open [Error]",
		}
		if diff := cmp.Diff(wantSpans, r.spanLines(perRequest...)); diff != "" {
			t.Errorf("spans (-want +got):\n%s", diff)
		}
	})
}

// TestExpiredKeyIsLookedUp: the first attempt settles and loses its answer, and three 503s
// spend the budget, so the outcome is unknown. Ten seconds later the key deadline (KeyTTL 10 s
// less a tenth) has passed, and Resume looks the key up and finds the settlement.
func TestExpiredKeyIsLookedUp(t *testing.T) {
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
		want := []string{
			"http.client.request.duration{error.type=503," + post + ",http.response.status_code=503," + pipe + "} count=3 sum=0",
			"http.client.request.duration{error.type=transport," + post + "," + pipe + "} count=1 sum=0",
			"http.client.request.duration{" + get + ",http.response.status_code=200," + pipe + "} count=1 sum=0",
			"pix.attempts{http.request.method=GET,outcome=lookup_found} 1",
			"pix.attempts{http.request.method=POST,outcome=transient} 4",
			"pix.lookups{outcome=lookup_found} 1",
			"pix.payment.duration{outcome=lookup_found,pix.call=resume} count=1 sum=0",
			"pix.payment.duration{outcome=unknown,pix.call=send} count=1 sum=0.175",
			"pix.payments{outcome=lookup_found,pix.call=resume} 1",
			"pix.payments{outcome=unknown,pix.call=send} 1",
			"pix.retry.wait{http.request.method=POST} count=3 sum=0.175",
		}
		if diff := cmp.Diff(want, r.points(t)); diff != "" {
			t.Errorf("metric points (-want +got):\n%s", diff)
		}
		wantSpans := []string{
			"POST client in pix.send: error.type=transport,outcome=transient,pix.attempt=1,pix.retry.wait=0.025 [Error]",
			"POST client in pix.send: error.type=503,http.request.resend_count=1,http.response.status_code=503,outcome=transient,pix.attempt=2,pix.retry.wait=0.05 [Error]",
			"POST client in pix.send: error.type=503,http.request.resend_count=2,http.response.status_code=503,outcome=transient,pix.attempt=3,pix.retry.wait=0.1 [Error]",
			"POST client in pix.send: error.type=503,http.request.resend_count=3,http.response.status_code=503,outcome=transient,pix.attempt=4,pix.retry.stop=budget [Error]",
			"pix.send internal: outcome=unknown [Error]",
			"GET client in pix.lookup: http.response.status_code=200,outcome=lookup_found,pix.attempt=1,pix.retry.stop=success",
			"pix.lookup internal in pix.resume: outcome=lookup_found",
			"pix.resume internal: outcome=lookup_found",
		}
		if diff := cmp.Diff(wantSpans, r.spanLines(perRequest...)); diff != "" {
			t.Errorf("spans (-want +got):\n%s", diff)
		}
	})
}

// TestResumesResendCountsOnce: Resume of a key the PSP still remembers resends the payment
// under it. The resend is part of Resume's payment: pix.payments counts Resume once, and the
// resend neither.
func TestResumesResendCountsOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, psp.Drop(), psp.Status(503), psp.Status(503), psp.Status(503))
		_, err := r.client.Send(t.Context(), payment)
		unknown, ok := errors.AsType[*pix.OutcomeUnknownError](err)
		if !ok {
			t.Fatalf("Send() error = %v, want an OutcomeUnknownError", err)
		}
		if _, err := r.client.Resume(t.Context(), unknown, payment); err != nil {
			t.Fatalf("Resume() error = %v", err)
		}
		var got []string
		for _, p := range r.points(t) {
			if strings.HasPrefix(p, "pix.payments{") || strings.HasPrefix(p, "pix.payments ") {
				got = append(got, p)
			}
		}
		want := []string{
			"pix.payments{outcome=replayed,pix.call=resume} 1",
			"pix.payments{outcome=unknown,pix.call=send} 1",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("pix.payments points (-want +got):\n%s", diff)
		}
	})
}
