package retry

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Do calls op until it succeeds, fails permanently, or p's budget is spent,
// waiting between attempts as the package documentation describes, and
// returns the value of the successful attempt.
//
// Each attempt gets ctx; to bound a single attempt, op derives its own
// context.WithTimeout from it, and the attempt's deadline then fails it with
// a transient timeout. Do checks ctx before every attempt and stops waiting as
// soon as ctx ends; when ctx has a deadline and the chosen wait would end at or
// after it, Do does not start the wait. The context matters only when another
// attempt would follow: an attempt that succeeds, fails permanently, spends
// the budget or brings too long a Retry-After hint ends Do for that reason,
// even if ctx ended meanwhile. The error returned is:
//
//   - for an invalid p, one wrapping [ErrInvalidPolicy]; op is not called;
//   - for a permanent failure, op's error itself, unwrapped;
//   - when the budget is spent, or when a server's Retry-After hint exceeds
//     p.DelayMax, one that wraps the last attempt's error, with the attempt
//     number in its message;
//   - when a [Quota] refused the retry, one that wraps both
//     [ErrQuotaExhausted] and the last attempt's error;
//   - when ctx ends or its deadline would pass during the wait, one that wraps
//     both ctx's error (context.DeadlineExceeded for the early stop), with its
//     cause if one was given, and the last attempt's error, if any attempt was
//     made; if ctx had already ended, op is not called.
//
// A retry must pass the budget, the Retry-After hint and the context before
// Do asks the quota, if any, for a token. So a token is taken only for a retry
// that Do goes on to wait for, and a refusal ends Do at once, with no wait.
//
// errors.Is and errors.As on the returned error thus behave as on the last
// attempt's error. Do never waits after the last attempt. It is safe for
// concurrent use when op and the options' functions are. A first-attempt
// success, or success after transient failures with zero waits, allocates
// nothing beyond what op allocates.
func Do[T any](ctx context.Context, p Policy, op func(ctx context.Context) (T, error), opts ...Option) (T, error) {
	var zero T
	if err := p.Validate(); err != nil {
		return zero, err
	}
	c := newConfig(opts)
	var last error // the previous attempt's error
	for n := 1; ; n++ {
		if ctx.Err() != nil {
			return zero, contextStop(cause(ctx), n-1, last)
		}
		if n == 1 && c.quota != nil {
			c.quota.first()
		}
		v, err := op(ctx)
		a := c.judge(ctx, p, n, err)
		c.observe(a)
		if a.Stop == StopSuccess {
			return v, nil
		}
		if a.Stop != StopNone {
			return zero, stopError(ctx, p, a)
		}
		if !sleep(ctx, a.Wait) {
			return zero, contextStop(cause(ctx), n, err)
		}
		last = err
	}
}

// judge classifies attempt n's outcome and decides what follows it.
func (c *config) judge(ctx context.Context, p Policy, n int, err error) Attempt {
	if err == nil {
		return Attempt{Number: n, Stop: StopSuccess}
	}
	if !c.classify(err) {
		return Attempt{Number: n, Err: err, Stop: StopPermanent}
	}
	wait, stop := c.next(ctx, p, n, err)
	return Attempt{Number: n, Err: err, Transient: true, Wait: wait, Stop: stop}
}

// next chooses the wait after transient failure err of attempt n, or the
// reason to stop there.
func (c *config) next(ctx context.Context, p Policy, n int, err error) (time.Duration, Stop) {
	if n >= p.AttemptsMax {
		return 0, StopBudget
	}
	hint := retryAfter(err)
	if hint > p.DelayMax {
		return hint, StopRetryAfter
	}
	wait := max(FullJitter(Ceiling(p, n), c.rand()), hint)
	if ctx.Err() != nil || endsAfterDeadline(ctx, wait) {
		return wait, StopContext
	}
	if c.quota != nil && !c.quota.take() {
		return wait, StopQuota
	}
	return wait, StopNone
}

// endsAfterDeadline reports whether a wait started now would end at or after
// ctx's deadline, if it has one.
func endsAfterDeadline(ctx context.Context, wait time.Duration) bool {
	deadline, ok := ctx.Deadline()
	return ok && time.Until(deadline) <= wait
}

// retryAfter returns the wait the server asked for in err's chain, if any.
func retryAfter(err error) time.Duration {
	e, ok := errors.AsType[interface {
		error
		RetryAfter() time.Duration
	}](err)
	if !ok {
		return 0
	}
	return e.RetryAfter()
}

// sleep waits for d, and reports false if ctx ended first. A wait of zero
// or less creates no timer.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// stopError is the error Do returns after attempt a, which failed and is the
// last.
func stopError(ctx context.Context, p Policy, a Attempt) error {
	switch a.Stop {
	case StopPermanent:
		return a.Err
	case StopBudget:
		return fmt.Errorf("retry: attempt %d of %d, budget spent: %w", a.Number, p.AttemptsMax, a.Err)
	case StopRetryAfter:
		return fmt.Errorf("retry: attempt %d: server asked to wait %v, more than DelayMax %v: %w",
			a.Number, a.Wait, p.DelayMax, a.Err)
	case StopQuota:
		return fmt.Errorf("%w after attempt %d: %w", ErrQuotaExhausted, a.Number, a.Err)
	}
	if ctx.Err() != nil {
		return contextStop(cause(ctx), a.Number, a.Err)
	}
	return contextStop(context.DeadlineExceeded, a.Number, a.Err)
}

// cause is ctx's error, wrapping also the cause given to ctx if it differs.
func cause(ctx context.Context) error {
	err, why := ctx.Err(), context.Cause(ctx)
	if why == err {
		return err
	}
	return fmt.Errorf("%w: %w", err, why)
}

// contextStop is the error Do returns when the context stops it after
// attempt n, whose error was last (n = 0: before the first attempt).
func contextStop(ctxErr error, n int, last error) error {
	if n == 0 {
		return fmt.Errorf("retry: before attempt 1: %w", ctxErr)
	}
	return fmt.Errorf("retry: after attempt %d: %w; last error: %w", n, ctxErr, last)
}
