package pix

import (
	"errors"
	"strconv"
	"time"
)

// Sentinels to check with errors.Is. The PSP's problem codes map to the first three through
// [Error.Is].
var (
	// ErrInsufficientFunds: the PSP refused the payment because it exceeds the payer's
	// balance (422 insufficient_funds). The refusal is stored under the key and replayed: the
	// same key always gets it again.
	ErrInsufficientFunds = errors.New("pix: insufficient funds")
	// ErrKeyReused: the key already holds the outcome of another payment (a different amount,
	// Pix key or description; 422 idempotency_key_reused). This payment was not made.
	ErrKeyReused = errors.New("pix: idempotency key reused with another payment")
	// ErrInvalidPayment: the payment or the key failed local validation and nothing was
	// sent, or the PSP refused the request as invalid (400 invalid_request).
	ErrInvalidPayment = errors.New("pix: invalid payment")
	// ErrContract: the PSP answered outside its response contract: a 201 whose body breaks
	// it, another 2xx, or a 3xx. The error is also an [*OutcomeUnknownError]: the PSP may have
	// settled, and the answer cannot say.
	ErrContract = errors.New("pix: PSP broke the response contract")
	// ErrOutcomeUnknown: an attempt may have reached the PSP and the call ended without a
	// definitive answer; the PSP may or may not hold a settlement. Reconcile with
	// [Client.SendWithKey] and the key of the [*OutcomeUnknownError].
	ErrOutcomeUnknown = errors.New("pix: outcome unknown")
)

// Error is a PSP answer other than 201 Created, decoded from its application/problem+json
// body. A body that is not JSON, or a 2xx or 3xx answer, still gives an Error with Status;
// the other fields are then empty.
//
// StatusCode and RetryAfter let [retry.Transient] classify it (5xx, 429 and 409 are
// transient) and let [retry.Do] honour the server's Retry-After.
type Error struct {
	Status int    // HTTP status code
	Code   string // the problem's "code", such as "insufficient_funds"; may be empty
	Title  string // the problem's "title"
	Detail string // the problem's "detail", for people
	// RetryAfterHint is the answer's Retry-After (seconds, or an HTTP-date taken relative to
	// the time the answer was read); 0 when absent, unparsable or in the past.
	RetryAfterHint time.Duration
}

// Error returns "pix: PSP answered STATUS[ CODE][: DETAIL]".
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

// RetryAfter returns RetryAfterHint.
func (e *Error) RetryAfter() time.Duration { return e.RetryAfterHint }

// Is maps the PSP's problem codes on a 4xx to sentinels: insufficient_funds is
// [ErrInsufficientFunds], idempotency_key_reused is [ErrKeyReused], invalid_request is
// [ErrInvalidPayment]. A code on another status is not a refusal. A status the contract never
// gives, a 2xx other than 201 or a 3xx, is [ErrContract].
func (e *Error) Is(target error) bool {
	if target == ErrContract {
		return e.Status < 400
	}
	return e.Status/100 == 4 && codeSentinels[e.Code] == target
}

var codeSentinels = map[string]error{
	"insufficient_funds":     ErrInsufficientFunds,
	"idempotency_key_reused": ErrKeyReused,
	"invalid_request":        ErrInvalidPayment,
}

// OutcomeUnknownError is the error of a payment whose outcome is unknown: an attempt may
// have reached the PSP (it timed out, lost its connection, got a 5xx, 409 or 429, or a 201
// whose body broke the contract) and the call ended without a definitive answer for the key.
// errors.Is(err, ErrOutcomeUnknown) is true, and Err, the final error, stays reachable with
// errors.Is and errors.As (including the caller's context.Canceled or DeadlineExceeded).
type OutcomeUnknownError struct {
	Key      string // the Idempotency-Key every attempt carried: reconcile with SendWithKey
	Attempts int    // attempts made
	Err      error  // the final error, the last attempt's
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
