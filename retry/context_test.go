package retry_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"pixretry/retry"
)

var errShutdown = errors.New("pix: shutting down")

func TestDoDoesNotCallOpWhenTheContextHasEnded(t *testing.T) {
	tests := []struct {
		name  string
		end   func(t *testing.T) context.Context
		cause error
		want  string
	}{
		{"canceled", func(t *testing.T) context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, context.Canceled, "retry: before attempt 1: context canceled"},
		{"canceled with a cause", func(t *testing.T) context.Context {
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(errShutdown)
			return ctx
		}, errShutdown, "retry: before attempt 1: context canceled: pix: shutting down"},
		{"deadline passed", func(t *testing.T) context.Context {
			ctx, cancel := context.WithDeadline(context.Background(), time.Now())
			t.Cleanup(cancel)
			return ctx
		}, context.DeadlineExceeded, "retry: before attempt 1: context deadline exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := tt.end(t)
				s := newScript(t) // fails the test if op is called
				var r recorder
				_, err := retry.Do(ctx, retry.Policy{AttemptsMax: 3}, s.op, r.option())
				if !errors.Is(err, ctx.Err()) || !errors.Is(err, tt.cause) {
					t.Errorf("Do() error = %v, want one wrapping %v and %v", err, ctx.Err(), tt.cause)
				}
				if got := fmt.Sprint(err); got != tt.want {
					t.Errorf("Do() error = %q, want %q", got, tt.want)
				}
				if len(r.seen) != 0 {
					t.Errorf("observed %+v, want nothing", r.seen)
				}
			})
		})
	}
}

// TestDoStopsWhenTheContextEndsDuringAnAttempt: an attempt fails
// transiently while its context is canceled, so no further attempt follows.
func TestDoStopsWhenTheContextEndsDuringAnAttempt(t *testing.T) {
	for _, tt := range []struct {
		name   string
		cancel func(context.CancelCauseFunc)
		cause  error
		want   string
	}{
		{"canceled", func(c context.CancelCauseFunc) { c(nil) }, context.Canceled,
			"retry: after attempt 1: context canceled; last error: psp: status 503"},
		{"canceled with a cause", func(c context.CancelCauseFunc) { c(errShutdown) }, errShutdown,
			"retry: after attempt 1: context canceled: pix: shutting down; last error: psp: status 503"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancelCause(context.Background())
				defer cancel(nil)
				last := unavailable()
				s := newScript(t, last)
				var r recorder
				_, err := retry.Do(ctx, retry.Policy{AttemptsMax: 3}, func(ctx context.Context) (int, error) {
					tt.cancel(cancel)
					return s.op(ctx)
				}, r.option())
				checkContextError(t, err, context.Canceled, tt.cause, last, tt.want)
				want := []retry.Attempt{{Number: 1, Err: last, Transient: true, Stop: retry.StopContext}}
				checkObserved(t, "attempts", want, r.seen)
			})
		})
	}
}

// TestDoStopsWhenTheContextEndsBeforeTheNextAttempt: the context ends after
// the observer saw an attempt that was to be followed by another (here the
// observer itself cancels it); Do makes no further attempt and no further
// observation.
func TestDoStopsWhenTheContextEndsBeforeTheNextAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		last := unavailable()
		s := newScript(t, last)
		var r recorder
		_, err := retry.Do(ctx, retry.Policy{AttemptsMax: 3}, s.op, retry.WithObserver(func(a retry.Attempt) {
			r.observe(a)
			cancel()
		}))
		checkContextError(t, err, context.Canceled, context.Canceled, last,
			"retry: after attempt 1: context canceled; last error: psp: status 503")
		want := []retry.Attempt{{Number: 1, Err: last, Transient: true, Stop: retry.StopNone}}
		checkObserved(t, "attempts", want, r.seen)
	})
}

// TestDoOutcomeOutranksTheContext: the context matters only when another
// attempt would follow; an attempt that ends the loop on its own keeps its
// reason.
func TestDoOutcomeOutranksTheContext(t *testing.T) {
	for _, tt := range []struct {
		name     string
		attempts int
		err      error
		want     retry.Stop
	}{
		{"permanent", 3, rejected(), retry.StopPermanent},
		{"budget", 1, unavailable(), retry.StopBudget},
		{"retry-after", 3, &statusError{code: 503, after: time.Hour}, retry.StopRetryAfter},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				s := newScript(t, tt.err)
				var r recorder
				_, err := retry.Do(ctx, retry.Policy{AttemptsMax: tt.attempts, DelayMax: time.Minute},
					func(ctx context.Context) (int, error) {
						cancel()
						return s.op(ctx)
					}, r.option())
				if errors.Is(err, context.Canceled) || !errors.Is(err, tt.err) {
					t.Errorf("Do() error = %v, want %v without the context's error", err, tt.err)
				}
				if got := stops(r.seen); len(got) != 1 || got[0] != tt.want {
					t.Errorf("stops observed = %v, want [%v]", got, tt.want)
				}
			})
		})
	}
}

// checkContextError checks that err wraps the context's error, its cause and
// the last attempt's error, and reads want.
func checkContextError(t *testing.T, err, ctxErr, cause, last error, want string) {
	t.Helper()
	for _, target := range []error{ctxErr, cause} {
		if !errors.Is(err, target) {
			t.Errorf("Do() error = %v, want one wrapping %v", err, target)
		}
	}
	checkLastError(t, err, last)
	if got := fmt.Sprint(err); got != want {
		t.Errorf("Do() error = %q, want %q", got, want)
	}
}
