package properties

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/sony/gobreaker/v2"

	"pixretry/pix"
)

// eventLog is a pix.Observer that keeps what one call reports, as the suite reads it: the
// attempts and the end of each phase. A phase is a call that sends: a Send or a SendWithKey, a
// Resume's resend, a lookup. A Resume is a call around its phases and adds nothing. It is used
// by the goroutine of one call, and read once the call has returned.
type eventLog struct {
	open      []openCall // the calls started and not yet ended, the innermost last
	pay, look Phase      // only Attempts and Summary
	err       error      // the first event that breaks pix.Observer's contract
}

// openCall is a call that started and has not ended.
type openCall struct {
	kind  pix.CallKind
	start time.Time
}

func (l *eventLog) CallStarted(ctx context.Context, c pix.Call) context.Context {
	l.open = append(l.open, openCall{c.Kind, time.Now()})
	return ctx
}

func (l *eventLog) AttemptStarted(ctx context.Context, _ pix.Attempt) context.Context { return ctx }

func (l *eventLog) Inject(context.Context, http.Header) {}

func (l *eventLog) KeyRotated(context.Context, string, string) { l.fail("a key rotation in a call") }

func (l *eventLog) AttemptEnded(_ context.Context, a pix.Attempt) {
	ph, call := l.phase()
	if ph == nil || ph.Summary != nil {
		l.fail(fmt.Sprintf("attempt %d outside a call that sends", a.Number))
		return
	}
	at := Attempt{At: time.Now(), Number: a.Number, Key: a.Key, Outcome: string(a.Outcome),
		Transient: a.Outcome == pix.OutcomeTransient, Wait: a.Wait}
	at.Elapsed = at.At.Sub(call.start)
	if a.Err != nil && a.Outcome != pix.OutcomeLookupNone {
		at.Error = a.Err.Error()
	}
	ph.Attempts = append(ph.Attempts, at)
}

func (l *eventLog) CallEnded(_ context.Context, c pix.Call) {
	ph, call := l.phase()
	switch {
	case call == nil || call.kind != c.Kind:
		l.fail(fmt.Sprintf("%s ended, not started", c.Kind))
		return
	case ph != nil && ph.Summary != nil:
		l.fail(fmt.Sprintf("a second %s", c.Kind))
	case ph != nil:
		ph.Summary = &Summary{At: time.Now(), Message: string(c.Outcome), Key: c.Key, Attempts: c.Attempts,
			OutcomeUnknown: errors.Is(c.Err, pix.ErrOutcomeUnknown), EndToEndID: c.Receipt.EndToEndID,
			Replayed: c.Receipt.Replayed}
	}
	l.open = l.open[:len(l.open)-1]
}

// phase is the innermost open call, and the phase it makes, nil for a Resume.
func (l *eventLog) phase() (*Phase, *openCall) {
	if len(l.open) == 0 {
		return nil, nil
	}
	call := &l.open[len(l.open)-1]
	switch {
	case call.kind == pix.CallLookup || call.kind == pix.CallAwait:
		return &l.look, call
	case call.kind == pix.CallResume:
		return nil, call
	case l.look.Summary != nil || len(l.look.Attempts) > 0:
		l.fail("a payment after a lookup")
	}
	return &l.pay, call
}

func (l *eventLog) fail(what string) { l.err = cmp.Or(l.err, errors.New(what)) }

// phases returns the call's payment phase and lookup phase, or the first event that broke the
// Observer's contract: a call that never ended, an end that had no start, an attempt outside
// a phase, a phase twice, a payment after a lookup, or a call with no phase.
func (l *eventLog) phases() (pay, look Phase, err error) {
	switch {
	case l.err != nil:
	case len(l.open) > 0:
		l.fail(fmt.Sprintf("%s never ended", l.open[0].kind))
	case l.pay.Summary == nil && l.look.Summary == nil:
		l.fail("no call that sends")
	}
	return l.pay, l.look, l.err
}

// breakerSettings is a breaker drawn for a run: gobreaker's two-step breaker. It trips after
// Failures consecutive failures, stays open for Timeout, and lets MaxRequests probes through
// when half-open. It runs on the clock of the run's synctest bubble.
type breakerSettings struct {
	Failures    uint32
	Timeout     time.Duration
	MaxRequests uint32
}

// newBreaker builds the breaker that every call of a run shares.
func (s breakerSettings) newBreaker() *gobreaker.TwoStepCircuitBreaker[struct{}] {
	return gobreaker.NewTwoStepCircuitBreaker[struct{}](gobreaker.Settings{
		Name: "psp", MaxRequests: s.MaxRequests, Timeout: s.Timeout,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= s.Failures },
	})
}

// recordingBreaker passes one call's questions on to the run's breaker and records each as a
// Ticket. trips counts the round trips the call has begun.
type recordingBreaker struct {
	next    pix.Breaker
	trips   *attemptGuard
	mu      sync.Mutex
	tickets []Ticket
}

func (b *recordingBreaker) Allow() (func(error), error) {
	done, err := b.next.Allow()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.tickets = append(b.tickets, Ticket{Refused: err, TripsBefore: b.trips.begun()})
	if err != nil {
		return nil, err
	}
	n := len(b.tickets) - 1
	return func(counted error) {
		b.mu.Lock()
		tk := &b.tickets[n]
		tk.Dones, tk.Counted, tk.TripsAtDone = tk.Dones+1, counted, b.trips.begun()
		b.mu.Unlock()
		done(counted)
	}, nil
}

// taken returns the tickets recorded so far.
func (b *recordingBreaker) taken() []Ticket {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Ticket(nil), b.tickets...)
}
