package retry_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/retry"
)

// The tests in this file run in virtual time (testing/synctest): time moves
// only when every goroutine in the bubble is blocked, so the instant of each
// attempt is exactly the sum of the waits before it.

func TestDoWaitsExactlyTheDrawnWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e1, e2, e3, e4 := unavailable(), unavailable(), unavailable(), unavailable()
		s := newScript(t, e1, e2, e3, e4, nil)
		var r recorder
		p := retry.Policy{AttemptsMax: 5, DelayBase: time.Second, DelayMax: 4 * time.Second}
		start := time.Now()
		// Ceilings 1s, 2s, 4s, 4s (capped); waits 1s, 1.5s, 4s, 1s.
		got, err := retry.Do(context.Background(), p, s.op, r.option(),
			retry.WithRand(draws(t, almostOne, 0.75, almostOne, 0.25)))
		if got != 5 || err != nil {
			t.Fatalf("Do() = %d, %v; want 5, nil", got, err)
		}
		wantAt := []time.Duration{0, time.Second, 2500 * time.Millisecond, 6500 * time.Millisecond, 7500 * time.Millisecond}
		if diff := cmp.Diff(wantAt, s.offsets(start)); diff != "" {
			t.Errorf("instants of the attempts (-want +got):\n%s", diff)
		}
		if got, want := time.Since(start), wantAt[4]; got != want {
			t.Errorf("Do returned after %v, want %v: the instant of the last attempt", got, want)
		}
		want := []retry.Attempt{
			{Number: 1, Err: e1, Transient: true, Wait: time.Second},
			{Number: 2, Err: e2, Transient: true, Wait: 1500 * time.Millisecond},
			{Number: 3, Err: e3, Transient: true, Wait: 4 * time.Second},
			{Number: 4, Err: e4, Transient: true, Wait: time.Second},
			{Number: 5, Stop: retry.StopSuccess},
		}
		checkObserved(t, "attempts", want, r.seen)
	})
}

func TestDoDoesNotWaitAfterTheLastAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e1, e2, e3 := unavailable(), unavailable(), unavailable()
		s := newScript(t, e1, e2, e3)
		var r recorder
		p := retry.Policy{AttemptsMax: 3, DelayBase: time.Second, DelayMax: time.Second}
		start := time.Now()
		// Two draws only: a third would fail the test.
		_, err := retry.Do(context.Background(), p, s.op, r.option(), retry.WithRand(draws(t, almostOne, almostOne)))
		checkLastError(t, err, e3)
		wantAt := []time.Duration{0, time.Second, 2 * time.Second}
		if diff := cmp.Diff(wantAt, s.offsets(start)); diff != "" {
			t.Errorf("instants of the attempts (-want +got):\n%s", diff)
		}
		if got, want := time.Since(start), 2*time.Second; got != want {
			t.Errorf("Do returned after %v, want %v: the instant of the last attempt", got, want)
		}
		want := retry.Attempt{Number: 3, Err: e3, Transient: true, Stop: retry.StopBudget}
		checkObserved(t, "last attempt", want, r.seen[2])
	})
}

func TestDoStopsWaitingWhenTheContextEnds(t *testing.T) {
	for _, tt := range []struct {
		name  string
		cause error
		want  string
	}{
		{"canceled", nil, "retry: after attempt 1: context canceled; last error: psp: status 503"},
		{"canceled with a cause", errShutdown,
			"retry: after attempt 1: context canceled: pix: shutting down; last error: psp: status 503"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancelCause(context.Background())
				defer cancel(nil)
				time.AfterFunc(3*time.Second, func() { cancel(tt.cause) })
				last := unavailable()
				s := newScript(t, last)
				var r recorder
				p := retry.Policy{AttemptsMax: 3, DelayBase: 10 * time.Second, DelayMax: 10 * time.Second}
				start := time.Now()
				_, err := retry.Do(ctx, p, s.op, r.option(), retry.WithRand(draws(t, almostOne)))
				if got, want := time.Since(start), 3*time.Second; got != want {
					t.Errorf("Do returned after %v, want %v: at once when canceled", got, want)
				}
				checkContextError(t, err, context.Canceled, context.Cause(ctx), last, tt.want)
				// The observer saw the wait that was then cut short.
				want := []retry.Attempt{{Number: 1, Err: last, Transient: true, Wait: 10 * time.Second}}
				checkObserved(t, "attempts", want, r.seen)
			})
		})
	}
}

func TestDoDoesNotStartAWaitThatEndsAfterTheDeadline(t *testing.T) {
	tests := []struct {
		name     string
		deadline time.Duration
		policy   retry.Policy
		wantAt   []time.Duration
		wantWait time.Duration // the wait Do refused to start
	}{
		{"the second wait would end after the deadline", 10 * time.Second,
			retry.Policy{AttemptsMax: 5, DelayBase: 4 * time.Second, DelayMax: 8 * time.Second},
			[]time.Duration{0, 4 * time.Second}, 8 * time.Second},
		{"the first wait would end at the deadline", 5 * time.Second,
			retry.Policy{AttemptsMax: 5, DelayBase: 5 * time.Second, DelayMax: 5 * time.Second},
			[]time.Duration{0}, 5 * time.Second},
		{"the first wait ends a nanosecond before the deadline", 5*time.Second + 1,
			retry.Policy{AttemptsMax: 5, DelayBase: 5 * time.Second, DelayMax: 5 * time.Second},
			[]time.Duration{0, 5 * time.Second}, 5 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), tt.deadline)
				defer cancel()
				errs := []error{unavailable(), unavailable(), unavailable()}
				s := newScript(t, errs...)
				var r recorder
				start := time.Now()
				_, err := retry.Do(ctx, tt.policy, s.op, r.option(), retry.WithRand(draws(t, almostOne, almostOne)))
				n := len(tt.wantAt)
				if diff := cmp.Diff(tt.wantAt, s.offsets(start)); diff != "" {
					t.Errorf("instants of the attempts (-want +got):\n%s", diff)
				}
				if got, want := time.Since(start), tt.wantAt[n-1]; got != want || ctx.Err() != nil {
					t.Errorf("Do returned after %v (context error %v), want %v, before the deadline", got, ctx.Err(), want)
				}
				checkContextError(t, err, context.DeadlineExceeded, context.DeadlineExceeded, errs[n-1],
					fmt.Sprintf("retry: after attempt %d: context deadline exceeded; last error: psp: status 503", n))
				want := retry.Attempt{Number: n, Err: errs[n-1], Transient: true, Wait: tt.wantWait, Stop: retry.StopContext}
				checkObserved(t, "last attempt", want, r.seen[n-1])
			})
		})
	}
}

