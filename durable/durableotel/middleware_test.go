package durableotel_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/riverqueue/rivercontrib/otelriver"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"pixretry/durable"
	"pixretry/durable/durableotel"
)

// countsOf returns the middleware of mw that counts attempts: the one that is not otelriver's.
func countsOf(t *testing.T, mw []rivertype.Middleware) rivertype.WorkerMiddleware {
	t.Helper()
	if len(mw) != 2 {
		t.Fatalf("Middleware() returned %d middleware, want otelriver's and one more", len(mw))
	}
	if _, ok := mw[0].(*otelriver.Middleware); !ok {
		t.Fatalf("Middleware()[0] is %T, want otelriver's, outermost", mw[0])
	}
	counts, ok := mw[1].(rivertype.WorkerMiddleware)
	if !ok {
		t.Fatalf("Middleware()[1] is %T, want a rivertype.WorkerMiddleware", mw[1])
	}
	return counts
}

// Each way a job attempt ends is counted under its outcome, a snooze also as a snooze, and the
// attempt's error comes back as it was.
func TestMiddlewareCountsEachOutcome(t *testing.T) {
	t.Parallel()
	reader, cfg := mustReader(t)
	counts := countsOf(t, mustMiddleware(t, cfg))
	lost := errors.New("database lost")
	for _, ended := range []error{
		nil,
		river.JobSnooze(time.Second),
		fmt.Errorf("wrapped: %w", river.JobSnooze(time.Minute)),
		river.JobCancel(errors.New("refused")),
		lost,
	} {
		err := counts.Work(context.Background(), &rivertype.JobRow{}, func(context.Context) error { return ended })
		if err != ended {
			t.Errorf("Work() = %v, want the attempt's own error %v", err, ended)
		}
	}
	func() {
		defer func() {
			if r := recover(); r != "worker bug" {
				t.Errorf("Work() of a panicking attempt recovered %v, want the panic to go on to River", r)
			}
		}()
		counts.Work(context.Background(), &rivertype.JobRow{}, func(context.Context) error { panic("worker bug") })
	}()
	got := metricsOf(collect(t, reader), durableScope)
	for _, want := range []metricdata.Metrics{
		attemptsWant(map[string]int64{"settled": 1, "snoozed": 2, "refused": 1, "failed": 2}),
		snoozesWant(2),
	} {
		metricdatatest.AssertEqual(t, want, got[want.Name], metricdatatest.IgnoreTimestamp())
	}
}

// A zero Config takes the global providers, which do nothing until a program sets them.
func TestZeroConfigTakesTheGlobalProviders(t *testing.T) {
	t.Parallel()
	if _, err := durableotel.Middleware(durableotel.Config{}); err != nil {
		t.Errorf("Middleware(Config{}) error = %v", err)
	}
	unregister, err := durableotel.ObservePayer(mustPayer(t, dbPath(t), durable.Config{}), durableotel.Config{})
	if err != nil {
		t.Fatalf("ObservePayer(Config{}) error = %v", err)
	}
	if err := unregister(); err != nil {
		t.Errorf("unregister() error = %v", err)
	}
}
