package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// clientMetrics is what the demo's client recorded through package pix/pixotel, read from its
// MeterProvider once the scenarios are over: the figures a scraper of pixpay run -metrics reads.
type clientMetrics struct {
	payments map[string]int64 // pix.payments by outcome
	attempts map[string]int64 // pix.attempts by outcome
	retries  int64            // the waits pix.retry.wait recorded: one before each retry
}

// collectMetrics reads the client's metrics from reader.
func collectMetrics(ctx context.Context, reader sdkmetric.Reader) (clientMetrics, error) {
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		return clientMetrics{}, fmt.Errorf("demo: the client's metrics: %w", err)
	}
	m := clientMetrics{payments: map[string]int64{}, attempts: map[string]int64{}}
	for _, sm := range rm.ScopeMetrics {
		for _, mt := range sm.Metrics {
			switch mt.Name {
			case "pix.payments":
				addByOutcome(m.payments, mt.Data)
			case "pix.attempts":
				addByOutcome(m.attempts, mt.Data)
			case "pix.retry.wait":
				if h, ok := mt.Data.(metricdata.Histogram[float64]); ok {
					for _, dp := range h.DataPoints {
						m.retries += int64(dp.Count)
					}
				}
			}
		}
	}
	return m, nil
}

// noOutcome names the points of a counter that carry no outcome attribute. pixotel leaves it
// off an attempt of a method it does not know, such as Efí's PUT.
const noOutcome = "no outcome"

// addByOutcome adds the points of a counter to counts, by their outcome attribute.
func addByOutcome(counts map[string]int64, data metricdata.Aggregation) {
	if sum, ok := data.(metricdata.Sum[int64]); ok {
		for _, dp := range sum.DataPoints {
			outcome, ok := dp.Attributes.Value("outcome")
			name := outcome.AsString()
			if !ok {
				name = noOutcome
			}
			counts[name] += dp.Value
		}
	}
}

// printMetrics writes m in three lines, each starting "metrics:" and naming its instrument,
// every figure as the MeterProvider holds it.
func printMetrics(w io.Writer, m clientMetrics) {
	fmt.Fprintf(w, "metrics: pix.payments %s\n", byOutcome(m.payments))
	fmt.Fprintf(w, "metrics: pix.attempts %s\n", byOutcome(m.attempts))
	fmt.Fprintf(w, "metrics: pix.retry.wait %d retries\n", m.retries)
}

// byOutcome is a counter's total, then its count for each outcome, the largest first.
func byOutcome(counts map[string]int64) string {
	var total int64
	var parts []string
	outcomes := slices.SortedFunc(maps.Keys(counts), func(a, b string) int {
		return cmp.Or(cmp.Compare(counts[b], counts[a]), strings.Compare(a, b))
	})
	for _, o := range outcomes {
		total += counts[o]
		parts = append(parts, fmt.Sprintf("%s %d", o, counts[o]))
	}
	if len(parts) == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%s)", total, strings.Join(parts, ", "))
}