// TestDoAttemptDeadlineIsRetriedCallerDeadlineIsNot: an attempt that runs
// out of its own time is retried; one that runs out of the caller's time ends
// the loop.
func TestDoAttemptDeadlineIsRetriedCallerDeadlineIsNot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := retry.Policy{AttemptsMax: 3, DelayBase: time.Second, DelayMax: time.Second}
		var attempts []time.Duration
		start := time.Now()
		slow := func(ctx context.Context) (int, error) {
			attempts = append(attempts, time.Since(start))
			if len(attempts) > p.AttemptsMax {
				t.Fatalf("op called %d times, budget %d", len(attempts), p.AttemptsMax)
			}
			ctx, cancel := context.WithTimeout(ctx, 2*time.Second) // the attempt's own deadline
			defer cancel()
			<-ctx.Done()
			return 0, ctx.Err()
		}
		_, err := retry.Do(context.Background(), p, slow, retry.WithRand(draws(t, almostOne, almostOne)))
		wantAt := []time.Duration{0, 3 * time.Second, 6 * time.Second}
		if diff := cmp.Diff(wantAt, attempts); diff != "" || time.Since(start) != 8*time.Second {
			t.Errorf("attempts at %v, returned at %v; want attempts at %v, return at 8s", attempts, time.Since(start), wantAt)
		}
		if got, want := fmt.Sprint(err), "retry: attempt 3 of 3, budget spent: context deadline exceeded"; got != want {
			t.Errorf("Do() error = %q, want %q", got, want)
		}

		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second) // the caller's deadline
		defer cancel()
		attempts, start = nil, time.Now()
		var r recorder
		_, err = retry.Do(ctx, p, slow, r.option(), retry.WithRand(draws(t, almostOne, almostOne)))
		if diff := cmp.Diff([]time.Duration{0, 3 * time.Second}, attempts); diff != "" || time.Since(start) != 5*time.Second {
			t.Errorf("attempts at %v, returned at %v; want attempts at [0s 3s], return at 5s", attempts, time.Since(start))
		}
		if !errors.Is(err, context.DeadlineExceeded) || stops(r.seen)[1] != retry.StopContext {
			t.Errorf("Do() error = %v with stops %v, want a deadline error and StopContext", err, stops(r.seen))
		}
	})
}

func TestDoRetryAfter(t *testing.T) {
	const delayMax = 4 * time.Second
	tests := []struct {
		name     string
		hint     time.Duration
		wantWait time.Duration
		wantStop retry.Stop
	}{
		{"a hint above the drawn wait raises it", 3 * time.Second, 3 * time.Second, retry.StopNone},
		{"a hint below the drawn wait changes nothing", 500 * time.Millisecond, time.Second, retry.StopNone},
		{"a hint equal to DelayMax is honoured", delayMax, delayMax, retry.StopNone},
		{"a hint above DelayMax stops at once", delayMax + 1, delayMax + 1, retry.StopRetryAfter},
		{"a zero hint is no hint", 0, time.Second, retry.StopNone},
		{"a negative hint is no hint", -time.Hour, time.Second, retry.StopNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				first := &statusError{code: 503, after: tt.hint}
				s := newScript(t, first, nil)
				var r recorder
				p := retry.Policy{AttemptsMax: 2, DelayBase: time.Second, DelayMax: delayMax}
				start := time.Now()
				_, err := retry.Do(context.Background(), p, s.op, r.option(), retry.WithRand(draws(t, almostOne)))
				want := retry.Attempt{Number: 1, Err: first, Transient: true, Wait: tt.wantWait, Stop: tt.wantStop}
				checkObserved(t, "first attempt", want, r.seen[0])
				if tt.wantStop == retry.StopRetryAfter {
					checkLastError(t, err, first)
					if len(s.calls) != 1 || time.Since(start) != 0 {
						t.Errorf("op called %d times, Do returned after %v; want 1 call and no wait", len(s.calls), time.Since(start))
					}
					if got, want := fmt.Sprint(err), "retry: attempt 1: server asked to wait 4.000000001s, more than DelayMax 4s: psp: status 503"; got != want {
						t.Errorf("Do() error = %q, want %q", got, want)
					}
					return
				}
				if diff := cmp.Diff([]time.Duration{0, tt.wantWait}, s.offsets(start)); diff != "" || err != nil {
					t.Errorf("Do() error = %v; instants of the attempts (-want +got):\n%s", err, diff)
				}
			})
		})
	}
}
