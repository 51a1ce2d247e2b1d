package retry_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"pgregory.net/rapid"

	"pixretry/retry"
)

// TestDoProperties runs Do, in virtual time, on random policies, random
// sequences of answers (success, transient with or without a Retry-After
// hint, permanent), random draws and an optional caller deadline, and checks
// what must hold whatever they are.
func TestDoProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rapid.SyncTest(t, checkDoOnce)
	})
}

func checkDoOnce(t *rapid.T) {
	ms := func(n int64) time.Duration { return time.Duration(n) * time.Millisecond }
	base := rapid.Int64Range(0, 3000).Draw(t, "DelayBase ms")
	p := retry.Policy{
		AttemptsMax: rapid.IntRange(1, 6).Draw(t, "AttemptsMax"),
		DelayBase:   ms(base),
		DelayMax:    ms(rapid.Int64Range(base, 10000).Draw(t, "DelayMax ms")),
	}
	hint := rapid.OneOf(
		rapid.Map(rapid.Int64Range(-1000, 12000), ms),
		rapid.SampledFrom([]time.Duration{p.DelayMax, p.DelayMax + 1}), // the boundary
	)
	answer := rapid.OneOf(
		rapid.Just(error(nil)),
		rapid.Just(error(&statusError{code: 422})),
		rapid.Map(hint, func(d time.Duration) error { return &statusError{code: 503, after: d} }),
	)
	answers := rapid.SliceOfN(answer, p.AttemptsMax, p.AttemptsMax).Draw(t, "answers")
	ctx := context.Background()
	deadline := ms(rapid.Int64Range(0, 30000).Draw(t, "deadline ms (0: none)"))
	if deadline > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, deadline)
		defer cancel()
	}

	start := time.Now()
	var at []time.Duration
	op := func(context.Context) (int, error) {
		at = append(at, time.Since(start))
		if len(at) > len(answers) {
			t.Fatalf("op called %d times with AttemptsMax %d", len(at), p.AttemptsMax)
		}
		return len(at), answers[len(at)-1]
	}
	var us []float64
	draw := func() float64 {
		us = append(us, rapid.Float64Range(0, almostOne).Draw(t, "u"))
		return us[len(us)-1]
	}
	var r recorder
	got, err := retry.Do(ctx, p, op, retry.WithRand(draw), r.option())

	checkAttempts(t, p, answers, at, us, r.seen, deadline)
	if elapsed := time.Since(start); elapsed != at[len(at)-1] {
		t.Fatalf("Do returned %v after start, want %v: the instant of the last attempt", elapsed, at[len(at)-1])
	}
	checkResult(t, r.seen[len(r.seen)-1], got, err)
}

// checkAttempts checks the observed attempts against the answers, the
// instants of the calls and the draws.
func checkAttempts(t *rapid.T, p retry.Policy, answers []error, at []time.Duration, us []float64, seen []retry.Attempt, deadline time.Duration) {
	if len(seen) != len(at) || len(seen) == 0 {
		t.Fatalf("%d attempts observed for %d calls", len(seen), len(at))
	}
	drawn := 0
	for i, a := range seen {
		n := i + 1
		last := n == len(seen)
		if a.Number != n || a.Err != answers[i] || a.Transient != (a.Err != nil && retry.Transient(a.Err)) {
			t.Fatalf("attempt %d observed as %+v, answer %v", n, a, answers[i])
		}
		if last != (a.Stop != retry.StopNone) {
			t.Fatalf("attempt %d of %d observed with stop %v", n, len(seen), a.Stop)
		}
		if want := wantStop(p, a, at[i], deadline); a.Stop != want {
			t.Fatalf("attempt %d observed with stop %v, want %v (%+v)", n, a.Stop, want, a)
		}
		if !a.Transient || a.Stop == retry.StopBudget || a.Stop == retry.StopRetryAfter {
			if a.Wait != 0 && a.Stop != retry.StopRetryAfter {
				t.Fatalf("attempt %d observed with wait %v, want none", n, a.Wait)
			}
			continue
		}
		hint := a.Err.(*statusError).after
		if want := max(retry.FullJitter(retry.Ceiling(p, n), us[drawn]), hint); a.Wait != want || a.Wait > p.DelayMax {
			t.Fatalf("attempt %d observed with wait %v, want %v, at most DelayMax %v", n, a.Wait, want, p.DelayMax)
		}
		drawn++
		if !last && at[i+1]-at[i] != a.Wait {
			t.Fatalf("attempt %d came %v after attempt %d, want %v", n+1, at[i+1]-at[i], n, a.Wait)
		}
	}
	if drawn != len(us) {
		t.Fatalf("%d draws taken for %d waits", len(us), drawn)
	}
}

// wantStop is the reason attempt a, made at offset at, should stop Do, in
// the order of precedence Do documents.
func wantStop(p retry.Policy, a retry.Attempt, at, deadline time.Duration) retry.Stop {
	switch {
	case a.Err == nil:
		return retry.StopSuccess
	case !a.Transient:
		return retry.StopPermanent
	case a.Number == p.AttemptsMax:
		return retry.StopBudget
	case a.Err.(*statusError).after > p.DelayMax:
		return retry.StopRetryAfter
	case deadline > 0 && at+a.Wait >= deadline:
		return retry.StopContext
	}
	return retry.StopNone
}

// checkResult checks what Do returned against the last attempt observed.
func checkResult(t *rapid.T, last retry.Attempt, got int, err error) {
	switch last.Stop {
	case retry.StopSuccess:
		if got != last.Number || err != nil {
			t.Fatalf("Do() = %d, %v; want %d, nil", got, err, last.Number)
		}
	case retry.StopPermanent:
		if err != last.Err {
			t.Fatalf("Do() error = %v, want %v itself", err, last.Err)
		}
	default:
		if !errors.Is(err, last.Err) || errors.Is(err, context.DeadlineExceeded) != (last.Stop == retry.StopContext) {
			t.Fatalf("Do() error = %v after stop %v, want one wrapping %v", err, last.Stop, last.Err)
		}
	}
}

// TestDoIsSafeForConcurrentUse runs many calls to Do at once with the default
// source of draws (run it with -race): every wait stays within its ceiling.
func TestDoIsSafeForConcurrentUse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := retry.Policy{AttemptsMax: 4, DelayBase: time.Second, DelayMax: 3 * time.Second}
		var wg sync.WaitGroup
		seen := make([]recorder, 16)
		for i := range seen {
			wg.Go(func() {
				s := newScript(t, unavailable(), unavailable(), unavailable(), nil)
				if got, err := retry.Do(context.Background(), p, s.op, seen[i].option()); got != 4 || err != nil {
					t.Errorf("Do() = %d, %v; want 4, nil", got, err)
				}
			})
		}
		wg.Wait()
		for _, r := range seen {
			for _, a := range r.seen[:3] {
				if a.Wait < 0 || a.Wait > retry.Ceiling(p, a.Number) {
					t.Errorf("attempt %d waited %v, outside [0, %v]", a.Number, a.Wait, retry.Ceiling(p, a.Number))
				}
			}
		}
	})
}
