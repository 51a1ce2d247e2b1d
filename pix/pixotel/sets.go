package pixotel

import (
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"

	"pixretry/pix"
)

// Attribute keys of pixotel's own.
const (
	keyOutcome     = attribute.Key("outcome")
	keyCall        = attribute.Key("pix.call")
	keyKey         = attribute.Key("pix.idempotency_key")
	keyPreviousKey = attribute.Key("pix.idempotency_key.previous")
	keyAttempt     = attribute.Key("pix.attempt")
	keyWait        = attribute.Key("pix.retry.wait")
	keyStop        = attribute.Key("pix.retry.stop")
	keyQuota       = attribute.Key("pix.quota.name")
	keyBreaker     = attribute.Key("pix.breaker.name")
	keyFrom        = attribute.Key("pix.breaker.from")
	keyTo          = attribute.Key("pix.breaker.to")
)

// outcomes are every pix.Outcome, the values of the outcome attribute.
var outcomes = []pix.Outcome{
	pix.OutcomeSettled, pix.OutcomeReplayed, pix.OutcomeLookupFound, pix.OutcomeLookupNone,
	pix.OutcomeRefused, pix.OutcomeInvalid, pix.OutcomePending, pix.OutcomeUnknown, pix.OutcomeFailed,
	pix.OutcomeTransient, pix.OutcomeCircuitOpen, pix.OutcomeQuotaEmpty, pix.OutcomeKeyExpired,
}

// options are the measurement options of one attribute set, made once, so that a measurement
// allocates no option slice.
type options struct {
	add    []metric.AddOption
	record []metric.RecordOption
}

func optionsOf(kv ...attribute.KeyValue) options {
	o := metric.WithAttributeSet(attribute.NewSet(kv...))
	return options{add: []metric.AddOption{o}, record: []metric.RecordOption{o}}
}

// callKey and attemptKey index the attribute sets of a call and of an attempt.
type callKey struct {
	kind    pix.CallKind
	outcome pix.Outcome
}

type attemptKey struct {
	method  string
	outcome pix.Outcome
}

// sets are the attribute sets of the measurements whose attributes come from a fixed set: every
// call kind, method and outcome that pix reports.
type sets struct {
	call    map[callKey]options     // pix.payments, pix.payment.duration
	lookup  map[pix.Outcome]options // pix.lookups
	attempt map[attemptKey]options  // pix.attempts
	wait    map[string]options      // pix.retry.wait, by method
}

func newSets() sets {
	s := sets{call: map[callKey]options{}, lookup: map[pix.Outcome]options{}, attempt: map[attemptKey]options{},
		wait: map[string]options{}}
	methods := []string{"POST", "PUT", "GET"} // PUT: Efí's payments
	for _, out := range outcomes {
		o := keyOutcome.String(string(out))
		for _, k := range []pix.CallKind{pix.CallSend, pix.CallSendWithKey, pix.CallResume, pix.CallAwait} {
			s.call[callKey{k, out}] = optionsOf(keyCall.String(string(k)), o)
		}
		s.lookup[out] = optionsOf(o)
		for _, m := range methods {
			s.attempt[attemptKey{m, out}] = optionsOf(semconv.HTTPRequestMethodKey.String(m), o)
		}
	}
	for _, m := range methods {
		s.wait[m] = optionsOf(semconv.HTTPRequestMethodKey.String(m))
	}
	return s
}
