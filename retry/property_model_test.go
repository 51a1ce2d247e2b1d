package retry_test

import (
	"context"
	"time"

	"pixretry/retry"
)

// The one model of retry.Do: its doc as a program over a script of attempts, in virtual time
// counted from the call. Each step quotes the sentence of Do's doc it follows. The suite's
// oracles give the numbers (property_oracle_test.go): transientStatusOf (through
// opError.Transient), ceilingOf, fullJitterOf.

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
		a.Wait = max(fullJitterOf(ceilingOf(p, n), m.c.Draws[m.draws%len(m.c.Draws)]), e.Hint)
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
