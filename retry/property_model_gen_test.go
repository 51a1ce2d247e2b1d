package retry_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"pgregory.net/rapid"

	"pixretry/retry"
	"pixretry/retry/retrytest"
)

// The calls TestDoFollowsItsModel draws, and the violations planted to show that checkDo can
// fail (doBaseline, TestNoVacuousDoModel). The op fails on a script: every class of error
// Transient names, policies at their edges (AttemptsMax 1 to math.MaxInt, delays from 0 to a
// day, ceilings that would pass 2^63 ns), and a caller's context that ends before the first
// attempt, during an attempt or during a wait.

// opError is an error an attempt may return, with its class by Transient's contract.
type opError struct {
	Name      string
	Err       error
	Transient bool
	Hint      time.Duration // its Retry-After hint, 0 for none
}

// causedStatus is an answer's error that also wraps the connection failure it came with. The
// status decides alone, by Transient's contract.
type causedStatus struct {
	*statusError
	cause error
}

func (e *causedStatus) Unwrap() error { return e.cause }

// answerError is the error of an answer of status code, with a Retry-After hint (0 for none)
// and a cause (nil for none), classed by transientStatusOf.
func answerError(code int, hint time.Duration, cause error) opError {
	s := &statusError{code: code, after: hint}
	var err error = s
	if cause != nil {
		err = &causedStatus{statusError: s, cause: cause}
	}
	return opError{Name: fmt.Sprintf("status %d, hint %v, cause %v", code, hint, cause), Err: err,
		Transient: retrytest.TransientStatus(code), Hint: hint}
}

// networkErrors are the errors that are not answers. The first 8 are transient: a connection
// that failed before a whole answer came back, or a timeout.
func networkErrors() []opError {
	sys := func(op string, errno syscall.Errno) error {
		return &net.OpError{Op: op, Net: "tcp", Err: os.NewSyscallError(op, errno)}
	}
	timeout := &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}
	return []opError{
		{Name: "EOF", Err: fmt.Errorf("reading: %w", io.EOF), Transient: true},
		{Name: "unexpected EOF", Err: io.ErrUnexpectedEOF, Transient: true},
		{Name: "connection reset", Err: sys("read", syscall.ECONNRESET), Transient: true},
		{Name: "connection refused", Err: sys("dial", syscall.ECONNREFUSED), Transient: true},
		{Name: "broken pipe", Err: sys("write", syscall.EPIPE), Transient: true},
		{Name: "closed connection", Err: fmt.Errorf("write: %w", net.ErrClosed), Transient: true},
		{Name: "i/o timeout", Err: timeout, Transient: true},
		{Name: "attempt deadline", Err: fmt.Errorf("attempt: %w", context.DeadlineExceeded), Transient: true},
		{Name: "no such host", Err: &net.DNSError{Err: "no such host", Name: "psp.invalid", IsNotFound: true}},
		{Name: "arbitrary", Err: errors.New("op: the ledger is read-only")},
		{Name: "canceled", Err: fmt.Errorf("op: %w", context.Canceled)},
		{Name: "canceled after EOF", Err: errors.Join(io.EOF, context.Canceled)},
		{Name: "net.Error, no timeout", Err: &net.OpError{Op: "read", Net: "tcp", Err: errors.New("bad record MAC")}},
	}
}

// opErrorGen draws an error of any class. An answer has any status from 100 to 599 (the
// transient ones and the edges often), maybe a hint, maybe a connection failure as its cause.
func opErrorGen(p retry.Policy) *rapid.Generator[opError] {
	status := rapid.Custom(func(t *rapid.T) opError {
		transient := rapid.SampledFrom([]int{409, 429, 500, 502, 503, 504, 599})
		code := rapid.OneOf(rapid.IntRange(400, 599), rapid.IntRange(100, 399), transient, transient,
			rapid.SampledFrom([]int{400, 408, 410, 422, 428, 430, 499, 501, 505})).Draw(t, "status")
		hint := rapid.OneOf(rapid.Just(time.Duration(0)), retrytest.Durations(1, p.DelayMax+1), // none, up to DelayMax,
			retrytest.Durations(p.DelayMax, p.DelayMax+time.Hour)).Draw(t, "hint") // or beyond it
		var cause error
		if rapid.Bool().Draw(t, "wraps a connection failure") {
			cause = io.ErrUnexpectedEOF
		}
		return answerError(code, hint, cause)
	})
	network := networkErrors()
	return rapid.OneOf(status, rapid.SampledFrom(network), rapid.SampledFrom(network[:8]))
}

