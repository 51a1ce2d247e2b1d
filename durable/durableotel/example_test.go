package durableotel_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/trace/noop"

	"pixretry/durable"
	"pixretry/durable/durableotel"
	"pixretry/durable/durablesqlite"
	"pixretry/pix"
	"pixretry/psp"
	"pixretry/psp/psptest"
	"pixretry/retry"
)

// A Payer on SQLite pays one intent through the PSP double, with durableotel's middleware in
// its Config and its intents observed. A program would give the MeterProvider a periodic
// reader and an exporter; a ManualReader shows the points here.
func Example() {
	ctx := context.Background()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(ctx)
	cfg := durableotel.Config{MeterProvider: mp, TracerProvider: noop.NewTracerProvider()}

	srv, err := psptest.NewServer(psp.DefaultConfig())
	check(err)
	defer srv.Close()
	dir, err := os.MkdirTemp("", "durableotel-example-")
	check(err)
	defer os.RemoveAll(dir)
	db, err := durablesqlite.Open(filepath.Join(dir, "pay.db"))
	check(err)
	defer db.Close()

	middleware, err := durableotel.Middleware(cfg)
	check(err)
	client := srv.Client(retry.Policy{AttemptsMax: 3, DelayBase: 10 * time.Millisecond, DelayMax: time.Second})
	p, err := durable.New(ctx, durablesqlite.New(db), durable.Config{Client: client, PollInterval: 20 * time.Millisecond,
		Middleware: middleware})
	check(err)
	unregister, err := durableotel.ObservePayer(p, cfg)
	check(err)
	defer unregister()

	_, err = p.Pay(ctx, "order-1", pix.Payment{AmountCents: 12_345, PixKey: "payer@example.com", Description: "rent"})
	check(err)
	check(p.Start(ctx))
	wait, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	check(p.Wait(wait))
	check(p.Stop(ctx))

	var rm metricdata.ResourceMetrics
	check(reader.Collect(ctx, &rm))
	for _, line := range points(rm, "pixretry/durable/durableotel") {
		fmt.Println(line)
	}
	// Output:
	// durable.intent.oldest_pending.age 0
	// durable.intents durable.intent.status=overdue 0
	// durable.intents durable.intent.status=pending 0
	// durable.intents durable.intent.status=refused 0
	// durable.intents durable.intent.status=settled 1
	// durable.job.attempts durable.job.outcome=settled 1
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}

// points returns a sorted line per point of the int64 and float64 sums and gauges of scope in
// rm: the metric's name, its attributes and its value.
func points(rm metricdata.ResourceMetrics, scope string) []string {
	var lines []string
	add := func(name string, attrs attribute.Set, value any) {
		line := fmt.Sprint(name, " ", attrs.Encoded(attribute.DefaultEncoder()), " ", value)
		if attrs.Len() == 0 {
			line = fmt.Sprint(name, " ", value)
		}
		lines = append(lines, line)
	}
	for _, m := range metricsOf(rm, scope) {
		switch d := m.Data.(type) {
		case metricdata.Sum[int64]:
			for _, p := range d.DataPoints {
				add(m.Name, p.Attributes, p.Value)
			}
		case metricdata.Gauge[int64]:
			for _, p := range d.DataPoints {
				add(m.Name, p.Attributes, p.Value)
			}
		case metricdata.Gauge[float64]:
			for _, p := range d.DataPoints {
				add(m.Name, p.Attributes, p.Value)
			}
		}
	}
	slices.Sort(lines)
	return lines
}
