package pixotel_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"pixretry/pix"
	"pixretry/pix/pixotel"
	"pixretry/psp"
	"pixretry/psp/psptest"
	"pixretry/retry"
)

// noopObserver is an Observer on the no-op providers, with W3C Trace Context.
func noopObserver(tb testing.TB) *pixotel.Observer {
	tb.Helper()
	o, err := pixotel.NewObserver(pixotel.Config{MeterProvider: metricnoop.NewMeterProvider(),
		TracerProvider: tracenoop.NewTracerProvider(), Propagator: propagation.TraceContext{}})
	if err != nil {
		tb.Fatalf("NewObserver() error = %v", err)
	}
	return o
}

// BenchmarkSend measures a payment that settles at once, by a Client with no Observer and by
// one with an Observer on the no-op providers, in the same run. The payment goes through the
// real psp handler, over in-memory pipes to a server, or in the Client's goroutine (no other
// goroutine allocates then, so allocs/op is exact). Both Clients allocate the same.
func BenchmarkSend(b *testing.B) {
	cfg := psp.DefaultConfig()
	cfg.BalanceCents = 1_000_000_000_000
	for _, way := range []string{"pipes", "in process"} {
		for _, bc := range []struct {
			name     string
			observer pix.Observer
		}{
			{"no observer", nil},
			{"noop observer", noopObserver(b)},
		} {
			b.Run(way+"/"+bc.name, func(b *testing.B) {
				srv, err := psptest.NewServer(cfg)
				if err != nil {
					b.Fatal(err)
				}
				defer srv.Close()
				c := srv.Client(retry.Policy{AttemptsMax: 4})
				if way == "in process" {
					c.HTTPClient = &http.Client{Transport: inProcess{srv.Server}}
				}
				c.Observer = bc.observer
				p := pix.Payment{AmountCents: 1, PixKey: "pix@example.com"}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := c.Send(b.Context(), p); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// inProcess is a transport that serves each request with h in the caller's goroutine, so that
// nothing else allocates while allocations are counted.
type inProcess struct{ h http.Handler }

func (t inProcess) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}

// TestNoopObserverAddsNoAllocation: a payment replayed by the real psp handler allocates as
// much with an Observer on the no-op providers as with none. The race detector's runtime
// allocates on its own, so the counts are compared without it only.
func TestNoopObserverAddsNoAllocation(t *testing.T) {
	if race {
		t.Skip("allocation counts vary under the race detector")
	}
	bank, err := psp.NewServer(psp.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	replays := func(o pix.Observer) float64 {
		c := &pix.Client{BaseURL: "http://psp.example", Token: psp.DefaultToken, Policy: retry.Policy{AttemptsMax: 1},
			HTTPClient: &http.Client{Transport: inProcess{bank}}, Observer: o}
		return testing.AllocsPerRun(200, func() {
			if _, err := c.SendWithKey(context.Background(), "order-1", payment); err != nil {
				t.Fatal(err)
			}
		})
	}
	replays(nil) // settles the key: every later call replays it
	without, with := replays(nil), replays(noopObserver(t))
	if with != without {
		t.Errorf("a replay allocates %v times with a no-op Observer, %v times without, want as many", with, without)
	}
}

// TestNoopObserverAllocatesNothing calls every method pix calls, as a payment with a retry
// calls them, and KeyRotated, on an Observer on the no-op providers: none allocates.
func TestNoopObserverAllocatesNothing(t *testing.T) {
	o := noopObserver(t)
	h := http.Header{}
	allocs := testing.AllocsPerRun(100, func() {
		ctx := o.CallStarted(context.Background(), pix.Call{Kind: pix.CallSend, Key: "order-1"})
		a := pix.Attempt{Number: 2, Key: "order-1", Method: http.MethodPost, URL: "http://psp.example/v1/pix/payments",
			ServerAddress: "psp.example", ServerPort: 80}
		actx := o.AttemptStarted(ctx, a)
		o.Inject(actx, h)
		a.Status, a.Outcome, a.QuotaGranted = 503, pix.OutcomeTransient, true
		o.AttemptEnded(actx, a)
		a.Stop = retry.StopQuota
		o.AttemptEnded(actx, a)
		o.CallEnded(ctx, pix.Call{Kind: pix.CallSend, Key: "order-1", Outcome: pix.OutcomeCircuitOpen})
		o.CallEnded(ctx, pix.Call{Kind: pix.CallLookup, Key: "order-1", Outcome: pix.OutcomeLookupNone})
		o.KeyRotated(ctx, "order-1", "order-2")
	})
	if allocs != 0 {
		t.Errorf("the Observer's methods allocate %v times, want 0", allocs)
	}
}
