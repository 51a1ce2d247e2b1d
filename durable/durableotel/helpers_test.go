package durableotel_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/trace/noop"
	"go.uber.org/goleak"

	"github.com/riverqueue/river/rivertype"

	"pixretry/durable"
	"pixretry/durable/durableotel"
	"pixretry/durable/durablesqlite"
	"pixretry/pix"
	"pixretry/psp"
	"pixretry/psp/psptest"
	"pixretry/retry"
)

func TestMain(m *testing.M) {
	if path := os.Getenv(childDBEnv); path != "" {
		os.Exit(crashChild(path, os.Getenv(childPSPEnv)))
	}
	goleak.VerifyTestMain(m)
}

// refusedCents is over the PSP's default balance: a payment of it is refused.
var refusedCents = psp.DefaultConfig().BalanceCents + 1

// policy makes one request per job attempt, so that one fault leaves a job attempt's outcome
// unknown.
var policy = retry.Policy{AttemptsMax: 1, DelayBase: time.Millisecond, DelayMax: time.Millisecond}

// payment returns a valid payment of cents.
func payment(cents int64) pix.Payment {
	return pix.Payment{AmountCents: cents, PixKey: "payer@example.com", Description: "rent"}
}

// payerConfig works one payment at a time through client, snoozes for milliseconds and polls
// every 20 ms, with River's middleware mw.
func payerConfig(client *pix.Client, mw []rivertype.Middleware) durable.Config {
	return durable.Config{Client: client, Workers: 1, DelayBase: time.Millisecond, DelayMax: 10 * time.Millisecond,
		PollInterval: 20 * time.Millisecond, Middleware: mw}
}

// mustPSP serves the PSP double over in-memory pipes until the test ends.
func mustPSP(tb testing.TB) *psptest.Server {
	tb.Helper()
	srv, err := psptest.NewServer(psp.DefaultConfig())
	if err != nil {
		tb.Fatalf("psptest.NewServer() error = %v", err)
	}
	tb.Cleanup(srv.Close)
	return srv
}

// mustPayer opens the SQLite database at path, made if absent, and returns a Payer on it
// with cfg, not started. The database closes when the test ends.
func mustPayer(tb testing.TB, path string, cfg durable.Config) *durable.Payer[*sql.Tx] {
	tb.Helper()
	db, err := durablesqlite.Open(path)
	if err != nil {
		tb.Fatalf("durablesqlite.Open() error = %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	p, err := durable.New(context.Background(), durablesqlite.New(db), cfg)
	if err != nil {
		tb.Fatalf("durable.New() error = %v", err)
	}
	return p
}

// dbPath is a database file in the test's directory.
func dbPath(tb testing.TB) string { return filepath.Join(tb.TempDir(), "pay.db") }

// mustReader returns a ManualReader and a Config whose MeterProvider it reads, with spans
// dropped.
func mustReader(tb testing.TB) (*sdkmetric.ManualReader, durableotel.Config) {
	tb.Helper()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	tb.Cleanup(func() {
		if err := mp.Shutdown(context.Background()); err != nil {
			tb.Error(err)
		}
	})
	return reader, durableotel.Config{MeterProvider: mp, TracerProvider: noop.NewTracerProvider()}
}

// mustMiddleware is durableotel.Middleware(cfg).
func mustMiddleware(tb testing.TB, cfg durableotel.Config) []rivertype.Middleware {
	tb.Helper()
	mw, err := durableotel.Middleware(cfg)
	if err != nil {
		tb.Fatalf("Middleware() error = %v", err)
	}
	return mw
}

// mustObserve is durableotel.ObservePayer(p, cfg), unregistered when the test ends.
func mustObserve(tb testing.TB, p *durable.Payer[*sql.Tx], cfg durableotel.Config) {
	tb.Helper()
	unregister, err := durableotel.ObservePayer(p, cfg)
	if err != nil {
		tb.Fatalf("ObservePayer() error = %v", err)
	}
	tb.Cleanup(func() {
		if err := unregister(); err != nil {
			tb.Error(err)
		}
	})
}

// mustWork starts p, waits until no intent is pending, and stops p, so that every job
// attempt's middleware has returned.
func mustWork(tb testing.TB, p *durable.Payer[*sql.Tx]) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := p.Start(ctx); err != nil {
		tb.Fatalf("Start() error = %v", err)
	}
	werr := p.Wait(ctx)
	if err := p.Stop(context.Background()); err != nil {
		tb.Errorf("Stop() error = %v", err)
	}
	if werr != nil {
		tb.Fatalf("Wait() error = %v", werr)
	}
}

// collect reads every metric of reader.
func collect(tb testing.TB, reader *sdkmetric.ManualReader) metricdata.ResourceMetrics {
	tb.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		tb.Fatalf("Collect() error = %v", err)
	}
	return rm
}

// metricsOf returns the metrics of the meter scope in rm, by name.
func metricsOf(rm metricdata.ResourceMetrics, scope string) map[string]metricdata.Metrics {
	byName := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != scope {
			continue
		}
		for _, m := range sm.Metrics {
			byName[m.Name] = m
		}
	}
	return byName
}

// The meters' scopes: this package's and otelriver's.
const (
	durableScope = "pixretry/durable/durableotel"
	riverScope   = "github.com/riverqueue/rivercontrib/otelriver"
)

// intentsWant is durable.intents with these counts.
func intentsWant(pending, overdue, settled, refused int64) metricdata.Metrics {
	point := func(status string, n int64) metricdata.DataPoint[int64] {
		return metricdata.DataPoint[int64]{Attributes: attribute.NewSet(attribute.String("durable.intent.status", status)), Value: n}
	}
	return metricdata.Metrics{Name: "durable.intents", Unit: "{intent}",
		Description: "Intents in the durable payer's database, by status.",
		Data: metricdata.Gauge[int64]{DataPoints: []metricdata.DataPoint[int64]{
			point("pending", pending), point("overdue", overdue), point("settled", settled), point("refused", refused)}}}
}

// ageWant is durable.intent.oldest_pending.age at age.
func ageWant(age time.Duration) metricdata.Metrics {
	return metricdata.Metrics{Name: "durable.intent.oldest_pending.age", Unit: "s",
		Description: "Time since the oldest pending intent was stored; 0 when none is pending.",
		Data:        metricdata.Gauge[float64]{DataPoints: []metricdata.DataPoint[float64]{{Value: age.Seconds()}}}}
}

// attemptsWant is durable.job.attempts with these counts by outcome.
func attemptsWant(byOutcome map[string]int64) metricdata.Metrics {
	var points []metricdata.DataPoint[int64]
	for o, n := range byOutcome {
		points = append(points, metricdata.DataPoint[int64]{
			Attributes: attribute.NewSet(attribute.String("durable.job.outcome", o)), Value: n})
	}
	return metricdata.Metrics{Name: "durable.job.attempts", Unit: "{attempt}",
		Description: "Job attempts of durable payments, by outcome.",
		Data: metricdata.Sum[int64]{Temporality: metricdata.CumulativeTemporality, IsMonotonic: true,
			DataPoints: points}}
}

// snoozesWant is durable.job.snoozes at n.
func snoozesWant(n int64) metricdata.Metrics {
	return metricdata.Metrics{Name: "durable.job.snoozes", Unit: "{snooze}",
		Description: "Job attempts of durable payments snoozed with their outcome unknown.",
		Data: metricdata.Sum[int64]{Temporality: metricdata.CumulativeTemporality, IsMonotonic: true,
			DataPoints: []metricdata.DataPoint[int64]{{Value: n}}}}
}
