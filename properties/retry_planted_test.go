package properties

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"pixretry/retry"
)

// doBaseline is a call of retry.Do that the model predicts in full: a 503 with a 1 s hint, a
// reset connection, a 400 (permanent), under three attempts. faithful is the run Do makes.
func doBaseline() (doCase, doPrediction, doRun) {
	reset := networkErrors()[2]
	c := doCase{
		Policy: retry.Policy{AttemptsMax: 3, DelayBase: 100 * time.Millisecond, DelayMax: 2 * time.Second},
		Steps: []doStep{
			{Took: 10 * time.Millisecond, Err: opError{Name: "503", Err: &statusError{code: 503, hint: time.Second},
				Transient: true, Hint: time.Second}},
			{Err: reset},
			{Err: opError{Name: "400", Err: &statusError{code: 400}}},
		},
		Draws: []float64{0.5},
		Ctx:   ctxEnd{Kind: "none"},
	}
	pr := predict(c)
	run := doRun{Attempts: append([]retry.Attempt(nil), pr.Attempts...), Starts: append([]time.Duration(nil),
		pr.Starts...),
		End: pr.End, Returned: map[int]error{}}
	for i, s := range c.Steps {
		run.Returned[i+1] = s.Err.Err
	}
	run.Err = c.Steps[2].Err.Err
	return c, pr, run
}

// TestDoBaselineKeepsTheModel: the baseline's prediction is the one the documentation gives,
// and the faithful run passes.
func TestDoBaselineKeepsTheModel(t *testing.T) {
	_, pr, run := doBaseline()
	wantStarts := []time.Duration{0, 1010 * time.Millisecond, 1010*time.Millisecond + 100*time.Millisecond}
	if pr.Stop != retry.StopPermanent || len(pr.Starts) != 3 || pr.Starts[1] != wantStarts[1] ||
		pr.Starts[2] != wantStarts[2] {
		t.Fatalf("predict() = stop %v, starts %v; want permanent, %v", pr.Stop, pr.Starts, wantStarts)
	}
	if err := checkDo(pr, run); err != nil {
		t.Fatalf("checkDo(faithful run) = %v, want nil", err)
	}
}

// TestNoVacuousDoModel: checkDo sees every way a run can depart from the model.
func TestNoVacuousDoModel(t *testing.T) {
	for _, tc := range []struct {
		name   string
		want   string
		break_ func(*doRun)
	}{
		{"an attempt started late", "attempts started at", func(r *doRun) { r.Starts[1] += time.Nanosecond }},
		{"a wait off by a nanosecond", "observer saw", func(r *doRun) { r.Attempts[1].Wait++ }},
		{"a verdict flipped", "observer saw", func(r *doRun) { r.Attempts[0].Transient = false }},
		{"another stop", "observer saw", func(r *doRun) { r.Attempts[2].Stop = retry.StopBudget }},
		{"another error observed", "observer saw", func(r *doRun) { r.Attempts[1].Err = io.EOF }},
		{"an extra attempt", "observer saw 4 attempts", func(r *doRun) {
			r.Attempts = append(r.Attempts,
				retry.Attempt{Number: 4})
		}},
		{"a late return", "Do returned at", func(r *doRun) { r.End += time.Millisecond }},
		{"a permanent error wrapped", "the permanent error itself", func(r *doRun) { r.Err = errors.Join(r.Err) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, pr, run := doBaseline()
			tc.break_(&run)
			if err := checkDo(pr, run); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("checkDo() = %v, want a violation saying %q", err, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name string
		stop retry.Stop
		err  error
		want string
	}{
		{"a success that returned an error", retry.StopSuccess, io.EOF, "want 3, nil"},
		{"a budget error that lost the last error", retry.StopBudget, errors.New("retry: attempt 3 of 3"), "want it to wrap"},
		{"a budget error that names no attempt", retry.StopBudget, io.EOF, "name attempt 3"},
		{"a context stop that lost the context's error", retry.StopContext, io.EOF, "want it to wrap context canceled"},
		{"a context stop that names another attempt", retry.StopContext,
			fmt.Errorf("retry: after attempt 4: %w; last error: %w", context.Canceled,
				io.ErrUnexpectedEOF), `name the last attempt: "after attempt 3"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, pr, run := doBaseline()
			pr.Stop, pr.CtxErr, run.Err = tc.stop, context.Canceled, tc.err
			run.Returned[3] = io.ErrUnexpectedEOF
			var v violations
			checkDoResult(&v, pr, run)
			if err := v.err(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("checkDoResult() = %v, want a violation saying %q", err, tc.want)
			}
		})
	}
}

// TestModelOraclesFollowTheContract: the oracles the model uses give the documented values.
func TestModelOraclesFollowTheContract(t *testing.T) {
	p := retry.Policy{AttemptsMax: 100, DelayBase: time.Nanosecond, DelayMax: time.Hour}
	for _, tc := range []struct {
		got, want time.Duration
	}{
		{fullJitterOf(100, 0.5), 50},
		{fullJitterOf(100, 0), 0},
		{fullJitterOf(100, 0.999999999), 100},
		{fullJitterOf(100, 1), 100},
		{fullJitterOf(1<<62, 0.5), 1<<61 + 0},
		{ceilingOf(p, 1), time.Nanosecond},
		{ceilingOf(p, 11), 1024 * time.Nanosecond},
		{ceilingOf(p, 80), time.Hour},
	} {
		if tc.got != tc.want {
			t.Errorf("oracle = %v, want %v", tc.got, tc.want)
		}
	}
	at := time.Date(2026, 1, 2, 10, 0, 0, 500_000_000, time.UTC)
	for value, want := range map[string]time.Duration{
		"7": 7 * time.Second, "0": 0, "-3": 0, "soon": 0, "": 0,
		at.Add(30 * time.Second).Format(http.TimeFormat): 29500 * time.Millisecond,
		at.Add(-time.Minute).Format(http.TimeFormat):     0,
	} {
		if got := hintOf(Trip{End: at, RetryAfter: value}); got != want {
			t.Errorf("hintOf(Trip{RetryAfter: %q}) = %v, want %v", value, got, want)
		}
	}
}
