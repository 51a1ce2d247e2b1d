package properties

import (
	"context"
	"fmt"
	"io"
	"slices"
	"testing"
	"time"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

// The calls of the baseline trace, by what happens to them.
const (
	callSettled  = iota // settled on attempt 2: a timeout under a late answer, then the replay
	callRefused         // refused at once for insufficient funds
	callUnknown         // outcome unknown: a 503 with Retry-After 1 s, a lost connection, a 503
	callLocal           // an amount of 0, refused before any request
	callDeadline        // two 503s, then the wait drawn would end after the caller's deadline
)

// The baseline's instants, keys, payments and answers.
var (
	t0          = time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	keySettled  = "3f1c1a7e-5d0b-4c8e-9a51-2b7d6e9f0a13"
	keyRefused  = "7a2e9c41-0b6f-4d3a-8e15-c9f0a2b4d6e8"
	keyUnknown  = "c5d8e2f1-9a4b-4e7c-b3d6-1f2a8c9e0b57"
	keyDeadline = "9b8a7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d"
	e2eSettled  = "E12345678202601021000abcdefghijk"
	paySettled  = pix.Payment{AmountCents: 15000, PixKey: "pix@example.com"}
	payRefused  = pix.Payment{AmountCents: 90000, PixKey: "12345678901"}
	payUnknown  = pix.Payment{AmountCents: 1000, PixKey: "+5511987654321", Description: "aluguel"}
	payDeadline = pix.Payment{AmountCents: 500, PixKey: "98765432000199"}
	req201      = []byte(`{"valor":"150.00","chave":"pix@example.com"}`)
	body201     = []byte(`{"endToEndId":"E12345678202601021000abcdefghijk","valor":"150.00",` +
		`"chave":"pix@example.com","status":"REALIZADO","horario":"2026-01-02T10:00:00Z"}` + "\n")
	body422 = []byte(`{"type":"urn:pixretry:psp:problem:insufficient_funds","title":"Unprocessable Entity",` +
		`"status":422,"detail":"valor 900.00 exceeds the payer's balance","code":"insufficient_funds"}` + "\n")
	body503 = []byte(`{"type":"urn:pixretry:psp:problem:injected_fault","title":"Service Unavailable",` +
		`"status":503,"detail":"fault injected","code":"injected_fault"}` + "\n")
	err503      = &pix.Error{Status: 503, Code: codeInjectedFault, Detail: "fault injected"}
	errDeadline = fmt.Errorf("pix: Post %q: %w", "http://pipe/v1/pix/payments", context.DeadlineExceeded)
	errEOF      = fmt.Errorf("pix: Post %q: %w", "http://pipe/v1/pix/payments", io.EOF)
)

// baseline returns a fresh copy of a hand-built trace that keeps every invariant
// (TestBaselineTraceKeepsEveryInvariant): a planted violation changes one thing in it.
func baseline() Trace {
	p := retry.Policy{AttemptsMax: 3, DelayBase: 100 * time.Millisecond, DelayMax: time.Second}
	tr := Trace{
		Policy: p, AttemptTimeout: 500 * time.Millisecond, SlowestFault: 2 * time.Second,
		KeyTTL: 24 * time.Hour, Token: runToken, BalanceStart: 100_000, BalanceEnd: 85_000,
		Ledger: []psp.Settlement{{Token: runToken, IdempotencyKey: keySettled, EndToEndID: e2eSettled,
			AmountCents: 15000, PixKey: "pix@example.com", SettledAt: t0}},
		Calls: []Call{settledCall(p), refusedCall(), unknownCall(p), localCall(), deadlineCall(p)},
	}
	for i := range tr.Calls {
		for j := range tr.Calls[i].Trips {
			tr.Calls[i].Trips[j].Number = int64(len(tr.Wire) + 1)
			tr.Wire = append(tr.Wire, answerOf(tr.Calls[i].Trips[j]))
		}
	}
	tr.Calls[callSettled].Tickets = admitted(errDeadline, nil)
	tr.Calls[callRefused].Tickets = admitted(nil)
	tr.Calls[callUnknown].Tickets = admitted(err503, errEOF, err503)
	tr.Calls[callDeadline].Tickets = admitted(err503, err503)
	slices.SortStableFunc(tr.Wire, func(a, b Exchange) int { return a.Arrived.Compare(b.Arrived) })
	return tr
}

// admitted is the tickets of a call whose attempts the breaker all admitted, one round trip
// each, and which told it counted, in order.
func admitted(counted ...error) []Ticket {
	var tickets []Ticket
	for n, err := range counted {
		tickets = append(tickets, Ticket{TripsBefore: n, TripsAtDone: n + 1, Dones: 1, Counted: err})
	}
	return tickets
}

// answerOf is what the PSP saw and wrote for t: the answer t read, at the instant it read it;
// a late 201 for a timeout; a hijacked connection for a lost one.
func answerOf(t Trip) Exchange {
	ex := Exchange{Trip: t.Number, Arrived: t.Start, Answered: t.End, Token: runToken, Key: t.Key,
		Status: t.Status, Replayed: t.Replayed}
	switch {
	case t.Status == 201:
		ex.Request, ex.Body = req201, body201
	case t.Status == 422:
		ex.Body = body422
	case t.Status == 503:
		ex.Body = body503
	case t.Err == io.EOF:
		ex.Answered, ex.Hijacked = time.Time{}, true
	default: // the attempt's deadline: the answer came late
		ex.Answered, ex.Status, ex.Request, ex.Body = t.Start.Add(2*time.Second), 201, req201, body201
	}
	return ex
}

// logged is the record of attempt n of a call that ended at at, began at start and waits wait after.
func logged(n int, key string, start, at time.Time, err error, wait time.Duration) Attempt {
	a := Attempt{At: at, Number: n, Key: key, Outcome: "outcome", Transient: err != nil, Wait: wait,
		Elapsed: at.Sub(start)}
	if err != nil {
		a.Error = err.Error()
	}
	return a
}

func settledCall(p retry.Policy) Call {
	wait := fullJitterOf(ceilingOf(p, 1), 0.5)
	first, second := t0.Add(500*time.Millisecond), t0.Add(500*time.Millisecond+wait)
	return Call{
		Payment: paySettled, Start: t0, End: second, Draws: []float64{0.5},
		Receipt: pix.Receipt{EndToEndID: e2eSettled, AmountCents: 15000, PixKey: "pix@example.com",
			Status: "REALIZADO", SettledAt: t0, IdempotencyKey: keySettled, Replayed: true, Attempts: 2},
		Attempts: []Attempt{logged(1, keySettled, t0, first, errDeadline, wait),
			logged(2, keySettled, t0, second, nil, 0)},
		Trips: []Trip{{Start: t0, End: first, Key: keySettled, Err: context.DeadlineExceeded},
			{Start: second, End: second, Key: keySettled, Status: 201, Replayed: true}},
		Summary: &Summary{At: second, Message: msgSettled, Key: keySettled, Attempts: 2, EndToEndID: e2eSettled,
			Replayed: true},
	}
}

func refusedCall() Call {
	at := t0.Add(time.Second)
	pe := &pix.Error{Status: 422, Code: codeInsufficientFunds, Detail: "valor 900.00 exceeds the payer's balance"}
	a := logged(1, keyRefused, at, at, pe, 0)
	a.Transient = false
	return Call{
		Payment: payRefused, Start: at, End: at, Err: pe, Attempts: []Attempt{a},
		Trips:   []Trip{{Start: at, End: at, Key: keyRefused, Status: 422}},
		Summary: &Summary{At: at, Message: msgFailed, Key: keyRefused, Attempts: 1},
	}
}

func unknownCall(p retry.Policy) Call {
	at := t0.Add(2 * time.Second)
	w2 := fullJitterOf(ceilingOf(p, 2), 0.75)
	second, third := at.Add(time.Second), at.Add(time.Second+w2)
	return Call{
		Payment: payUnknown, Start: at, End: third, Draws: []float64{0.25, 0.75},
		Err: &pix.OutcomeUnknownError{Key: keyUnknown, Attempts: 3,
			Err: fmt.Errorf("retry: attempt 3 of 3, budget spent: %w", err503)},
		Attempts: []Attempt{logged(1, keyUnknown, at, at, err503, time.Second),
			logged(2, keyUnknown, at, second, errEOF, w2), logged(3, keyUnknown, at, third, err503, 0)},
		Trips: []Trip{{Start: at, End: at, Key: keyUnknown, Status: 503, RetryAfter: "1"},
			{Start: second, End: second, Key: keyUnknown, Err: io.EOF},
			{Start: third, End: third, Key: keyUnknown, Status: 503}},
		Summary: &Summary{At: third, Message: msgFailed, Key: keyUnknown, Attempts: 3, OutcomeUnknown: true},
	}
}

func localCall() Call {
	at := t0.Add(4 * time.Second)
	return Call{
		Payment: pix.Payment{AmountCents: 0, PixKey: "pix@example.com"}, Start: at, End: at,
		Err:     fmt.Errorf("%w: AmountCents 0 is not between 1 and 999999999999", pix.ErrInvalidPayment),
		Summary: &Summary{At: at, Message: msgFailed, Key: "e1b2c3d4-a5b6-4c7d-8e9f-0a1b2c3d4e5f"},
	}
}

func deadlineCall(p retry.Policy) Call {
	at := t0.Add(5 * time.Second)
	w1 := fullJitterOf(ceilingOf(p, 1), 0.5)
	second := at.Add(w1)
	refusedWait := fullJitterOf(ceilingOf(p, 2), 0.9) // not started: it would end after the deadline
	return Call{
		Payment: payDeadline, Start: at, End: second, Deadline: second.Add(refusedWait - time.Millisecond),
		Draws: []float64{0.5, 0.9},
		Err: &pix.OutcomeUnknownError{Key: keyDeadline, Attempts: 2,
			Err: fmt.Errorf("retry: after attempt 2: %w; last error: %w", context.DeadlineExceeded, err503)},
		Attempts: []Attempt{logged(1, keyDeadline, at, at, err503, w1),
			logged(2, keyDeadline, at, second, err503, 0)},
		Trips: []Trip{{Start: at, End: at, Key: keyDeadline, Status: 503},
			{Start: second, End: second, Key: keyDeadline, Status: 503}},
		Summary: &Summary{At: second, Message: msgFailed, Key: keyDeadline, Attempts: 2, OutcomeUnknown: true},
	}
}

// TestBaselineTraceKeepsEveryInvariant: the trace the planted violations start from is valid,
// so that a violation is the one thing a case changed.
func TestBaselineTraceKeepsEveryInvariant(t *testing.T) {
	if err := checkAll(baseline()); err != nil {
		t.Fatalf("checkAll(baseline()) = %v, want nil", err)
	}
}
