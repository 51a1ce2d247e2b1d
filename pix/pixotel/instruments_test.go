package pixotel_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"pixretry/pix"
	"pixretry/retry"
)

// TestInstruments holds every instrument to the package doc's table: its name, kind, unit,
// description and buckets, in the scope pixretry/pix/pixotel with semantic conventions'
// schema. Each Observer method runs once, so that each instrument has a point.
func TestInstruments(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	if err := r.obs.ObserveQuota("psp", &retry.Quota{}); err != nil {
		t.Fatal(err)
	}
	a := pix.Attempt{Number: 1, Method: http.MethodPost, Outcome: pix.OutcomeTransient, QuotaGranted: true}
	r.obs.AttemptEnded(ctx, a)
	a.Stop = retry.StopQuota
	r.obs.AttemptEnded(ctx, a)
	r.obs.CallEnded(ctx, pix.Call{Kind: pix.CallSend, Outcome: pix.OutcomeCircuitOpen})
	r.obs.CallEnded(ctx, pix.Call{Kind: pix.CallLookup, Outcome: pix.OutcomeLookupNone})
	r.obs.BreakerStateChanged(ctx, "psp", "closed", "open")
	r.obs.KeyRotated(ctx, "key-1", "key-2")

	var rm metricdata.ResourceMetrics
	if err := r.reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	var got []string
	bounds := []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			got = append(got, fmt.Sprintf("%s %s %s %T %q", sm.Scope.Name, sm.Scope.SchemaURL, m.Name, m.Data, m.Unit+" "+m.Description))
			if h, ok := m.Data.(metricdata.Histogram[float64]); ok && !cmp.Equal(h.DataPoints[0].Bounds, bounds) {
				t.Errorf("%s has buckets %v, want %v", m.Name, h.DataPoints[0].Bounds, bounds)
			}
		}
	}
	const scope = "pixretry/pix/pixotel https://opentelemetry.io/schemas/1.40.0 "
	want := []string{
		scope + `pix.payments metricdata.Sum[int64] "{payment} Payments ended: Send, SendWithKey and Resume calls."`,
		scope + `pix.payment.duration metricdata.Histogram[float64] "s Duration of a payment, its waits included."`,
		scope + `pix.attempts metricdata.Sum[int64] "{attempt} Requests sent by payments and lookups."`,
		scope + `http.client.request.duration metricdata.Histogram[float64] "s Duration of HTTP client requests."`,
		scope + `pix.retry.wait metricdata.Histogram[float64] "s Wait before a retry."`,
		scope + `pix.lookups metricdata.Sum[int64] "{lookup} Lookups ended: Lookup calls and Resume's lookups."`,
		scope + `pix.quota.grants metricdata.Sum[int64] "{retry} Retries the quota granted."`,
		scope + `pix.quota.refusals metricdata.Sum[int64] "{retry} Retries the quota refused."`,
		scope + `pix.breaker.refusals metricdata.Sum[int64] "{attempt} Attempts the circuit breaker refused."`,
		scope + `pix.breaker.state_changes metricdata.Sum[int64] "{change} State changes of a circuit breaker."`,
		scope + `pix.key.rotations metricdata.Sum[int64] "{rotation} Keys replaced after a lookup proved nothing paid."`,
		scope + `pix.quota.tokens metricdata.Gauge[float64] "{token} Tokens a retry quota holds."`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("instruments (-want +got):\n%s", diff)
	}
	if spans := r.spans.Ended(); len(spans) != 1 || spans[0].InstrumentationScope().Name != "pixretry/pix/pixotel" {
		t.Errorf("spans ended = %v, want pix.key.rotate in the scope pixretry/pix/pixotel", spans)
	}
}
