package properties

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
	"testing/synctest"
	"time"

	"pgregory.net/rapid"

	"pixretry/retry"
)

// The properties of retry.Do alone, checked against predict (retry_model_test.go). The op fails
// on a script: every class of error Transient names, policies at their edges (AttemptsMax 1 to
// math.MaxInt, delays from 0 to a day, ceilings that would pass 2^63 ns), and a caller's
// context that ends before the first attempt, during an attempt or during a wait.

// opError is an error an attempt may return, with its class by Transient's contract.
type opError struct {
	Name      string
	Err       error
	Transient bool
	Hint      time.Duration // its Retry-After hint, 0 for none
}

// statusError is an answer's error: a status, maybe a Retry-After hint, maybe a cause.
type statusError struct {
	code  int
	hint  time.Duration
	cause error
}

func (e *statusError) Error() string             { return fmt.Sprintf("status %d", e.code) }
func (e *statusError) StatusCode() int           { return e.code }
func (e *statusError) RetryAfter() time.Duration { return e.hint }
func (e *statusError) Unwrap() error             { return e.cause }

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
		hint := rapid.OneOf(rapid.Just(time.Duration(0)), durationGen(1, p.DelayMax+1), // none, up to DelayMax,
			durationGen(p.DelayMax, p.DelayMax+time.Hour)).Draw(t, "hint") // or beyond it
		e := &statusError{code: code, hint: hint}
		if rapid.Bool().Draw(t, "wraps a connection failure") {
			e.cause = io.ErrUnexpectedEOF
		}
		return opError{Name: fmt.Sprintf("status %d, hint %v, cause %v", code, hint, e.cause),
			Err: e, Transient: transientStatus(code), Hint: hint}
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
			DelayBase: rapid.OneOf(rapid.Just(time.Duration(0)), durationGen(1, time.Microsecond),
				durationGen(time.Millisecond, time.Hour)).Draw(t, "DelayBase"),
		}
		p.DelayMax = p.DelayBase + rapid.OneOf(rapid.Just(time.Duration(0)), durationGen(0, time.Second),
			durationGen(0, 24*time.Hour)).Draw(t, "DelayMax-DelayBase")
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
		"context ended during an attempt", "context ended with a cause", "deadline exactly as a wait would end",
		"invalid policy"},
	"deaf":          {"context ended during an attempt that ignores it"},
	"long":          {"more than 64 attempts", "cancelled during a wait"},
	"deadline edge": {"deadline exactly as a wait would end"},
}

