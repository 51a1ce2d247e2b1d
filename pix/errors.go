package pix

import (
	"errors"
	"strconv"
	"time"
)

// Errors to check with errors.Is.
var (
	// ErrInsufficientFunds reports a payment above the payer's balance (422
	// insufficient_funds). The PSP stores the refusal under the key, so the key always gets it
	// again.
	ErrInsufficientFunds = errors.New("pix: insufficient funds")
	// ErrKeyReused reports a key that already holds another payment (422
	// idempotency_key_reused). This payment was not made.
	ErrKeyReused = errors.New("pix: idempotency key reused with another payment")
	// ErrInvalidPayment reports a payment or key that failed local validation, with nothing
	// sent. It also reports a request that the PSP refused as invalid (400 invalid_request).
	ErrInvalidPayment = errors.New("pix: invalid payment")
	// ErrContract reports an answer outside the response contract, such as a 201 whose body
	// breaks it, a 201 or 200 whose status is not REALIZADO (nor NAO_REALIZADO, for a lookup's
	// 200), a 202 that is not a pending payment's, another 2xx or a 3xx. A body over 64 KiB breaks it, and so does an answer that
	// net/http cannot read, such as a header over the limit of [Client.HTTPClient]. The PSP may
	// have settled, so the error is also an [*OutcomeUnknownError]. It is never retried.
	ErrContract = errors.New("pix: PSP broke the response contract")
	// ErrOutcomeUnknown matches every [*OutcomeUnknownError].
	ErrOutcomeUnknown = errors.New("pix: outcome unknown")
	// ErrCircuitOpen reports a payment that [Client.Breaker] stopped before an attempt, which
	// was not sent. The error wraps the breaker's own error too. It is also an
	// [*OutcomeUnknownError] when an earlier attempt may have reached the PSP.
	ErrCircuitOpen = errors.New("pix: the circuit breaker refused the attempt")
	// ErrKeyExpired reports an attempt not sent because the PSP may have forgotten its key: it
	// would not have ended before the key deadline (see [Client.KeyTTL]). Earlier attempts may
	// have paid, so an error matching it is always an [*OutcomeUnknownError].
	// [Client.Resume] learns the outcome.
	ErrKeyExpired = errors.New("pix: the PSP may have forgotten the idempotency key")
	// ErrNoSettlement reports a key under which nothing was ever paid, and nothing can be: a
	// lookup's 404 payment_not_found, after which the PSP refuses every payment under the key
	// (422 idempotency_key_closed). The payment may be paid again under a new key. An error
	// matching it wraps the PSP's [*Error], and is never an [*OutcomeUnknownError].
	ErrNoSettlement = errors.New("pix: the PSP holds no settlement under the key, and closed it")
	// ErrPending reports a payment that the PSP accepted and has neither settled nor rejected
	// yet: a 202 whose status is EM_PROCESSAMENTO, to a payment, a replay or a lookup. It may
	// still settle, so an error matching it is always an [*OutcomeUnknownError], whose Err
	// says the endToEndId and when the PSP accepted the payment. The call is not retried,
	// since the PSP answered. [Client.Await] learns how the payment ends.
	ErrPending = errors.New("pix: payment pending, neither settled nor rejected yet")
	// ErrRejected reports a payment that the PSP accepted, then rejected: a 422
	// payment_rejected to a replay, or a lookup's 200 whose status is NAO_REALIZADO. Nothing
	// was paid, and the key keeps its rejection: pay again under a new key. An error matching
	// it is never an [*OutcomeUnknownError].
	ErrRejected = errors.New("pix: payment rejected after the PSP accepted it")
	// ErrUnknownPayment is for [WebhookHandler.Apply] to return for a webhook about a payment
	// it has never heard of. The handler then answers 404, which the PSP does not retry.
	ErrUnknownPayment = errors.New("pix: the webhook is about no payment known here")
)

