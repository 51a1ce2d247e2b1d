package pixotel_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"time"

	"github.com/sony/gobreaker/v2"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"pixretry/pix"
	"pixretry/pix/pixotel"
	"pixretry/psp"
	"pixretry/retry"
)

// A payment whose first attempt met a 503 settles on the second. The Observer counts the
// payment and both attempts. With no TracerProvider set, the global one, a no-op until the
// application sets one, gets the spans.
func ExampleNewObserver() {
	reader := sdkmetric.NewManualReader()
	obs, err := pixotel.NewObserver(pixotel.Config{MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))})
	if err != nil {
		panic(err)
	}
	bank, _ := psp.NewServer(psp.DefaultConfig())
	bank.Inject(psp.Status(503))
	ts := httptest.NewServer(bank)
	defer ts.Close()
	client := &pix.Client{BaseURL: ts.URL, Token: psp.DefaultToken, HTTPClient: ts.Client(),
		Policy: retry.Policy{AttemptsMax: 3}, Observer: obs}

	_, err = client.Send(context.Background(), pix.Payment{AmountCents: 15000, PixKey: "pix@example.com"})
	fmt.Println("error:", err)
	for _, line := range counters(reader, "pix.") {
		fmt.Println(line)
	}
	// Output:
	// error: <nil>
	// pix.attempts{http.request.method=POST,outcome=settled} 1
	// pix.attempts{http.request.method=POST,outcome=transient} 1
	// pix.payments{outcome=settled,pix.call=send} 1
}

// gobreaker reports its state changes through Settings.OnStateChange. Two 503s in a row open
// this breaker, which refuses the third attempt.
func ExampleObserver_BreakerStateChanged() {
	reader := sdkmetric.NewManualReader()
	obs, err := pixotel.NewObserver(pixotel.Config{MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))})
	if err != nil {
		panic(err)
	}
	breaker := gobreaker.NewTwoStepCircuitBreaker[pix.Receipt](gobreaker.Settings{
		Name:        "psp",
		Timeout:     10 * time.Second,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= 2 },
		OnStateChange: func(name string, from, to gobreaker.State) {
			obs.BreakerStateChanged(context.Background(), name, from.String(), to.String())
		},
	})
	bank, _ := psp.NewServer(psp.DefaultConfig())
	bank.Inject(psp.Status(503), psp.Status(503))
	ts := httptest.NewServer(bank)
	defer ts.Close()
	client := &pix.Client{BaseURL: ts.URL, Token: psp.DefaultToken, HTTPClient: ts.Client(),
		Policy: retry.Policy{AttemptsMax: 3}, Breaker: breaker, Observer: obs}

	_, err = client.Send(context.Background(), pix.Payment{AmountCents: 15000, PixKey: "pix@example.com"})
	fmt.Println("circuit open:", errors.Is(err, pix.ErrCircuitOpen))
	for _, line := range counters(reader, "pix.breaker.") {
		fmt.Println(line)
	}
	// Output:
	// circuit open: true
	// pix.breaker.refusals 1
	// pix.breaker.state_changes{pix.breaker.from=closed,pix.breaker.name=psp,pix.breaker.to=open} 1
}

// counters are the points of the counters whose names start with prefix, one line each, sorted.
func counters(reader *sdkmetric.ManualReader, prefix string) []string {
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		panic(err)
	}
	var lines []string
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			sum, ok := m.Data.(metricdata.Sum[int64])
			if !ok || !strings.HasPrefix(m.Name, prefix) {
				continue
			}
			for _, p := range sum.DataPoints {
				lines = append(lines, fmt.Sprintf("%s%s %d", m.Name, braced(p.Attributes), p.Value))
			}
		}
	}
	slices.Sort(lines)
	return lines
}
