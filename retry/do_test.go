package retry_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"pixretry/retry"
)

// Every test that calls Do runs it in a synctest bubble, even with zero
// delays: should a wait ever be wrong, virtual time makes it fail the test
// at once instead of stalling the suite.

func TestDoAttemptBudget(t *testing.T) {
	t1, t2, t3, t4, t5 := unavailable(), unavailable(), unavailable(), unavailable(), unavailable()
	tests := []struct {
		name      string
		attempts  int
		results   []error
		wantValue int   // the number of the successful attempt, 0 if none
		wantErr   error // the last attempt's error, nil on success
		wantStops []retry.Stop
	}{
		{"1: success", 1, []error{nil}, 1, nil,
			[]retry.Stop{retry.StopSuccess}},
		{"1: failure spends the budget", 1, []error{t1}, 0, t1,
			[]retry.Stop{retry.StopBudget}},
		{"2: success on the first", 2, []error{nil}, 1, nil,
			[]retry.Stop{retry.StopSuccess}},
		{"2: success on the last", 2, []error{t1, nil}, 2, nil,
			[]retry.Stop{retry.StopNone, retry.StopSuccess}},
		{"2: failure on the last", 2, []error{t1, t2}, 0, t2,
			[]retry.Stop{retry.StopNone, retry.StopBudget}},
		{"5: success in the middle", 5, []error{t1, t2, nil}, 3, nil,
			[]retry.Stop{retry.StopNone, retry.StopNone, retry.StopSuccess}},
		{"5: success on the last", 5, []error{t1, t2, t3, t4, nil}, 5, nil,
			[]retry.Stop{retry.StopNone, retry.StopNone, retry.StopNone, retry.StopNone, retry.StopSuccess}},
		{"5: failure on the last", 5, []error{t1, t2, t3, t4, t5}, 0, t5,
			[]retry.Stop{retry.StopNone, retry.StopNone, retry.StopNone, retry.StopNone, retry.StopBudget}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newScript(t, tt.results...)
				var r recorder
				got, err := retry.Do(context.Background(), retry.Policy{AttemptsMax: tt.attempts}, s.op, r.option())
				if got != tt.wantValue {
					t.Errorf("Do() = %d, want %d", got, tt.wantValue)
				}
				checkLastError(t, err, tt.wantErr)
				if len(s.calls) != len(tt.results) {
					t.Errorf("op called %d times, want %d", len(s.calls), len(tt.results))
				}
				if diff := cmp.Diff(tt.wantStops, stops(r.seen)); diff != "" {
					t.Errorf("stops observed (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// checkLastError checks that err behaves as last under errors.Is and
// errors.As, or is nil when last is.
func checkLastError(t *testing.T, err, last error) {
	t.Helper()
	if last == nil {
		if err != nil {
			t.Errorf("Do() error = %v, want nil", err)
		}
		return
	}
	if !errors.Is(err, last) {
		t.Errorf("Do() error = %v, want one that errors.Is the last error %p", err, last)
	}
	if se, ok := errors.AsType[*statusError](err); !ok || error(se) != last {
		t.Errorf("errors.As(Do() error) = %p, want the last error %p", se, last)
	}
}

func stops(seen []retry.Attempt) []retry.Stop {
	got := make([]retry.Stop, len(seen))
	for i, a := range seen {
		got[i] = a.Stop
	}
	return got
}

func TestDoBudgetErrorNamesTheAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, err := retry.Do(context.Background(), retry.Policy{AttemptsMax: 2}, newScript(t, unavailable(), unavailable()).op)
		if got, want := fmt.Sprint(err), "retry: attempt 2 of 2, budget spent: psp: status 503"; got != want {
			t.Errorf("Do() error = %q, want %q", got, want)
		}
	})
}

func TestDoReturnsPermanentErrorsAtOnceUnwrapped(t *testing.T) {
	for _, tt := range []struct {
		name    string
		results []error
	}{
		{"on the first attempt", []error{rejected()}},
		{"after transient failures", []error{unavailable(), unavailable(), rejected()}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newScript(t, tt.results...)
				var r recorder
				_, err := retry.Do(context.Background(), retry.Policy{AttemptsMax: 5}, s.op, r.option())
				last := tt.results[len(tt.results)-1]
				if err != last {
					t.Errorf("Do() error = %v, want the permanent error itself", err)
				}
				want := retry.Attempt{Number: len(tt.results), Err: last, Stop: retry.StopPermanent}
				checkObserved(t, "last attempt", want, r.seen[len(r.seen)-1])
				if len(s.calls) != len(tt.results) {
					t.Errorf("op called %d times, want %d", len(s.calls), len(tt.results))
				}
			})
		})
	}
}

