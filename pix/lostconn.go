package pix

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptrace"
	"sync/atomic"

	"pixretry/retry"
)

// lostConnError is the failure of an attempt whose connection, new or from the pool, failed
// before the PSP answered a single byte. Most often the server had closed a pooled connection
// while it sat idle, the race that keep-alive costs; a server may also close a new one at once.
// net/http has no sentinel for that ("http: server closed idle connection"), and pix retries it
// within the budget instead of letting net/http resend (see Client.post). Whether the request
// left is not known, so the payment may have settled.
type lostConnError struct{ err error }

func (e *lostConnError) Error() string { return e.err.Error() }
func (e *lostConnError) Unwrap() error { return e.err }

// wire follows one request through net/http with an httptrace.ClientTrace. The fields are
// atomic because net/http reports from its own goroutines.
type wire struct {
	connected, answered atomic.Bool
}

func (w *wire) trace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		GotConn:              func(httptrace.GotConnInfo) { w.connected.Store(true) },
		GotFirstResponseByte: func() { w.answered.Store(true) },
	}
}

// failed wraps err, the failure of the round trip w followed under ctx. It is a
// *lostConnError when the request had a connection and the PSP had not answered. It wraps
// ErrContract when the PSP began to answer and net/http could not read the answer, for a reason
// that is neither a lost connection, a timeout nor ctx's end: a header over headerLimit, or
// bytes that are not an HTTP response.
func (w *wire) failed(ctx context.Context, err error) error {
	answered := w.answered.Load()
	if w.connected.Load() && !answered {
		return &lostConnError{fmt.Errorf("pix: %w", err)}
	}
	if answered && ctx.Err() == nil && !retry.Transient(err) {
		return fmt.Errorf("%w: the answer could not be read: %w", ErrContract, err)
	}
	return fmt.Errorf("pix: %w", err)
}

// transient is retry.Transient, and a connection that failed before any answer. A refusal by
// the breaker or the key deadline is never transient, whatever error it wraps: it ends the
// payment at once.
func transient(err error) bool {
	if errors.Is(err, ErrCircuitOpen) || errors.Is(err, ErrKeyExpired) {
		return false
	}
	_, lost := errors.AsType[*lostConnError](err)
	return lost || retry.Transient(err)
}
