package properties

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"pixretry/retry"
)

// The one model of retry.Do: its documentation as a program, over a script of attempts. Each
// step below quotes the sentence of Do's doc it follows. The suite's own oracles give the
// numbers: transientStatus (through opError.Transient), ceilingOf and fullJitterOf.

// doStep is one attempt of the script: it lasts Took (cut short if the caller's context ends,
// unless Deaf) and returns Err.Err; a nil Err.Err is a success.
type doStep struct {
	Took time.Duration
	Err  opError
	Deaf bool // the op ignores its context: it holds for Took and returns Err.Err even when the context ends
}

// ctxEnd is how the caller's context ends: never, cancelled, or at its deadline, At after Do
// is called. A cancel at 0 happens before Do is called; a deadline at 0 has passed by then.
type ctxEnd struct {
	Kind  string // "none", "cancel", "deadline"
	At    time.Duration
	Cause bool // the context ends with errCallerCause as its cause
}

// errCallerCause is the cause a caller gives when it ends the context.
var errCallerCause = errors.New("caller: shutting down")

// doCase is one generated call of retry.Do.
type doCase struct {
	Policy retry.Policy
	Steps  []doStep // after the last, attempts succeed
	Draws  []float64
	Ctx    ctxEnd
	// NoOps are options that change nothing, passed before and after the real ones: the zero
	// Option, and options made from nil functions.
	NoOps []string
}

// noOps are the options that change nothing, by name.

// step is the script's attempt n; after the script, attempts succeed.
func (c doCase) step(n int) doStep {
	if n <= len(c.Steps) {
		return c.Steps[n-1]
	}
	return doStep{}
}

// doPrediction is what Do must do for a doCase.
type doPrediction struct {
	Attempts []retry.Attempt // as the observer must see them (Err is the step's error)
	Starts   []time.Duration // when each attempt starts, from the call
	End      time.Duration   // when Do returns
	Stop     retry.Stop      // why it stopped; StopContext also for a context that ends in a wait
	CtxErr   error           // the context's error, when it stopped Do
	Cause    error           // the context's cause, when it stopped Do after it ended with one
	Tie      bool            // an event falls on the instant the context ends: the order is the scheduler's
	events   map[string]bool // what happened, for the coverage count
}

// predict runs the model of Do over c.

// stopInvalid is the model's stop for an invalid policy: no attempt, ErrInvalidPolicy.
const stopInvalid retry.Stop = -1

// model follows one call of Do in virtual time, counted from the call.
type model struct {
	c     doCase
	now   time.Duration
	draws int
	pr    doPrediction
}

// predict runs the model of Do over c.
func predict(c doCase) doPrediction {
	m := &model{c: c, pr: doPrediction{events: map[string]bool{}}}
	m.run()
	return m.pr
}

func (m *model) run() {
	if p := m.c.Policy; p.AttemptsMax < 1 || p.DelayBase < 0 || p.DelayMax < p.DelayBase {
		m.pr.Stop = stopInvalid // "For an invalid p, Do ... does not call op."
		m.pr.events["invalid policy"] = true
		return
	}
	for n := 1; ; n++ {
		if m.ended(m.now) { // "Do checks ctx before every attempt"
			m.stopContext(m.now)
			m.pr.events[fmt.Sprintf("context ended before attempt %s", map[bool]string{true: "1", false: "n>1"}[n == 1])] = true
			return
		}
		a := m.judge(n, m.attempt(n))
		m.pr.Attempts = append(m.pr.Attempts, a)
		if n > 64 {
			m.pr.events["more than 64 attempts"] = true
		}
		if a.Stop != retry.StopNone {
			m.pr.Stop, m.pr.End = a.Stop, m.now
			if a.Stop == retry.StopContext {
				m.stopContext(m.now)
			}
			m.pr.events["stop: "+a.Stop.String()] = true
			return
		}
		cancel := m.c.Ctx.Kind == "cancel"
		m.pr.Tie = m.pr.Tie || cancel && a.Wait > 0 && m.c.Ctx.At == m.now+a.Wait
		if cancel && m.c.Ctx.At < m.now+a.Wait { // "and stops waiting as soon as ctx ends"
			m.stopContext(m.c.Ctx.At)
			m.pr.events["cancelled during a wait"] = true
			return
		}
		m.now += a.Wait
	}
}

