package retry

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Do calls op until it succeeds, fails permanently, or p allows no more attempts, and returns
// the value of the successful attempt.
//
// A failed attempt is followed by another only if the classifier calls its error transient.
// The wait after attempt n is drawn from [0, Ceiling(p, n)]. An error in the chain with a
// RetryAfter() time.Duration method raises the wait to that hint. A hint longer than p.DelayMax
// ends the call instead of stalling it. No wait follows the last attempt.
//
// Every attempt gets ctx. To bound one attempt, op derives a context.WithTimeout from ctx, and
// that deadline then fails the attempt with a transient timeout. Do checks ctx before every
// attempt and stops waiting as soon as ctx ends. It does not start a wait that would end at or
// after ctx's deadline. An attempt that ends the call for its own reason (success, a permanent
// error, the last attempt, too long a hint) wins over a context that ended meanwhile.
//
// With a [Quota] (see [WithQuota]), a retry that passed the budget, the hint and the context
// takes a token from the quota before its wait. A refused token ends the call at once.
//
// For an invalid p, Do returns an error wrapping [ErrInvalidPolicy] and does not call op. A
// permanent error comes back as op returned it. Any other error wraps the last attempt's
// error, so errors.Is and errors.As see through it, and its text names that attempt ("attempt
// 3 of 3", "after attempt 2", or "before attempt 1" when ctx ended before any). When ctx stops
// the call, the error also wraps ctx's error and cause. A wait refused for ending past the deadline counts as
// context.DeadlineExceeded. When the quota refuses a retry, the error also wraps
// [ErrQuotaExhausted].
//
// Do is safe for concurrent use when op and the options' functions are. A success after zero
// waits allocates nothing beyond what op allocates.
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
		sleep(ctx, a.Wait) // cut short when ctx ends: the next turn's check then stops the call
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

// sleep waits for d, or until ctx ends. A wait of zero or less creates no
// timer.
func sleep(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
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
// attempt n, whose error was last (0 before the first attempt).
func contextStop(ctxErr error, n int, last error) error {
	if n == 0 {
		return fmt.Errorf("retry: before attempt 1: %w", ctxErr)
	}
	return fmt.Errorf("retry: after attempt %d: %w; last error: %w", n, ctxErr, last)
}
