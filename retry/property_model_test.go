package retry_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"pgregory.net/rapid"

	"pixretry/retry"
	"pixretry/retry/retrytest"
)

// The property suite of package retry lives in the files property_*_test.go. rapid draws
// scripts of failures, policies at their edges and ends of the caller's context, runs retry.Do
// on them in synctest bubbles, and checks every call against predict, the one model of Do
// (this file; the calls it draws and the violations planted in them are in
// property_model_gen_test.go). Calls that share a retry.Quota are checked against quotaBucket,
// the model of the quota (property_quota_model_test.go, its property in property_quota_test.go).
// The oracles of package retrytest restate Ceiling, FullJitter and the classes of statuses
// another way. Every property shows its coverage of events in the test log.

// The one model of retry.Do: its doc as a program over a script of attempts, in virtual time
// counted from the call. Each step quotes the sentence of Do's doc it follows. The oracles of
// retrytest give the numbers: TransientStatus (through opError.Transient), Ceiling, FullJitter.

// doStep is one attempt of the script. It lasts Took and returns Err.Err, nil for a success.
// The caller's context cuts it short with the context's error, unless the op is Deaf to it.
type doStep struct {
	Took time.Duration
	Err  opError
	Deaf bool
}

// ctxEnd is how the caller's context ends: Kind "none", "cancel" or "deadline", At after the
// call. A cancel at 0 comes before the call. With Cause, the context ends with errShutdown.
type ctxEnd struct {
	Kind  string
	At    time.Duration
	Cause bool
}

// doCase is one call of retry.Do. The attempts after Steps succeed. Draws are the random draws,
// in a cycle. NoOps names options that change nothing (see noOps).
type doCase struct {
	Policy retry.Policy
	Steps  []doStep
	Draws  []float64
	Ctx    ctxEnd
	NoOps  []string
}

// step is the script's attempt n.
func (c doCase) step(n int) doStep {
	if n <= len(c.Steps) {
		return c.Steps[n-1]
	}
	return doStep{}
}

// doPrediction is what Do must do for a doCase.
type doPrediction struct {
	Attempts []retry.Attempt // as the observer sees them
	Starts   []time.Duration // when each attempt starts
	End      time.Duration   // when Do returns
	Stop     retry.Stop      // why Do stopped, StopContext also during a wait
	CtxErr   error           // the context's error, when it stopped Do
	Cause    error           // the context's cause, when it stopped Do with one
	Tie      bool            // an event falls on the instant the context ends: the scheduler orders them
	events   map[string]bool // what happened, for coverage
}

// stopInvalid is the model's stop for an invalid policy.
const stopInvalid retry.Stop = -1

// model follows one call of Do. ctxErr is the error of the caller's context once it ends.
type model struct {
	c      doCase
	now    time.Duration
	draws  int
	ctxErr error
	pr     doPrediction
}

// predict runs the model of Do over c.
func predict(c doCase) doPrediction {
	m := &model{c: c, ctxErr: context.Canceled, pr: doPrediction{events: map[string]bool{}}}
	if c.Ctx.Kind == "deadline" {
		m.ctxErr = context.DeadlineExceeded
	}
	m.run()
	return m.pr
}

func (m *model) run() {
	if p := m.c.Policy; p.AttemptsMax < 1 || p.DelayBase < 0 || p.DelayMax < p.DelayBase {
		m.pr.Stop = stopInvalid // "For an invalid p, Do returns an error ... and does not call op."
		m.saw("invalid policy", true)
		return
	}
	for n := 1; ; n++ {
		if m.ended(m.now) { // "Do checks ctx before every attempt"
			m.stopContext(m.now)
			m.saw("context ended before attempt 1", n == 1)
			return
		}
		a := m.judge(n, m.attempt(n))
		m.pr.Attempts = append(m.pr.Attempts, a)
		m.saw("more than 64 attempts", n > 64)
		if a.Stop != retry.StopNone {
			m.pr.Stop, m.pr.End = a.Stop, m.now
			if a.Stop == retry.StopContext {
				m.stopContext(m.now)
			}
			m.saw("stop: "+a.Stop.String(), true)
			return
		}
		cancel := m.c.Ctx.Kind == "cancel"
		m.pr.Tie = m.pr.Tie || cancel && a.Wait > 0 && m.c.Ctx.At == m.now+a.Wait
		if cancel && m.c.Ctx.At < m.now+a.Wait { // "and stops waiting as soon as ctx ends"
			m.stopContext(m.c.Ctx.At)
			m.saw("cancelled during a wait", true)
			return
		}
		m.now += a.Wait
	}
}

// attempt makes attempt n and returns its error.
func (m *model) attempt(n int) opError {
	m.pr.Starts = append(m.pr.Starts, m.now)
	s, at := m.c.step(n), m.c.Ctx.At
	if s.Took > 0 && m.c.Ctx.Kind != "none" && at > m.now && at <= m.now+s.Took {
		m.pr.Tie = m.pr.Tie || at == m.now+s.Took
		m.saw("context ended during an attempt that ignores it", s.Deaf)
		if !s.Deaf { // "Every attempt gets ctx." Transient: "context.Canceled is permanent"; "A timeout is transient."
			m.saw("context ended during an attempt", true)
			s.Took, s.Err = at-m.now, opError{Name: "context", Err: m.ctxErr, Transient: m.ctxErr != context.Canceled}
		}
	}
	m.now += s.Took
	return s.Err
}

