package durableotel_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"pixretry/durable"
	"pixretry/durable/durableotel"
	"pixretry/durable/durablesqlite"
)

// In virtual time: an intent stored 75 minutes ago is overdue past a MaxAge of an hour, one
// stored 45 minutes ago is pending, and the oldest pending age is the older one's, overdue or
// not. Once unregistered, the gauges report nothing.
func TestObservePayerReportsTheOldestPendingAge(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		reader, cfg := mustReader(t)
		db, err := durablesqlite.Open(dbPath(t))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		p, err := durable.New(context.Background(), durablesqlite.New(db), durable.Config{MaxAge: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		unregister, err := durableotel.ObservePayer(p, cfg)
		if err != nil {
			t.Fatal(err)
		}
		checkGauges(t, reader, intentsWant(0, 0, 0, 0), ageWant(0))
		mustPayNow(t, p, "order-1")
		time.Sleep(30 * time.Minute)
		mustPayNow(t, p, "order-2")
		time.Sleep(45 * time.Minute)
		checkGauges(t, reader, intentsWant(1, 1, 0, 0), ageWant(75*time.Minute))

		if err := unregister(); err != nil {
			t.Fatalf("unregister() error = %v", err)
		}
		if got := metricsOf(collect(t, reader), durableScope); len(got) != 0 {
			t.Errorf("metrics after unregister() = %v, want none", got)
		}
	})
}

// mustPayNow stores a payment under id.
func mustPayNow(tb testing.TB, p *durable.Payer[*sql.Tx], id string) {
	tb.Helper()
	if _, err := p.Pay(context.Background(), id, payment(100)); err != nil {
		tb.Fatalf("Pay(%q) error = %v", id, err)
	}
}

// checkGauges collects reader and holds ObservePayer's gauges to want.
func checkGauges(t *testing.T, reader *sdkmetric.ManualReader, want ...metricdata.Metrics) {
	t.Helper()
	got := metricsOf(collect(t, reader), durableScope)
	for _, w := range want {
		metricdatatest.AssertEqual(t, w, got[w.Name], metricdatatest.IgnoreTimestamp())
	}
}

// A Stats that fails fails the collection with its error, and reports no gauge.
func TestObservePayerReportsAFailedStats(t *testing.T) {
	t.Parallel()
	reader, cfg := mustReader(t)
	db, err := durablesqlite.Open(dbPath(t))
	if err != nil {
		t.Fatal(err)
	}
	p, err := durable.New(context.Background(), durablesqlite.New(db), durable.Config{})
	if err != nil {
		t.Fatal(err)
	}
	mustObserve(t, p, cfg)
	db.Close()
	var rm metricdata.ResourceMetrics
	err = reader.Collect(context.Background(), &rm)
	if err == nil || !strings.Contains(err.Error(), "durableotel: durable: count intents: ") {
		t.Errorf("Collect() error = %v, want durableotel's error wrapping Stats's", err)
	}
	if got := metricsOf(rm, durableScope); len(got) != 0 {
		t.Errorf("metrics of a failed Stats = %v, want none", got)
	}
}