// doCaseGen draws a call of one of doShapes.
func doCaseGen(shape string) *rapid.Generator[doCase] {
	return rapid.Custom(func(t *rapid.T) doCase {
		c := doCase{Policy: edgePolicyGen().Draw(t, "policy"), Draws: jitterGen().Draw(t, "draws"),
			Ctx: ctxEnd{Kind: "none"}}
		switch shape {
		case "random":
			drawRandomCall(t, &c)
		case "deaf": // the first attempt ignores its context, which ends strictly within it
			took := msRange(2, 2000).Draw(t, "took")
			c.Steps = []doStep{{Took: took, Err: opErrorGen(c.Policy).Draw(t, "error"), Deaf: true}}
			c.Ctx = ctxEnd{Kind: rapid.SampledFrom([]string{"cancel", "deadline"}).Draw(t, "context"),
				At: durationGen(1, took-1).Draw(t, "ends at"), Cause: rapid.Bool().Draw(t, "with a cause")}
		case "long":
			drawLongRun(t, &c)
		case "deadline edge": // a transient failure, then a wait above zero that the deadline meets
			c.Draws = []float64{rapid.Float64Range(0.001, 0.999).Draw(t, "draw")}
			c.Policy.AttemptsMax = max(c.Policy.AttemptsMax, 2)
			c.Policy.DelayBase = max(c.Policy.DelayBase, time.Microsecond)
			c.Policy.DelayMax = max(c.Policy.DelayMax, c.Policy.DelayBase)
			c.Steps = []doStep{{Took: msRange(0, 2000).Draw(t, "took"),
				Err: rapid.SampledFrom(networkErrors()[:8]).Draw(t, "transient error")}}
			end, _ := firstWaitEnd(c)
			c.Ctx = ctxEnd{Kind: "deadline", At: end + durationGen(-1, 1).Draw(t, "deadline offset"),
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
	took := rapid.OneOf(rapid.Just(time.Duration(0)), msRange(1, 2000))
	c.Steps = rapid.SliceOfN(rapid.Custom(func(t *rapid.T) doStep {
		e := opErrorGen(c.Policy).Draw(t, "error")
		return doStep{Took: took.Draw(t, "took"), Err: e, Deaf: rapid.IntRange(0, 3).Draw(t, "deaf") == 0}
	}), 0, 10).Draw(t, "steps")
	if rapid.IntRange(0, 3).Draw(t, "long run") == 0 {
		c.Steps = append(c.Steps, longRun(t)...)
	}
	c.Ctx.Kind = rapid.SampledFrom([]string{"none", "cancel", "deadline"}).Draw(t, "context")
	if c.Ctx.Kind != "none" {
		scale := durationGen(1, 2*c.Policy.DelayMax+2*time.Second)
		c.Ctx.At = rapid.OneOf(rapid.Just(time.Duration(0)), msRange(0, 3000), scale, scale, scale).Draw(t, "ends at")
		c.Ctx.Cause = rapid.Bool().Draw(t, "with a cause")
		if first, ok := firstWaitEnd(*c); ok && c.Ctx.Kind == "deadline" &&
			rapid.IntRange(0, 3).Draw(t, "deadline as the first wait ends") == 0 {
			c.Ctx.At = first
		}
	}
	if rapid.IntRange(0, 7).Draw(t, "invalid policy") == 0 {
		c.Policy = invalidPolicyGen().Draw(t, "invalid policy")
	}
}

// firstWaitEnd is when the wait after c's first attempt would end, if that attempt is retried.
func firstWaitEnd(c doCase) (time.Duration, bool) {
	p := c.Policy
	if len(c.Steps) == 0 || p.AttemptsMax < 2 || p.DelayMax < p.DelayBase || p.DelayBase < 0 ||
		!c.Steps[0].Err.Transient || c.Steps[0].Err.Hint > p.DelayMax {
		return 0, false
	}
	return c.Steps[0].Took + max(fullJitterOf(ceilingOf(p, 1), c.Draws[0]), c.Steps[0].Err.Hint), true
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
		expected += ceilingOf(c.Policy, n+1) / 2
	}
	if expected > 0 && rapid.Bool().Draw(t, "cancelled") {
		c.Ctx = ctxEnd{Kind: "cancel", At: durationGen(1, expected).Draw(t, "cancelled at")}
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
	op := func(ctx context.Context) (int, error) {
		n := len(run.Starts) + 1
		if n > len(c.Steps)+1 {
			panic(fmt.Sprintf("op called again after attempt %d succeeded", n-1))
		}
		run.Starts = append(run.Starts, time.Since(start))
		return n, c.step(n).play(ctx)
	}
	draws := &drawSource{cycle: c.Draws}
	opts := []retry.Option{retry.WithRand(draws.next),
		retry.WithObserver(func(a retry.Attempt) { run.Attempts = append(run.Attempts, a) })}
	for i, name := range c.NoOps { // after the real options, then before them, in turn
		opts = slices.Insert(opts, (1-i%2)*len(opts), noOps[name])
	}
	run.Value, run.Err = retry.Do(ctx, c.Policy, op, opts...)
	run.End = time.Since(start)
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
		cause = errCallerCause
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
			for _, e := range []*statusError{{code: code}, {code: code, hint: time.Second},
				{code: code, cause: io.ErrUnexpectedEOF}} {
				step := doStep{Err: opError{Name: e.Error(), Err: e, Transient: transientStatus(code), Hint: e.hint}}
				c := doCase{Policy: p, Steps: []doStep{step}, Draws: []float64{0.5}, Ctx: ctxEnd{Kind: "none"}}
				if err := checkDo(predict(c), runDo(c)); err != nil {
					t.Fatalf("status %d, hint %v, cause %v: retry.Do broke its model:\n%v", code, e.hint, e.cause, err)
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
		if got, want := retry.Ceiling(p, n), ceilingOf(p, max(n, 1)); got != want {
			t.Fatalf("Ceiling(%+v, %d) = %v, want %v", p, n, got, want)
		}
		ceiling := rapid.OneOf(durationGen(-time.Hour, 0), durationGen(0, 48*time.Hour),
			durationGen(0, math.MaxInt64-1)).Draw(t, "ceiling")
		u := rapid.OneOf(rapid.Float64Range(0, 1), rapid.Float64(), rapid.SampledFrom([]float64{0, 1,
			math.Nextafter(1, 0), math.Copysign(0, -1), math.NaN(), math.Inf(1)})).Draw(t, "u")
		if got, want := retry.FullJitter(ceiling, u), fullJitterOf(max(ceiling, 0), u); got != want {
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
