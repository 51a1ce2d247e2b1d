package pixotel

import (
	"errors"
	"fmt"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"pixretry/pix"
)

// scope is the instrumentation scope of the meter and the tracer.
const scope = "pixretry/pix/pixotel"

// Config says where an Observer's metrics, spans and trace context go. Its zero value uses
// OpenTelemetry's global providers and propagator.
type Config struct {
	MeterProvider  metric.MeterProvider          // nil: otel.GetMeterProvider()
	TracerProvider trace.TracerProvider          // nil: otel.GetTracerProvider()
	Propagator     propagation.TextMapPropagator // nil: otel.GetTextMapPropagator()
}

// Observer is a [pix.Observer] that records metrics and spans through the OpenTelemetry API,
// as the package doc lists them. Set it as a [pix.Client]'s Observer. One Observer serves any
// number of Clients, and is safe for concurrent use.
//
// An Observer built on no-op providers (go.opentelemetry.io/otel/metric/noop and
// go.opentelemetry.io/otel/trace/noop) allocates nothing and starts no span: it checks each
// instrument's Enabled first, and it knows at construction that the tracer cannot record.
type Observer struct {
	tracer     trace.Tracer
	tracing    bool // the tracer may record: it is not trace/noop's
	propagator propagation.TextMapPropagator
	meter      metric.Meter

	payments        metric.Int64Counter
	paymentDuration metric.Float64Histogram
	attempts        metric.Int64Counter
	requestDuration metric.Float64Histogram
	retryWait       metric.Float64Histogram
	lookups         metric.Int64Counter
	quotaGrants     metric.Int64Counter
	quotaRefusals   metric.Int64Counter
	quotaTokens     metric.Float64ObservableGauge
	breakerRefusals metric.Int64Counter
	breakerChanges  metric.Int64Counter
	keyRotations    metric.Int64Counter

	sets sets
}

var _ pix.Observer = (*Observer)(nil)

// durationBounds are the histogram buckets of every duration, in seconds: semantic
// conventions' for http.client.request.duration, and then 30 s and 60 s, for payments that
// wait out an outage.
var durationBounds = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60}

// NewObserver returns an Observer on cfg's providers, with its instruments made. Its error,
// from the meter, starts with "pixotel: ".
func NewObserver(cfg Config) (*Observer, error) {
	mp, tp, prop := cfg.MeterProvider, cfg.TracerProvider, cfg.Propagator
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if prop == nil {
		prop = otel.GetTextMapPropagator()
	}
	_, silent := tp.(noop.TracerProvider)
	o := &Observer{tracer: tp.Tracer(scope, trace.WithSchemaURL(semconv.SchemaURL)), tracing: !silent,
		propagator: prop, meter: mp.Meter(scope, metric.WithSchemaURL(semconv.SchemaURL)), sets: newSets()}
	if err := o.instruments(); err != nil {
		return nil, fmt.Errorf("pixotel: %w", err)
	}
	return o, nil
}

// instruments makes o's instruments, as the package doc lists them, and returns the errors of
// those the meter could not make.
func (o *Observer) instruments() error {
	m, bounds := o.meter, metric.WithExplicitBucketBoundaries(durationBounds...)
	var errs []error
	counter := func(name, unit, desc string) metric.Int64Counter {
		c, err := m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	histogram := func(name, desc string) metric.Float64Histogram {
		h, err := m.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(desc), bounds)
		errs = append(errs, err)
		return h
	}
	o.payments = counter("pix.payments", "{payment}", "Payments ended: Send, SendWithKey and Resume calls.")
	o.paymentDuration = histogram("pix.payment.duration", "Duration of a payment, its waits included.")
	o.attempts = counter("pix.attempts", "{attempt}", "Requests sent by payments and lookups.")
	o.requestDuration = histogram("http.client.request.duration", "Duration of HTTP client requests.")
	o.retryWait = histogram("pix.retry.wait", "Wait before a retry.")
	o.lookups = counter("pix.lookups", "{lookup}", "Lookups ended: Lookup calls and Resume's lookups.")
	o.quotaGrants = counter("pix.quota.grants", "{retry}", "Retries the quota granted.")
	o.quotaRefusals = counter("pix.quota.refusals", "{retry}", "Retries the quota refused.")
	o.breakerRefusals = counter("pix.breaker.refusals", "{attempt}", "Attempts the circuit breaker refused.")
	o.breakerChanges = counter("pix.breaker.state_changes", "{change}", "State changes of a circuit breaker.")
	o.keyRotations = counter("pix.key.rotations", "{rotation}", "Keys replaced after a lookup proved nothing paid.")
	var err error
	o.quotaTokens, err = m.Float64ObservableGauge("pix.quota.tokens", metric.WithUnit("{token}"),
		metric.WithDescription("Tokens a retry quota holds."))
	return errors.Join(append(errs, err)...)
}