// Error is a PSP answer other than 201 Created and a 202 pending answer, decoded from its
// application/problem+json body. A body that is not a problem leaves Code and Detail empty. A
// 3xx, or a 2xx other than 201, is an Error too, and matches [ErrContract]: a 202 whose body
// is not a pending payment's does.
//
// Its StatusCode and RetryAfter methods let [retry.Transient] classify it and [retry.Do]
// honour the PSP's Retry-After.
type Error struct {
	Status int    // the HTTP status code
	Code   string // the problem's code, such as "insufficient_funds", or empty
	Detail string // the problem's detail, for people
	// Means is the error of this package that the answer stands for, set by a [Dialect] whose
	// codes are not those of this repository's double: [ErrInsufficientFunds], [ErrKeyReused],
	// [ErrInvalidPayment] or [ErrRejected]. When it is nil, Code says, in the double's codes.
	Means error

	retryAfter time.Duration
}

// Error returns "pix: PSP answered STATUS CODE: DETAIL", leaving out an empty code or detail.
func (e *Error) Error() string {
	msg := "pix: PSP answered " + strconv.Itoa(e.Status)
	if e.Code != "" {
		msg += " " + e.Code
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// StatusCode returns the HTTP status.
func (e *Error) StatusCode() int { return e.Status }

// RetryAfter returns the answer's Retry-After, in seconds or as an HTTP-date. It is 0 when
// the header is absent, unparsable or in the past.
func (e *Error) RetryAfter() time.Duration { return e.retryAfter }

// Is matches [ErrInsufficientFunds], [ErrKeyReused], [ErrInvalidPayment] and [ErrRejected] by
// Means, or else by the problem's code, on a 4xx. A code on another status is not a refusal. A 2xx other than 201, or a 3xx,
// matches [ErrContract].
func (e *Error) Is(target error) bool {
	if target == ErrContract {
		return e.Status < 400
	}
	if e.Status/100 != 4 {
		return false
	}
	if e.Means != nil {
		return e.Means == target
	}
	return codeSentinels[e.Code] == target
}

var codeSentinels = map[string]error{
	"insufficient_funds":     ErrInsufficientFunds,
	"idempotency_key_reused": ErrKeyReused,
	"invalid_request":        ErrInvalidPayment,
	"payment_rejected":       ErrRejected,
}

// OutcomeUnknownError reports a payment that the PSP may have settled. [Client.Resume] with
// it and the same payment learns the outcome.
//
// [Client.Send] returns it when an attempt may have reached the PSP and the call then ended
// without a definitive answer for the key. An attempt may have reached the PSP if it timed
// out, lost its connection, got a 5xx, 409 or 429, or got an answer outside the contract
// ([ErrContract]). A 202 pending answer returns it too, matching [ErrPending]: the payment
// may settle yet. A 201, [ErrInsufficientFunds], [ErrKeyReused] and [ErrRejected] are
// definitive. A connection that was never made, and any other 4xx, prove that the attempt
// paid nothing. A payment whose next attempt would have ended past the key deadline
// ([ErrKeyExpired]) returns it too. [Client.Lookup] returns it for every answer that is
// neither a receipt, [ErrNoSettlement] nor [ErrRejected], and [Client.Await] when ctx ends
// first.
type OutcomeUnknownError struct {
	Key      string // the Idempotency-Key that every attempt carried
	Attempts int    // the attempts made
	// FirstSent is when the first attempt under Key left, the start of the key's lifetime at
	// the PSP (see [Client.KeyTTL]). It is zero when no attempt was made, and in the errors of
	// [Client.Lookup]. The errors of [Client.Resume] keep the one it was given.
	FirstSent time.Time
	// Ref holds the PSP's ids of the payment that its answers gave, and the payment's
	// consent, for a [Dialect] that looks payments up by them. Keep it with Key.
	Ref Ref
	Err error // the error that ended the call
}

// Error returns "pix: outcome unknown for key KEY after N attempt(s): " and Err's message.
func (e *OutcomeUnknownError) Error() string {
	return "pix: outcome unknown for key " + strconv.Quote(e.Key) + " after " +
		strconv.Itoa(e.Attempts) + " attempt(s): " + e.Err.Error()
}

// Unwrap returns Err.
func (e *OutcomeUnknownError) Unwrap() error { return e.Err }

// Is reports whether target is ErrOutcomeUnknown.
func (e *OutcomeUnknownError) Is(target error) bool { return target == ErrOutcomeUnknown }
