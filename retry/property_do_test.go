package retry_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"pgregory.net/rapid"

	"pixretry/retry"
)

// The property suite of package retry lives in the files property_*_test.go. rapid draws
// scripts of failures, policies at their edges and ends of the caller's context, runs retry.Do
// on them in synctest bubbles, and checks every call against predict, the one model of Do
// (property_model_test.go). Calls that share a retry.Quota are checked against quotaBucket, the
// model of the quota (property_quota_model_test.go). Planted violations show that each check
// can fail (property_model_planted_test.go, property_quota_planted_test.go). The oracles
// restate Ceiling, FullJitter and the classes of statuses another way (property_oracle_test.go).
// Every property shows its coverage of events in the test log.

// doRun is what Do did.
type doRun struct {
	Attempts []retry.Attempt
	Starts   []time.Duration
	End      time.Duration
	Value    int
	Err      error
}

// runDo calls retry.Do over c's script in the current synctest bubble. Attempt n returns n, with
// its error if it fails.
func runDo(c doCase) doRun {
	start := time.Now()
	ctx, stop := callerContext(c.Ctx, start)
	defer stop()
	var run doRun
	var observed recorder
	op := func(ctx context.Context) (int, error) {
		n := len(run.Starts) + 1
		if n > len(c.Steps)+1 {
			panic(fmt.Sprintf("op called again after attempt %d succeeded", n-1))
		}
		run.Starts = append(run.Starts, time.Since(start))
		return n, c.step(n).play(ctx)
	}
	opts := []retry.Option{retry.WithRand(cycleOf(c.Draws)), observed.option()}
	for i, name := range c.NoOps { // after the real options, then before them, in turn
		opts = slices.Insert(opts, (1-i%2)*len(opts), noOps[name])
	}
	run.Value, run.Err = retry.Do(ctx, c.Policy, op, opts...)
	run.End, run.Attempts = time.Since(start), observed.seen
	return run
}

