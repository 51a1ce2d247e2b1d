package durableotel_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"pixretry/durable"
	"pixretry/psp"
)

// workCount is a point of otelriver's river.work_count: n attempts of a payment job, numbered
// attempt, that ended with status, and with extra attributes (cancel or snooze).
func workCount(attempt int, status string, n int64, extra ...attribute.KeyValue) metricdata.DataPoint[int64] {
	attrs := append([]attribute.KeyValue{attribute.Int("attempt", attempt), attribute.String("kind", "pix_payment"),
		attribute.Int("priority", 1), attribute.String("queue", "default"), attribute.String("status", status),
		attribute.StringSlice("tag", []string{})}, extra...)
	return metricdata.DataPoint[int64]{Attributes: attribute.NewSet(attrs...), Value: n}
}

// riverCount is otelriver's counter name, in {job}, with points.
func riverCount(name, description string, points ...metricdata.DataPoint[int64]) metricdata.Metrics {
	return metricdata.Metrics{Name: name, Description: description, Unit: "{job}",
		Data: metricdata.Sum[int64]{Temporality: metricdata.CumulativeTemporality, IsMonotonic: true, DataPoints: points}}
}

// Three intents: one settled at once, one refused, and one whose first attempt leaves its
// outcome unknown (the PSP settles, then answers 503), snoozed, then settled. The metrics
// count them exactly, River's among them.
func TestMetricsOfPaidIntents(t *testing.T) {
	t.Parallel()
	srv := mustPSP(t)
	reader, ocfg := mustReader(t)
	p := mustPayer(t, dbPath(t), payerConfig(srv.Client(policy), mustMiddleware(t, ocfg)))
	mustObserve(t, p, ocfg)
	srv.Inject(psp.CommitStatus(503)) // one worker: the first intent's first attempt takes it
	stored := map[string]durable.Intent{}
	for i, cents := range []int64{12_345, refusedCents, 23_456} {
		id := fmt.Sprintf("order-%d", i+1)
		in, err := p.Pay(context.Background(), id, payment(cents))
		if err != nil {
			t.Fatal(err)
		}
		stored[id] = in
	}
	got := metricsOf(collect(t, reader), durableScope)
	metricdatatest.AssertEqual(t, intentsWant(3, 0, 0, 0), got["durable.intents"], metricdatatest.IgnoreTimestamp())

	mustWork(t, p)
	rm := collect(t, reader)
	got = metricsOf(rm, durableScope)
	for _, want := range []metricdata.Metrics{
		intentsWant(0, 0, 2, 1),
		ageWant(0),
		attemptsWant(map[string]int64{"settled": 2, "refused": 1, "snoozed": 1}),
		snoozesWant(1),
	} {
		metricdatatest.AssertEqual(t, want, got[want.Name], metricdatatest.IgnoreTimestamp())
	}
	river := metricsOf(rm, riverScope)
	metricdatatest.AssertEqual(t, riverCount("river.work_count", "Number of jobs worked",
		workCount(1, "ok", 2), workCount(1, "ok", 1, attribute.Bool("snooze", true)),
		workCount(1, "error", 1, attribute.Bool("cancel", true))),
		river["river.work_count"], metricdatatest.IgnoreTimestamp())
	metricdatatest.AssertEqual(t, riverCount("river.insert_count", "Number of jobs inserted",
		metricdata.DataPoint[int64]{Value: 3, Attributes: attribute.NewSet(attribute.String("status", "ok"),
			attribute.Bool("unique_skipped_as_duplicate", false))}),
		river["river.insert_count"], metricdatatest.IgnoreTimestamp())
	if n := len(srv.Settlements()); n != 2 {
		t.Errorf("the PSP settled %d payments, want 2", n)
	}
	checkNoPaymentInAttributes(t, rm, stored)
}

// allowedAttributes are the keys of every metric attribute: none names a payment.
var allowedAttributes = []attribute.Key{"durable.job.outcome", "durable.intent.status",
	"attempt", "kind", "priority", "queue", "status", "tag", "cancel", "snooze", "unique_skipped_as_duplicate"}

// checkNoPaymentInAttributes holds every attribute of rm to allowedAttributes, and no value
// to an id, a key, a Pix key or an amount of the intents stored.
func checkNoPaymentInAttributes(t *testing.T, rm metricdata.ResourceMetrics, stored map[string]durable.Intent) {
	t.Helper()
	secret := map[string]bool{}
	for id, in := range stored {
		secret[id], secret[in.Key], secret[in.Payment.PixKey] = true, true, true
		secret[strconv.FormatInt(in.Payment.AmountCents, 10)] = true
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			for _, set := range attributeSets(m.Data) {
				for _, kv := range set.ToSlice() {
					if !slices.Contains(allowedAttributes, kv.Key) || secret[kv.Value.String()] {
						t.Errorf("metric %s has the attribute %s=%s, want only %v and no payment's data",
							m.Name, kv.Key, kv.Value.String(), allowedAttributes)
					}
				}
			}
		}
	}
}

// attributeSets returns the attribute sets of every point of data.
func attributeSets(data metricdata.Aggregation) []attribute.Set {
	var sets []attribute.Set
	switch d := data.(type) {
	case metricdata.Sum[int64]:
		for _, p := range d.DataPoints {
			sets = append(sets, p.Attributes)
		}
	case metricdata.Sum[float64]:
		for _, p := range d.DataPoints {
			sets = append(sets, p.Attributes)
		}
	case metricdata.Gauge[int64]:
		for _, p := range d.DataPoints {
			sets = append(sets, p.Attributes)
		}
	case metricdata.Gauge[float64]:
		for _, p := range d.DataPoints {
			sets = append(sets, p.Attributes)
		}
	case metricdata.Histogram[int64]:
		for _, p := range d.DataPoints {
			sets = append(sets, p.Attributes)
		}
	case metricdata.Histogram[float64]:
		for _, p := range d.DataPoints {
			sets = append(sets, p.Attributes)
		}
	default:
		panic(fmt.Sprintf("attributeSets: aggregation %T", data))
	}
	return sets
}