// edgePolicyGen draws AttemptsMax from 1 to math.MaxInt, DelayBase 0, a few nanoseconds or up
// to an hour, and DelayMax from DelayBase to a day above it.
func edgePolicyGen() *rapid.Generator[retry.Policy] {
	return rapid.Custom(func(t *rapid.T) retry.Policy {
		p := retry.Policy{
			AttemptsMax: rapid.OneOf(rapid.IntRange(1, 6), rapid.IntRange(1, 100), rapid.Just(math.MaxInt),
				rapid.IntRange(1, math.MaxInt)).Draw(t, "AttemptsMax"),
			DelayBase: rapid.OneOf(rapid.Just(time.Duration(0)), retrytest.Durations(1, time.Microsecond),
				retrytest.Durations(time.Millisecond, time.Hour)).Draw(t, "DelayBase"),
		}
		p.DelayMax = p.DelayBase + rapid.OneOf(rapid.Just(time.Duration(0)), retrytest.Durations(0, time.Second),
			retrytest.Durations(0, 24*time.Hour)).Draw(t, "DelayMax-DelayBase")
		return p
	})
}

// noOps are the options that change nothing: the zero Option and options of nil functions.
var noOps = map[string]retry.Option{
	"zero": {}, "WithRand(nil)": retry.WithRand(nil), "WithObserver(nil)": retry.WithObserver(nil),
	"WithClassifier(nil)": retry.WithClassifier(nil), "WithQuota(nil)": retry.WithQuota(nil),
}

// doShapes are the calls doCaseGen draws, with the events each must reach in 100 runs. Random
// calls reach the other shapes' events too rarely to require them: a context that ends during an
// attempt that ignores it (about 3 random calls in 100), more than 64 attempts (the ceiling then
// stays DelayMax, never overflowing) with a cancel during a wait, and a deadline exactly as the
// first wait would end, or a nanosecond either side.
var doShapes = map[string][]string{
	"random": {"stop: success", "stop: permanent", "stop: budget", "stop: context", "context ended before attempt 1",
		"context ended during an attempt", "context ended with a cause", "invalid policy"},
	"deaf":          {"context ended during an attempt that ignores it"},
	"long":          {"more than 64 attempts", "cancelled during a wait"},
	"deadline edge": {"deadline exactly as a wait would end"},
}

// doCaseGen draws a call of one of doShapes.
func doCaseGen(shape string) *rapid.Generator[doCase] {
	return rapid.Custom(func(t *rapid.T) doCase {
		c := doCase{Policy: edgePolicyGen().Draw(t, "policy"), Draws: retrytest.Draws().Draw(t, "draws"),
			Ctx: ctxEnd{Kind: "none"}}
		switch shape {
		case "random":
			drawRandomCall(t, &c)
		case "deaf": // the first attempt ignores its context, which ends strictly within it
			took := retrytest.Millis(2, 2000).Draw(t, "took")
			c.Steps = []doStep{{Took: took, Err: opErrorGen(c.Policy).Draw(t, "error"), Deaf: true}}
			c.Ctx = ctxEnd{Kind: rapid.SampledFrom([]string{"cancel", "deadline"}).Draw(t, "context"),
				At: retrytest.Durations(1, took-1).Draw(t, "ends at"), Cause: rapid.Bool().Draw(t, "with a cause")}
		case "long":
			drawLongRun(t, &c)
		case "deadline edge": // a transient failure, then a wait above zero that the deadline meets
			c.Draws = []float64{rapid.Float64Range(0.001, 0.999).Draw(t, "draw")}
			c.Policy.AttemptsMax = max(c.Policy.AttemptsMax, 2)
			c.Policy.DelayBase = max(c.Policy.DelayBase, time.Microsecond)
			c.Policy.DelayMax = max(c.Policy.DelayMax, c.Policy.DelayBase)
			c.Steps = []doStep{{Took: retrytest.Millis(0, 2000).Draw(t, "took"),
				Err: rapid.SampledFrom(networkErrors()[:8]).Draw(t, "transient error")}}
			end, _ := firstWaitEnd(c)
			c.Ctx = ctxEnd{Kind: "deadline", At: end + retrytest.Durations(-1, 1).Draw(t, "deadline offset"),
				Cause: rapid.Bool().Draw(t, "with a cause")}
		}
		return c
	})
}

