package retry_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"pixretry/retry"
)

// doBaseline is a call the model predicts in full: a 503 with a 1 s hint, a reset connection,
// then a 400 (permanent), under three attempts. The run is the faithful one, as Do makes it.
func doBaseline() (doPrediction, doRun) {
	c := doCase{
		Policy: retry.Policy{AttemptsMax: 3, DelayBase: 100 * time.Millisecond, DelayMax: 2 * time.Second},
		Steps: []doStep{
			{Took: 10 * time.Millisecond, Err: opError{Name: "503", Err: &statusError{code: 503, after: time.Second},
				Transient: true, Hint: time.Second}},
			{Err: networkErrors()[2]},
			{Err: opError{Name: "400", Err: &statusError{code: 400}}},
		},
		Draws: []float64{0.5},
		Ctx:   ctxEnd{Kind: "none"},
	}
	pr := predict(c)
	return pr, doRun{Attempts: slices.Clone(pr.Attempts), Starts: slices.Clone(pr.Starts), End: pr.End,
		Err: c.Steps[2].Err.Err}
}

// TestNoVacuousDoModel: checkDo passes the faithful run, and sees every way a run can depart
// from the model, and every wrong result for the stop predicted.
func TestNoVacuousDoModel(t *testing.T) {
	for _, tc := range []struct {
		name   string
		want   string
		break_ func(*doPrediction, *doRun)
	}{
		{"the faithful run", "", func(*doPrediction, *doRun) {}},
		{"an attempt started late", "attempts started at", func(_ *doPrediction, r *doRun) { r.Starts[1]++ }},
		{"a wait off by a nanosecond", "observer saw", func(_ *doPrediction, r *doRun) { r.Attempts[1].Wait++ }},
		{"a verdict flipped", "observer saw", func(_ *doPrediction, r *doRun) { r.Attempts[0].Transient = false }},
		{"another stop", "observer saw", func(_ *doPrediction, r *doRun) { r.Attempts[2].Stop = retry.StopBudget }},
		{"another error observed", "observer saw", func(_ *doPrediction, r *doRun) { r.Attempts[1].Err = io.EOF }},
		{"an extra attempt", "observer saw 4 attempts", func(_ *doPrediction, r *doRun) {
			r.Attempts = append(r.Attempts, retry.Attempt{Number: 4})
		}},
		{"a failed call that returned a value", "want the zero value", func(_ *doPrediction, r *doRun) { r.Value = 3 }},
		{"a late return", "Do returned at", func(_ *doPrediction, r *doRun) { r.End += time.Millisecond }},
		{"a permanent error wrapped", "the permanent error itself", func(_ *doPrediction, r *doRun) {
			r.Err = errors.Join(r.Err)
		}},
		{"a success that returned an error", "want 3, nil", wrongResult(retry.StopSuccess, io.EOF)},
		{"a budget error that lost the last error", "want it to wrap",
			wrongResult(retry.StopBudget, errors.New("retry: attempt 3 of 3"))},
		{"a budget error that names no attempt", "name attempt 3", wrongResult(retry.StopBudget, io.EOF)},
		{"a context stop that lost the context's error", "want it to wrap context canceled",
			wrongResult(retry.StopContext, io.EOF)},
		{"a context stop that names another attempt", `name the last attempt: "after attempt 3"`,
			wrongResult(retry.StopContext, fmt.Errorf("retry: after attempt 4: %w; last error: %w", context.Canceled,
				io.ErrUnexpectedEOF))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr, run := doBaseline()
			tc.break_(&pr, &run)
			err := checkDo(pr, run)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("checkDo() = %v, want a violation saying %q (none if empty)", err, tc.want)
			}
		})
	}
}

// wrongResult plants a run that ends with err where the model predicts stop, after a last
// attempt that failed with io.ErrUnexpectedEOF.
func wrongResult(stop retry.Stop, err error) func(*doPrediction, *doRun) {
	return func(pr *doPrediction, r *doRun) {
		pr.Stop, pr.CtxErr, r.Err = stop, context.Canceled, err
		pr.Attempts[2].Err, r.Attempts[2].Err = io.ErrUnexpectedEOF, io.ErrUnexpectedEOF
	}
}

// TestModelOraclesFollowTheContract: the model and the oracles it uses give the documented
// values: the baseline's prediction is the one Do's doc gives.
func TestModelOraclesFollowTheContract(t *testing.T) {
	if pr, _ := doBaseline(); pr.Stop != retry.StopPermanent ||
		fmt.Sprint(pr.Starts) != fmt.Sprint([]time.Duration{0, 1010 * time.Millisecond, 1110 * time.Millisecond}) {
		t.Errorf("predict(baseline) = stop %v, starts %v; want permanent, [0s 1.01s 1.11s]", pr.Stop, pr.Starts)
	}
	p := retry.Policy{AttemptsMax: 100, DelayBase: time.Nanosecond, DelayMax: time.Hour}
	for _, tc := range []struct{ got, want time.Duration }{
		{fullJitterOf(100, 0.5), 50}, {fullJitterOf(100, 0), 0}, {fullJitterOf(100, 0.999999999), 100},
		{fullJitterOf(100, 1), 100}, {fullJitterOf(1<<62, 0.5), 1 << 61},
		{ceilingOf(p, 1), time.Nanosecond}, {ceilingOf(p, 11), 1024 * time.Nanosecond}, {ceilingOf(p, 80), time.Hour},
	} {
		if tc.got != tc.want {
			t.Errorf("oracle = %v, want %v", tc.got, tc.want)
		}
	}
}
