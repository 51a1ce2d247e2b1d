package pixotel

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// BreakerStateChanged counts a state change of the circuit breaker name in
// pix.breaker.state_changes, with the attributes pix.breaker.name, pix.breaker.from and
// pix.breaker.to, and adds the event pix.breaker.state_change to the span in ctx, if it
// records. Call it from gobreaker's Settings.OnStateChange, with from.String() and
// to.String() (ExampleObserver_BreakerStateChanged).
func (o *Observer) BreakerStateChanged(ctx context.Context, name, from, to string) {
	attrs := []attribute.KeyValue{keyBreaker.String(name), keyFrom.String(from), keyTo.String(to)}
	o.breakerChanges.Add(ctx, 1, metric.WithAttributes(attrs...))
	trace.SpanFromContext(ctx).AddEvent("pix.breaker.state_change", trace.WithAttributes(attrs...))
}
