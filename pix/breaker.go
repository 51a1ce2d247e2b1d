package pix

import (
	"context"
	"errors"
	"fmt"
	"net/http"
)

// Breaker is a circuit breaker in two steps, asked before every attempt of a payment (see
// [Client.Breaker]). A *gobreaker.TwoStepCircuitBreaker[T] of github.com/sony/gobreaker/v2 is
// one as it is.
//
// Allow either refuses the attempt with an error, and pix sends nothing, or admits it with a
// done that is not nil. pix calls done exactly once for every attempt admitted, with nil when
// the attempt counts as a success and with the attempt's error when it counts as a failure:
//
//   - A success is an attempt that the PSP answered with a status below 500 other than 429: a
//     201, a 202 pending, a refusal, a replayed refusal, a 409 (the key is in flight, so the
//     PSP is alive). An answer outside the contract ([ErrContract]) is a success too, since
//     the PSP answered.
//   - A failure is a 5xx, a 429, or no answer at all: a timeout, a connection refused or
//     broken, an unknown host, or the end of the caller's context during the attempt.
//
// So gobreaker's default IsSuccessful (err == nil) counts what pix means, and
// Settings.IsSuccessful is not needed. Business refusals, such as insufficient funds, never
// open the breaker. An attempt cut short by the caller's context tells nothing about the PSP,
// so exclude it with Settings.IsExcluded if callers cancel payments often.
//
// The first attempt is asked for before [retry.Do] starts, so a payment refused at once made
// no first attempt and adds nothing to a [retry.Quota]. A retry is asked for after its wait,
// and if refused it has already taken its token. When the caller's context ends after the first
// attempt was admitted and before it was made, done gets the context's error.
//
// Settings that suit a PSP: ReadyToTrip after about five consecutive failures (a success in
// between resets the count, so scattered 503s do not open it), a Timeout of a few seconds in
// the open state, and MaxRequests of 1 to 3 probes in the half-open state. A refused attempt
// ends its payment, so a long Timeout fails payments fast for longer.
//
// Allow and done must be safe for concurrent use when the Client is used concurrently.
type Breaker interface {
	Allow() (done func(error), err error)
}

// allow asks c.Breaker for an attempt. Refused, the error wraps ErrCircuitOpen and the
// breaker's.
func (c *Client) allow() (func(error), error) {
	if c.Breaker == nil {
		return uncounted, nil
	}
	done, err := c.Breaker.Allow()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCircuitOpen, err)
	}
	return done, nil
}

// uncounted is the done of a Client without a Breaker.
func uncounted(error) {}

// admitFirst asks the breaker for the payment's first attempt before retry.Do starts, so that a
// payment the breaker refuses never counts as a first attempt: a retry.Quota would earn tokens
// for it. A ctx that already ended asks nothing, since Do then makes no attempt.
func (s *sending) admitFirst(ctx context.Context) error {
	if ctx.Err() != nil {
		return nil
	}
	done, err := s.client.allow()
	s.permit = done
	return err
}

// admit returns the done of the next attempt: the first attempt's, taken by admitFirst, or the
// breaker's answer for a retry. A retry that would not end before the key deadline is refused
// with ErrKeyExpired, and the breaker is not asked. The first attempt needs no such check: a
// fresh key's fits (AttemptTimeout is below the key's window), and Resume checks a resumed
// key's.
func (s *sending) admit() (func(error), error) {
	if done := s.permit; done != nil {
		s.permit = nil
		return done, nil
	}
	if err := s.client.keyExpired(s.firstSent); err != nil {
		return nil, fmt.Errorf("%w; last error: %w", err, s.last.Err)
	}
	return s.client.allow()
}

// release reports the first attempt's permit when retry.Do ended without the attempt, because
// ctx ended after admitFirst. err is Do's error, which wraps ctx's. It is the sending's last
// use of the permit.
func (s *sending) release(err error) {
	if s.permit != nil {
		s.permit(err)
	}
}

// counted is what the breaker counts for an attempt that ended with err: nil for a success, err
// for a failure (see Breaker).
func counted(err error) error {
	if err == nil || errors.Is(err, ErrContract) || errors.Is(err, ErrPending) {
		return nil
	}
	if e, ok := errors.AsType[*Error](err); ok && e.Status < 500 && e.Status != http.StatusTooManyRequests {
		return nil
	}
	return err
}