// attempt makes attempt n and returns its error. The op holds for the step's Took; a context
// that ends meanwhile cuts it short with the context's error, unless the op ignores it.
func (m *model) attempt(n int) opError {
	m.pr.Starts = append(m.pr.Starts, m.now)
	s, at := m.c.step(n), m.c.Ctx.At
	if s.Took > 0 && m.c.Ctx.Kind != "none" && at > m.now && at <= m.now+s.Took {
		m.pr.Tie = m.pr.Tie || at == m.now+s.Took // whether the op or the context ends first is the scheduler's
		if s.Deaf {
			m.pr.events["context ended during an attempt that ignores it"] = true
		} else {
			m.pr.events["context ended during an attempt"] = true
			// "that deadline then fails the attempt with a transient timeout"
			s.Took, s.Err = at-m.now, opError{Name: "context", Err: m.ctxErr(),
				Transient: m.ctxErr() == context.DeadlineExceeded}
		}
	}
	m.now += s.Took
	return s.Err
}

// judge is what follows attempt n, which ended in e at m.now.
func (m *model) judge(n int, e opError) retry.Attempt {
	p := m.c.Policy
	a := retry.Attempt{Number: n, Err: e.Err, Transient: e.Transient}
	switch {
	case e.Err == nil:
		a.Stop = retry.StopSuccess
	case !e.Transient: // "only if the classifier calls its error transient"
		a.Stop = retry.StopPermanent
	case n >= p.AttemptsMax:
		a.Stop = retry.StopBudget
	case e.Hint > p.DelayMax: // "A hint longer than p.DelayMax ends the call"
		a.Wait, a.Stop = e.Hint, retry.StopRetryAfter
	default: // "drawn from [0, Ceiling(p, n)]", "raises the wait to that hint"
		u := m.c.Draws[m.draws%len(m.c.Draws)]
		m.draws++
		a.Wait = max(fullJitterOf(ceilingOf(p, n), u), e.Hint)
		untilDeadline := m.c.Ctx.At - m.now
		deadline := m.c.Ctx.Kind == "deadline"
		if deadline && untilDeadline == a.Wait {
			m.pr.events["deadline exactly as a wait would end"] = true
		}
		if m.ended(m.now) || deadline && untilDeadline <= a.Wait { // "does not start a wait that would end at or after"
			a.Stop = retry.StopContext
		}
	}
	return a
}

// ended reports whether the caller's context has ended at t.
func (m *model) ended(t time.Duration) bool { return m.c.Ctx.Kind != "none" && t >= m.c.Ctx.At }

// ctxErr is the error of the caller's context once it ends.
func (m *model) ctxErr() error {
	if m.c.Ctx.Kind == "deadline" {
		return context.DeadlineExceeded
	}
	return context.Canceled
}

// stopContext ends the call at t for the context: "the error also wraps ctx's error and cause".
// "A wait refused for ending past the deadline counts as context.DeadlineExceeded."
func (m *model) stopContext(t time.Duration) {
	m.pr.Stop, m.pr.End, m.pr.CtxErr = retry.StopContext, t, m.ctxErr()
	if m.c.Ctx.Cause && m.ended(t) {
		m.pr.Cause = errCallerCause
		m.pr.events["context ended with a cause"] = true
	}
}

// fullJitterOf is the contract of retry.FullJitter, computed another way: ⌊u·(ceiling+1)⌋ with
// u counted in whole 2⁻⁵³, in exact big integers.
func fullJitterOf(ceiling time.Duration, u float64) time.Duration {
	if !(u >= 0 && u < 1) {
		return ceiling
	}
	draw := new(big.Int).SetUint64(uint64(u * (1 << 53)))
	draw.Mul(draw, new(big.Int).Add(big.NewInt(int64(ceiling)), big.NewInt(1)))
	return time.Duration(draw.Rsh(draw, 53).Int64())
}
