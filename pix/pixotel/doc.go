// Package pixotel reports what a [pix.Client] does as OpenTelemetry metrics and traces.
//
// [NewObserver] makes an [*Observer], a [pix.Observer] for [pix.Client.Observer]. It goes
// through the OpenTelemetry API only: the application chooses the SDK and the exporters.
// [Observer.ObserveQuota] adds a [retry.Quota]'s tokens. [Observer.BreakerStateChanged] takes
// a circuit breaker's state changes, and [Observer.KeyRotated] the keys its caller replaces.
//
// # Metrics
//
// Each payment is a call to Send, SendWithKey or Resume, or to Await, which waits for one to
// end. Each lookup is a call to Lookup, or the lookup inside Resume. Each attempt is one
// request to the PSP: each of Await's lookups is one of its attempts.
//
//	name                          kind                    unit        attributes
//	pix.payments                  Int64Counter            {payment}   pix.call, outcome
//	pix.payment.duration          Float64Histogram        s           pix.call, outcome
//	pix.lookups                   Int64Counter            {lookup}    outcome
//	pix.attempts                  Int64Counter            {attempt}   http.request.method, outcome
//	http.client.request.duration  Float64Histogram        s           http.request.method, server.address, server.port,
//	                                                                  http.response.status_code, error.type
//	pix.retry.wait                Float64Histogram        s           http.request.method
//	pix.quota.grants              Int64Counter            {retry}     (none)
//	pix.quota.refusals            Int64Counter            {retry}     (none)
//	pix.quota.tokens              Float64ObservableGauge  {token}     pix.quota.name
//	pix.breaker.refusals          Int64Counter            {attempt}   (none)
//	pix.breaker.state_changes     Int64Counter            {change}    pix.breaker.name, pix.breaker.from, pix.breaker.to
//	pix.key.rotations             Int64Counter            {rotation}  (none)
//
// pix.call is send, send_with_key, resume or await. outcome is one of the [pix.Outcome]
// values. A payment ends settled, replayed, refused, invalid, pending, unknown, failed,
// circuit_open, quota_empty or key_expired, and a Resume or an Await also lookup_found or
// lookup_none. A lookup ends lookup_found, lookup_none, or as a payment fails. An attempt
// ends settled, replayed, lookup_found, lookup_none, refused, pending, transient or unknown.
//
// http.client.request.duration follows OpenTelemetry's semantic conventions for HTTP clients.
// It lasts from the attempt's start to its answer read whole, or to its failure.
// http.response.status_code is set when an answer came, and error.type when the attempt
// failed: the status of an answer of 400 or more, or contract, canceled, timeout or transport.
// pix.retry.wait records each wait before a retry. The durations' buckets are semantic
// conventions' for HTTP, then 30 s and 60 s.
//
// No metric attribute carries an Idempotency-Key, a payer, a Pix key or an amount. Their
// values are unbounded, and they are private. Spans carry the Idempotency-Key, in
// pix.idempotency_key and in a lookup's url.full, which a trace needs to meet the PSP's records
// of a payment. Nothing carries the payment itself.
//
// # Spans
//
//	name                   kind      attributes
//	pix.send               internal  pix.idempotency_key, outcome
//	pix.send_with_key      internal  pix.idempotency_key, outcome
//	pix.resume             internal  pix.idempotency_key, outcome
//	pix.lookup             internal  pix.idempotency_key, outcome
//	pix.await              internal  pix.idempotency_key, outcome
//	POST, GET              client    http.request.method, url.full, server.address, server.port,
//	                                 pix.idempotency_key, pix.attempt, http.request.resend_count,
//	                                 http.response.status_code, error.type, outcome,
//	                                 pix.retry.wait or pix.retry.stop
//	pix.key.rotate         internal  pix.idempotency_key, pix.idempotency_key.previous
//
// A call's span is the parent of its attempts' spans. Resume's span is the parent of its
// resends, and of its lookup's span when it looks the key up. An attempt's span is named for its
// request's method: a POST for a payment and a GET for a lookup of the double's API, a PUT for a
// payment in Efí's. pix.attempt counts from 1, and http.request.resend_count,
// pix.attempt − 1, is set on every attempt after the first. pix.retry.wait is the wait chosen
// after the attempt, in seconds. pix.retry.stop says why none followed, as [retry.Stop] names
// it. A call's span has status Error when the call failed, unless a lookup proved that nothing
// was paid. An attempt's has status Error when error.type is set.
//
// Every attempt's request carries the trace context of its span, written by the Config's
// propagator: with W3C Trace Context, a traceparent. A state change of a breaker is the event
// pix.breaker.state_change on the span in its context, if any.
//
// # Cost
//
// An Observer on the no-op providers of go.opentelemetry.io/otel/metric/noop and
// go.opentelemetry.io/otel/trace/noop allocates nothing (BenchmarkSend). A Client with no
// Observer reports nothing and pays nothing.
package pixotel