// TestDoObservesEveryAttempt compares the whole sequence an observer sees in
// a run without waits.
func TestDoObservesEveryAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e1, e2 := unavailable(), &statusError{code: 429}
		var r recorder
		got, err := retry.Do(context.Background(), retry.Policy{AttemptsMax: 4}, newScript(t, e1, e2, nil).op, r.option())
		if got != 3 || err != nil {
			t.Fatalf("Do() = %d, %v; want 3, nil", got, err)
		}
		want := []retry.Attempt{
			{Number: 1, Err: e1, Transient: true, Stop: retry.StopNone},
			{Number: 2, Err: e2, Transient: true, Stop: retry.StopNone},
			{Number: 3, Stop: retry.StopSuccess},
		}
		checkObserved(t, "attempts", want, r.seen)
	})
}

func TestWithClassifierReplacesTransient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		errBusy := errors.New("antifraud: busy")
		busy := func(err error) bool { return errors.Is(err, errBusy) }
		s := newScript(t, errBusy, unavailable())
		var r recorder
		_, err := retry.Do(context.Background(), retry.Policy{AttemptsMax: 5}, s.op, retry.WithClassifier(busy), r.option())
		// The classifier retries errBusy, which Transient would not, and gives
		// up on a 503, which Transient would retry.
		if diff := cmp.Diff([]retry.Stop{retry.StopNone, retry.StopPermanent}, stops(r.seen)); diff != "" {
			t.Errorf("stops observed (-want +got):\n%s", diff)
		}
		if err != s.results[1] {
			t.Errorf("Do() error = %v, want the 503 unwrapped", err)
		}
	})
}

func TestOptionsLaterWinsAndNilKeepsTheEarlier(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		never := func(error) bool { return false }
		always := func(error) bool { return true }
		var first, second recorder
		s := newScript(t, rejected(), nil)
		got, err := retry.Do(context.Background(), retry.Policy{AttemptsMax: 2}, s.op,
			retry.WithClassifier(never), first.option(),
			retry.WithClassifier(always), second.option(),
			retry.WithClassifier(nil), retry.WithObserver(nil), retry.WithRand(nil), retry.Option{})
		if got != 2 || err != nil {
			t.Fatalf("Do() = %d, %v; want 2, nil: the later classifier retries the 422", got, err)
		}
		if len(first.seen) != 0 || len(second.seen) != 2 {
			t.Errorf("first observer saw %d attempts, second %d; want 0 and 2", len(first.seen), len(second.seen))
		}
	})
}

func TestDoWithNilOptionsUsesTheDefaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newScript(t, unavailable(), rejected())
		_, err := retry.Do(context.Background(), retry.Policy{AttemptsMax: 3}, s.op,
			retry.WithClassifier(nil), retry.WithObserver(nil), retry.WithRand(nil))
		if err != s.results[1] || len(s.calls) != 2 {
			t.Errorf("Do() error = %v after %d calls; want the 422 after 2: Transient retries the 503 only", err, len(s.calls))
		}
	})
}

func TestStopString(t *testing.T) {
	for s, want := range map[retry.Stop]string{
		retry.StopNone:       "none",
		retry.StopSuccess:    "success",
		retry.StopPermanent:  "permanent",
		retry.StopBudget:     "budget",
		retry.StopRetryAfter: "retry-after",
		retry.StopContext:    "context",
		retry.StopQuota:      "quota",
		retry.Stop(7):        "Stop(7)",
		retry.Stop(-1):       "Stop(-1)",
	} {
		if got := s.String(); got != want {
			t.Errorf("Stop(%d).String() = %q, want %q", int(s), got, want)
		}
	}
}