// drawRandomCall draws up to 10 attempts, then a success, sometimes after a long run of transient
// failures. The draws may leave [0, 1); the context may end at any instant, or as the first wait
// would end; one call in 8 has an invalid policy.
func drawRandomCall(t *rapid.T, c *doCase) {
	c.NoOps = rapid.SliceOfN(rapid.SampledFrom(slices.Sorted(maps.Keys(noOps))), 0, 3).Draw(t, "no-op options")
	if rapid.IntRange(0, 5).Draw(t, "draws outside [0, 1)") == 0 {
		wild := []float64{1, 1.5, -0.25, math.NaN(), math.Inf(1), math.Inf(-1)}
		c.Draws = rapid.SliceOfN(rapid.SampledFrom(wild), 1, 3).Draw(t, "wild draws")
	}
	took := rapid.OneOf(rapid.Just(time.Duration(0)), retrytest.Millis(1, 2000))
	c.Steps = rapid.SliceOfN(rapid.Custom(func(t *rapid.T) doStep {
		e := opErrorGen(c.Policy).Draw(t, "error")
		return doStep{Took: took.Draw(t, "took"), Err: e, Deaf: rapid.IntRange(0, 3).Draw(t, "deaf") == 0}
	}), 0, 10).Draw(t, "steps")
	if rapid.IntRange(0, 3).Draw(t, "long run") == 0 {
		c.Steps = append(c.Steps, longRun(t)...)
	}
	c.Ctx.Kind = rapid.SampledFrom([]string{"none", "cancel", "deadline"}).Draw(t, "context")
	if c.Ctx.Kind != "none" {
		scale := retrytest.Durations(1, 2*c.Policy.DelayMax+2*time.Second)
		c.Ctx.At = rapid.OneOf(rapid.Just(time.Duration(0)), retrytest.Millis(0, 3000), scale, scale, scale).Draw(t, "ends at")
		c.Ctx.Cause = rapid.Bool().Draw(t, "with a cause")
		if first, ok := firstWaitEnd(*c); ok && c.Ctx.Kind == "deadline" &&
			rapid.IntRange(0, 3).Draw(t, "deadline as the first wait ends") == 0 {
			c.Ctx.At = first
		}
	}
	if rapid.IntRange(0, 7).Draw(t, "invalid policy") == 0 {
		c.Policy = retrytest.InvalidPolicy().Draw(t, "invalid policy")
	}
}

// firstWaitEnd is when the wait after c's first attempt would end, if that attempt is retried.
func firstWaitEnd(c doCase) (time.Duration, bool) {
	p := c.Policy
	if len(c.Steps) == 0 || p.AttemptsMax < 2 || p.DelayMax < p.DelayBase || p.DelayBase < 0 ||
		!c.Steps[0].Err.Transient || c.Steps[0].Err.Hint > p.DelayMax {
		return 0, false
	}
	return c.Steps[0].Took + max(retrytest.FullJitter(retrytest.Ceiling(p, 1), c.Draws[0]), c.Steps[0].Err.Hint), true
}

// longRun draws 60 to 80 attempts that fail at once with the same transient network error.
func longRun(t *rapid.T) []doStep {
	e := rapid.SampledFrom(networkErrors()[:8]).Draw(t, "long run error")
	steps := make([]doStep, rapid.IntRange(60, 80).Draw(t, "long run length"))
	for i := range steps {
		steps[i].Err = e
	}
	return steps
}

// drawLongRun draws a long run under a budget that allows it all, with waits of a quarter of the
// ceiling or more, and a context that never ends or is cancelled within the run's expected length.
func drawLongRun(t *rapid.T, c *doCase) {
	c.Steps, c.Draws = longRun(t), []float64{rapid.Float64Range(0.25, 0.999).Draw(t, "draw")}
	c.Policy.AttemptsMax = rapid.IntRange(len(c.Steps)+1, math.MaxInt).Draw(t, "AttemptsMax")
	var expected time.Duration // waits average half their ceiling
	for n := range len(c.Steps) {
		expected += retrytest.Ceiling(c.Policy, n+1) / 2
	}
	if expected > 0 && rapid.Bool().Draw(t, "cancelled") {
		c.Ctx = ctxEnd{Kind: "cancel", At: retrytest.Durations(1, expected).Draw(t, "cancelled at")}
	}
}

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

// TestModelFollowsTheContract: the model gives the documented values: the baseline's
// prediction is the one Do's doc gives. retrytest grades the oracles it uses.
func TestModelFollowsTheContract(t *testing.T) {
	if pr, _ := doBaseline(); pr.Stop != retry.StopPermanent ||
		fmt.Sprint(pr.Starts) != fmt.Sprint([]time.Duration{0, 1010 * time.Millisecond, 1110 * time.Millisecond}) {
		t.Errorf("predict(baseline) = stop %v, starts %v; want permanent, [0s 1.01s 1.11s]", pr.Stop, pr.Starts)
	}
}
