package pixotel

import (
	"context"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"pixretry/pix"
)

// CallStarted starts the call's span, pix.send, pix.send_with_key, pix.resume, pix.lookup or
// pix.await, unless the tracer cannot record. Resume's resend has no span: its attempts are Resume's.
func (o *Observer) CallStarted(ctx context.Context, c pix.Call) context.Context {
	if !o.tracing || c.Kind == pix.CallResend {
		return ctx
	}
	ctx, _ = o.tracer.Start(ctx, "pix."+string(c.Kind), trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(keyKey.String(c.Key)))
	return ctx
}

// CallEnded counts the call in pix.lookups, or in pix.payments and pix.payment.duration, and
// a breaker's refusal in pix.breaker.refusals. It ends the call's span. Resume's resend is part
// of Resume's payment, which counts it.
func (o *Observer) CallEnded(ctx context.Context, c pix.Call) {
	if c.Kind == pix.CallResend {
		return
	}
	if c.Kind == pix.CallLookup {
		o.lookups.Add(ctx, 1, o.sets.lookup[c.Outcome].add...)
	} else {
		opts := o.sets.call[callKey{c.Kind, c.Outcome}]
		o.payments.Add(ctx, 1, opts.add...)
		o.paymentDuration.Record(ctx, c.Duration.Seconds(), opts.record...)
	}
	if c.Outcome == pix.OutcomeCircuitOpen {
		o.breakerRefusals.Add(ctx, 1)
	}
	if o.tracing {
		endCall(trace.SpanFromContext(ctx), c)
	}
}

// endCall ends span, the span of c. Its status is Error when c failed, unless a lookup proved
// that nothing was paid: that is an answer.
func endCall(span trace.Span, c pix.Call) {
	span.SetAttributes(keyOutcome.String(string(c.Outcome)))
	if c.Err != nil && c.Outcome != pix.OutcomeLookupNone {
		span.SetStatus(codes.Error, c.Err.Error())
	}
	span.End()
}
