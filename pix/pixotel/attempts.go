package pixotel

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"pixretry/pix"
	"pixretry/retry"
)

// AttemptStarted starts the attempt's HTTP client span, named for its method, unless the tracer
// cannot record.
func (o *Observer) AttemptStarted(ctx context.Context, a pix.Attempt) context.Context {
	if !o.tracing {
		return ctx
	}
	attrs := []attribute.KeyValue{semconv.HTTPRequestMethodKey.String(a.Method), semconv.URLFull(a.URL),
		semconv.ServerAddress(a.ServerAddress), semconv.ServerPort(a.ServerPort), keyKey.String(a.Key),
		keyAttempt.Int(a.Number)}
	if a.Number > 1 {
		attrs = append(attrs, semconv.HTTPRequestResendCount(a.Number-1))
	}
	ctx, _ = o.tracer.Start(ctx, a.Method, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return ctx
}

// Inject writes the trace context of ctx, the attempt's, into h with the Config's propagator:
// with W3C Trace Context, a traceparent naming the attempt's span.
func (o *Observer) Inject(ctx context.Context, h http.Header) {
	o.propagator.Inject(ctx, propagation.HeaderCarrier(h))
}

// AttemptEnded counts the attempt in pix.attempts and http.client.request.duration, the wait
// that follows it in pix.retry.wait, and the quota's answer in pix.quota.grants or
// pix.quota.refusals. It ends the attempt's span.
func (o *Observer) AttemptEnded(ctx context.Context, a pix.Attempt) {
	o.attempts.Add(ctx, 1, o.sets.attempt[attemptKey{a.Method, a.Outcome}].add...)
	if o.requestDuration.Enabled(ctx) {
		o.requestDuration.Record(ctx, a.Duration.Seconds(), metric.WithAttributes(requestAttributes(a)...))
	}
	if a.Stop == retry.StopNone {
		o.retryWait.Record(ctx, a.Wait.Seconds(), o.sets.wait[a.Method].record...)
	}
	if a.QuotaGranted {
		o.quotaGrants.Add(ctx, 1)
	}
	if a.Stop == retry.StopQuota {
		o.quotaRefusals.Add(ctx, 1)
	}
	if o.tracing {
		endAttempt(trace.SpanFromContext(ctx), a)
	}
}

// requestAttributes are the attributes of a's http.client.request.duration.
func requestAttributes(a pix.Attempt) []attribute.KeyValue {
	attrs := []attribute.KeyValue{semconv.HTTPRequestMethodKey.String(a.Method),
		semconv.ServerAddress(a.ServerAddress), semconv.ServerPort(a.ServerPort)}
	if a.Status != 0 {
		attrs = append(attrs, semconv.HTTPResponseStatusCode(a.Status))
	}
	if t := errorType(a); t != "" {
		attrs = append(attrs, semconv.ErrorTypeKey.String(t))
	}
	return attrs
}

// endAttempt ends span, the span of attempt a, with what came of it. Its status is Error when
// error.type is set.
func endAttempt(span trace.Span, a pix.Attempt) {
	attrs := []attribute.KeyValue{keyOutcome.String(string(a.Outcome))}
	if a.Status != 0 {
		attrs = append(attrs, semconv.HTTPResponseStatusCode(a.Status))
	}
	if a.Stop == retry.StopNone {
		attrs = append(attrs, keyWait.Float64(a.Wait.Seconds()))
	} else {
		attrs = append(attrs, keyStop.String(a.Stop.String()))
	}
	if t := errorType(a); t != "" {
		attrs = append(attrs, semconv.ErrorTypeKey.String(t))
		span.SetStatus(codes.Error, a.Err.Error())
	}
	span.SetAttributes(attrs...)
	span.End()
}

// errorType is a's error.type: the status of an answer of 400 or more, else a few words on
// the failure, else "" for an attempt that brought a receipt.
func errorType(a pix.Attempt) string {
	switch {
	case a.Status >= 400:
		return strconv.Itoa(a.Status)
	case a.Err == nil:
		return ""
	case errors.Is(a.Err, pix.ErrContract):
		return "contract"
	case errors.Is(a.Err, context.Canceled):
		return "canceled"
	case timeout(a.Err):
		return "timeout"
	}
	return "transport"
}

// timeout reports whether err is a timeout, the attempt's deadline included.
func timeout(err error) bool {
	e, ok := errors.AsType[net.Error](err)
	return ok && e.Timeout()
}