// judge is what Do makes of attempt n, which ended in e at m.now. The cases come in order:
// "An attempt that ends the call for its own reason ... wins over a context that ended meanwhile."
func (m *model) judge(n int, e opError) retry.Attempt {
	p := m.c.Policy
	a := retry.Attempt{Number: n, Err: e.Err, Transient: e.Transient}
	switch {
	case e.Err == nil:
		a.Stop = retry.StopSuccess
	case !e.Transient: // "followed by another only if the classifier calls its error transient"
		a.Stop = retry.StopPermanent
	case n >= p.AttemptsMax: // "No wait follows the last attempt."
		a.Stop = retry.StopBudget
	case e.Hint > p.DelayMax: // "A hint longer than p.DelayMax ends the call"
		a.Wait, a.Stop = e.Hint, retry.StopRetryAfter
	default: // "drawn from [0, Ceiling(p, n)]"; "raises the wait to that hint"
		a.Wait = max(retrytest.FullJitter(retrytest.Ceiling(p, n), m.c.Draws[m.draws%len(m.c.Draws)]), e.Hint)
		m.draws++
		deadline, untilDeadline := m.c.Ctx.Kind == "deadline", m.c.Ctx.At-m.now
		m.saw("deadline exactly as a wait would end", deadline && untilDeadline == a.Wait)
		// "It does not start a wait that would end at or after ctx's deadline."
		if m.ended(m.now) || deadline && untilDeadline <= a.Wait {
			a.Stop = retry.StopContext
		}
	}
	return a
}

// saw records event for coverage, if it happened.
func (m *model) saw(event string, happened bool) {
	if happened {
		m.pr.events[event] = true
	}
}

// ended reports whether the caller's context has ended at t.
func (m *model) ended(t time.Duration) bool { return m.c.Ctx.Kind != "none" && t >= m.c.Ctx.At }

// stopContext ends the call at t: "the error also wraps ctx's error and cause".
// "A wait refused for ending past the deadline counts as context.DeadlineExceeded."
func (m *model) stopContext(t time.Duration) {
	m.pr.Stop, m.pr.End, m.pr.CtxErr = retry.StopContext, t, m.ctxErr
	if m.c.Ctx.Cause && m.ended(t) {
		m.pr.Cause = errShutdown
		m.saw("context ended with a cause", true)
	}
}

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
	opts := []retry.Option{retry.WithRand((&retrytest.Cycle{Draws: c.Draws}).Next), observed.option()}
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
			var cov retrytest.Coverage
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
				cov.Add(pr.events)
			})
			cov.Require(t, 100, events...)
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

// TestCeilingAndFullJitterFollowTheirContract: Ceiling is min(DelayMax, DelayBase·2^(n−1)) for
// every n (below 1 counting as 1) and valid policy. FullJitter is ⌊u·(ceiling+1)⌋ for every
// draw (outside [0, 1), NaN included, the ceiling) and every ceiling (a negative one as 0).
func TestCeilingAndFullJitterFollowTheirContract(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := edgePolicyGen().Draw(t, "policy")
		n := rapid.OneOf(rapid.IntRange(math.MinInt, 1), rapid.IntRange(1, 200), rapid.IntRange(1, math.MaxInt)).Draw(t, "n")
		if got, want := retry.Ceiling(p, n), retrytest.Ceiling(p, max(n, 1)); got != want {
			t.Fatalf("Ceiling(%+v, %d) = %v, want %v", p, n, got, want)
		}
		ceiling := rapid.OneOf(retrytest.Durations(-time.Hour, 0), retrytest.Durations(0, 48*time.Hour),
			retrytest.Durations(0, math.MaxInt64-1)).Draw(t, "ceiling")
		u := rapid.OneOf(rapid.Float64Range(0, 1), rapid.Float64(), rapid.SampledFrom([]float64{0, 1,
			math.Nextafter(1, 0), math.Copysign(0, -1), math.NaN(), math.Inf(1)})).Draw(t, "u")
		if got, want := retry.FullJitter(ceiling, u), retrytest.FullJitter(max(ceiling, 0), u); got != want {
			t.Fatalf("FullJitter(%v, %v) = %v, want %v", ceiling, u, got, want)
		}
	})
}

// TestStopNames: each reason reads as its documented name, and any other value as "Stop(n)".
func TestStopNames(t *testing.T) {
	names := []string{"none", "success", "permanent", "budget", "retry-after", "context", "quota"}
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.IntRange(-1000, 1000).Draw(t, "stop")
		want := fmt.Sprintf("Stop(%d)", s)
		if s >= 0 && s < len(names) {
			want = names[s]
		}
		if got := retry.Stop(s).String(); got != want {
			t.Fatalf("Stop(%d).String() = %q, want %q", s, got, want)
		}
	})
}

// violations collects the violations of one check.
type violations []error

func (v *violations) addf(format string, args ...any) { *v = append(*v, fmt.Errorf(format, args...)) }

// err joins the violations, nil when there are none.
func (v violations) err() error { return errors.Join(v...) }