// play is the op's attempt: it holds for Took and returns Err.Err, or the context's error if
// the context ends first and the op is not deaf.
func (s doStep) play(ctx context.Context) error {
	if s.Deaf || s.Took == 0 {
		time.Sleep(s.Took)
		return s.Err.Err
	}
	select {
	case <-time.After(s.Took):
		return s.Err.Err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// callerContext is the caller's context as end describes it, for a call made at start.
func callerContext(end ctxEnd, start time.Time) (context.Context, func()) {
	var cause error
	if end.Cause {
		cause = errShutdown
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	switch {
	case end.Kind == "cancel" && end.At == 0:
		cancel(cause)
	case end.Kind == "cancel":
		t := time.AfterFunc(end.At, func() { cancel(cause) })
		return ctx, func() { t.Stop(); cancel(nil) }
	case end.Kind == "deadline":
		ctx, stop := context.WithDeadlineCause(ctx, start.Add(end.At), cause)
		return ctx, func() { stop(); cancel(nil) }
	}
	return ctx, func() { cancel(nil) }
}

// checkDo compares what Do did with the model's prediction.
func checkDo(pr doPrediction, run doRun) error {
	var v violations
	if fmt.Sprint(run.Starts) != fmt.Sprint(pr.Starts) {
		v.addf("attempts started at %v, want %v", run.Starts, pr.Starts)
	}
	if run.End != pr.End {
		v.addf("Do returned at %v, want %v", run.End, pr.End)
	}
	if len(run.Attempts) != len(pr.Attempts) {
		v.addf("observer saw %d attempts, want %d", len(run.Attempts), len(pr.Attempts))
	}
	for i := range min(len(run.Attempts), len(pr.Attempts)) {
		if got, want := run.Attempts[i], pr.Attempts[i]; got != want {
			v.addf("attempt %d: observer saw %+v, want %+v", i+1, got, want)
		}
	}
	checkDoResult(&v, pr, run)
	return v.err()
}

// checkDoResult checks Do's value and error against the stop predicted.
func checkDoResult(v *violations, pr doPrediction, run doRun) {
	n := len(pr.Attempts)
	var last error // the last attempt's error, which the observer is checked to have seen
	if n > 0 {
		last = pr.Attempts[n-1].Err
	}
	if pr.Stop != retry.StopSuccess && run.Value != 0 { // op returns its attempt's number even with an error
		v.addf("Do() = %d and an error, want the zero value", run.Value)
	}
	switch pr.Stop {
	case stopInvalid:
		if !errors.Is(run.Err, retry.ErrInvalidPolicy) || len(run.Starts) > 0 {
			v.addf("Do() error = %v after %d attempts, want ErrInvalidPolicy and none", run.Err, len(run.Starts))
		}
	case retry.StopSuccess:
		if run.Err != nil || run.Value != n {
			v.addf("Do() = %d, %v; want %d, nil", run.Value, run.Err, n)
		}
	case retry.StopPermanent:
		if run.Err != last {
			v.addf("Do() error = %v, want the permanent error itself, %v", run.Err, last)
		}
	case retry.StopBudget, retry.StopRetryAfter:
		if !errors.Is(run.Err, last) || !strings.Contains(fmt.Sprint(run.Err), fmt.Sprintf("attempt %d", n)) {
			v.addf("Do() error = %v, want it to wrap %v and name attempt %d", run.Err, last, n)
		}
	case retry.StopContext:
		if !errors.Is(run.Err, pr.CtxErr) || n > 0 && !errors.Is(run.Err, last) {
			v.addf("Do() error = %v, want it to wrap %v and the last attempt's %v", run.Err, pr.CtxErr, last)
		}
		if pr.Cause != nil && !errors.Is(run.Err, pr.Cause) {
			v.addf("Do() error = %v, want it to wrap the context's cause %v", run.Err, pr.Cause)
		}
		name := "before attempt 1"
		if n > 0 {
			name = fmt.Sprintf("after attempt %d", n)
		}
		if !strings.Contains(fmt.Sprint(run.Err), name) {
			v.addf("Do() error = %v, want it to name the last attempt: %q", run.Err, name)
		}
	}
}

// TestDoFollowsItsModel: retry.Do makes the attempts, waits, stops and errors its doc promises,
// for any script of failures, any policy and any end of the caller's context. Each shape of call
// (doShapes) is a subtest that must reach its events.
func TestDoFollowsItsModel(t *testing.T) {
	for shape, events := range doShapes {
		t.Run(shape, func(t *testing.T) {
			var cov coverage
			rapid.Check(t, func(t *rapid.T) {
				c := doCaseGen(shape).Draw(t, "call")
				pr := predict(c)
				if pr.Tie {
					t.Skip("an event falls on the instant the context ends")
				}
				rapid.SyncTest(t, func(t *rapid.T) {
					if err := checkDo(pr, runDo(c)); err != nil {
						t.Fatalf("retry.Do broke its model:\n%v", err)
					}
				})
				cov.addSeen(pr.events)
			})
			t.Log(&cov)
			cov.require(t, 100, events...)
		})
	}
}

// TestDoClassifiesEveryStatus: every status from 100 to 999, bare, with a hint or wrapping a
// connection failure, is judged as Transient's contract says, in a call the model predicts.
// Random calls reach an edge such as 599 only now and then.
func TestDoClassifiesEveryStatus(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := retry.Policy{AttemptsMax: 2, DelayBase: time.Millisecond, DelayMax: time.Second}
		for code := 100; code <= 999; code++ {
			for _, e := range []opError{answerError(code, 0, nil), answerError(code, time.Second, nil),
				answerError(code, 0, io.ErrUnexpectedEOF)} {
				c := doCase{Policy: p, Steps: []doStep{{Err: e}}, Draws: []float64{0.5}, Ctx: ctxEnd{Kind: "none"}}
				if err := checkDo(predict(c), runDo(c)); err != nil {
					t.Fatalf("%s: retry.Do broke its model:\n%v", e.Name, err)
				}
			}
		}
	})
}
