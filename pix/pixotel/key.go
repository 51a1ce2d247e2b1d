package pixotel

import (
	"context"

	"go.opentelemetry.io/otel/trace"
)

// KeyRotated learns that a payment's key, from, was replaced by a new one, to, after a lookup
// proved that nothing was paid under it ([pix.Observer] says when). pix never replaces a key:
// its caller does, such as a durable payer, with [pix.Client.KeyRotated]. KeyRotated counts the
// rotation in pix.key.rotations and records it as the span pix.key.rotate, a child of the span
// in ctx, which carries both keys.
func (o *Observer) KeyRotated(ctx context.Context, from, to string) {
	o.keyRotations.Add(ctx, 1)
	if !o.tracing {
		return
	}
	_, span := o.tracer.Start(ctx, "pix.key.rotate", trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(keyKey.String(to), keyPreviousKey.String(from)))
	span.End()
}
