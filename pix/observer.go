package pix

import (
	"context"
	"net/http"
	"time"

	"pixretry/retry"
)

// Observer learns what a Client's calls do, for metrics, traces and logs (see
// [Client.Observer]). Its events are pix's one report of a call: [Client.Logger] writes its
// records from them, and package pix/pixotel turns them into OpenTelemetry metrics and spans.
//
// A call is Send, SendWithKey, Resume, Lookup or Await. Resume's resend under the key (kind
// [CallResend]) and its lookup are calls of their own, reported inside Resume's. Every call
// that starts ends: CallStarted and CallEnded come in pairs, and so do AttemptStarted and
// AttemptEnded. An attempt that the breaker or the key deadline refused was not sent, and is
// not reported: the call ends with its refusal.
//
// The context that CallStarted returns is the one the call's attempts, and Resume's lookup, run
// under, and CallEnded gets it back. So does AttemptStarted for its attempt. An Observer keeps
// a span in it. Inject gets each attempt's context and the request's headers, before the
// request leaves, and may add headers such as a traceparent.
//
// KeyRotated learns that the caller gave a payment's key, from, up for a new one, to, after a
// lookup proved that nothing was paid under from ([ErrNoSettlement]). pix never gives a key
// up: its caller does, such as a durable payer, and reports it with [Client.KeyRotated]. ctx
// is the caller's.
//
// pix calls an Observer from the goroutine of the call, and from many goroutines at once when
// the Client is used concurrently. Its methods must not block.
type Observer interface {
	CallStarted(ctx context.Context, c Call) context.Context
	CallEnded(ctx context.Context, c Call)
	AttemptStarted(ctx context.Context, a Attempt) context.Context
	Inject(ctx context.Context, h http.Header)
	AttemptEnded(ctx context.Context, a Attempt)
	KeyRotated(ctx context.Context, from, to string)
}

// CallKind names a call of a Client.
type CallKind string

// The calls of a Client.
const (
	CallSend        CallKind = "send"
	CallSendWithKey CallKind = "send_with_key"
	CallResume      CallKind = "resume"
	CallLookup      CallKind = "lookup"
	// CallAwait is Await: the lookups of one key, every one an attempt, until its payment ends.
	CallAwait CallKind = "await"
	// CallResend is Resume's resend of its payment under the key, before the key deadline.
	// It is a call inside Resume's, and not a payment of its own.
	CallResend CallKind = "resend"
)

// Call is one call of a Client, as an [Observer] learns of it. The fields from Outcome on are
// known when it ends.
type Call struct {
	Kind CallKind
	Key  string // the Idempotency-Key, as given: it may be invalid

	Outcome  Outcome       // how the call ended
	Err      error         // the call's error, or nil
	Duration time.Duration // from the start of the call to its end
	// Attempts counts the attempts the call sent itself, those of the calls inside it not
	// counted: a Resume's are its resend's and its lookup's.
	Attempts int
	Receipt  Receipt // the call's receipt, or the zero Receipt when Err is not nil
}

// Attempt is one request of a call, as an [Observer] learns of it. The fields from Status on
// are known when it ends.
type Attempt struct {
	Number        int    // the attempt's number in its call, from 1: every later one resends the request
	Key           string // the Idempotency-Key it carries
	Method        string // the request's: "POST" for a payment and "GET" for a lookup of the double's API, "PUT" for Efí's payment
	URL           string // where the request goes: a lookup's carries the key
	ServerAddress string // the PSP's host, from Client.BaseURL
	ServerPort    int    // the PSP's port, from Client.BaseURL or its scheme

	Status   int           // the answer's HTTP status, or 0 when no answer was read
	Err      error         // the attempt's error, or nil
	Outcome  Outcome       // how the attempt ended
	Duration time.Duration // from the attempt's start to its answer read whole, or its failure
	// Wait is the wait before the next attempt, or 0 when none follows.
	Wait time.Duration
	// Stop is why no attempt follows: retry.StopNone when one does, after Wait, and
	// retry.StopQuota when Client.Quota refused it.
	Stop retry.Stop
	// QuotaGranted reports that Client.Quota granted the next attempt, which took a token.
	QuotaGranted bool
}

// Outcome is how a call or an attempt ended, one of a small fixed set.
type Outcome string

// The outcomes of calls and attempts. A call ends settled, replayed, lookup_found,
// lookup_none, refused, invalid, pending, unknown, failed, circuit_open, quota_empty or
// key_expired. An attempt ends settled, replayed, lookup_found, lookup_none, refused, pending,
// transient or unknown.
const (
	// OutcomeSettled is a payment the PSP settled with this call.
	OutcomeSettled Outcome = "settled"
	// OutcomeReplayed is a receipt the PSP replayed: an earlier attempt or call settled it.
	OutcomeReplayed Outcome = "replayed"
	// OutcomeLookupFound is a lookup that found the key's settlement, or a Resume or an Await
	// that did.
	OutcomeLookupFound Outcome = "lookup_found"
	// OutcomeLookupNone is a lookup that proved the key paid nothing ([ErrNoSettlement]), or a
	// Resume that did.
	OutcomeLookupNone Outcome = "lookup_none"
	// OutcomeRefused is a definitive answer of the PSP that is not a receipt, such as
	// insufficient funds, a rejection ([ErrRejected]) or a 401, and of an attempt a 4xx not
	// retried or a lookup's rejection.
	OutcomeRefused Outcome = "refused"
	// OutcomeInvalid is a payment, key or Client found invalid before anything was sent, or a
	// payment the PSP found invalid.
	OutcomeInvalid Outcome = "invalid"
	// OutcomePending is a call that ended with an error matching [ErrPending], an
	// [*OutcomeUnknownError] for a payment the PSP accepted and has not ended yet, and an
	// attempt answered 202 pending. It is an unknown outcome, told apart from the others
	// because it is the PSP's answer rather than a failure.
	OutcomePending Outcome = "pending"
	// OutcomeUnknown is a call that ended with an [*OutcomeUnknownError], for a reason not
	// named above or below, and an attempt that failed for good without proving that nothing
	// was paid.
	OutcomeUnknown Outcome = "unknown"
	// OutcomeFailed is a call that paid nothing and got no answer from the PSP: no connection,
	// or a context that ended before the first attempt.
	OutcomeFailed Outcome = "failed"
	// OutcomeTransient is an attempt that failed for a reason worth another attempt.
	OutcomeTransient Outcome = "transient"
	// OutcomeCircuitOpen is a call that Client.Breaker stopped ([ErrCircuitOpen]).
	OutcomeCircuitOpen Outcome = "circuit_open"
	// OutcomeQuotaEmpty is a call that Client.Quota stopped ([retry.ErrQuotaExhausted]).
	OutcomeQuotaEmpty Outcome = "quota_empty"
	// OutcomeKeyExpired is a call that the key deadline stopped ([ErrKeyExpired]).
	OutcomeKeyExpired Outcome = "key_expired"
)
