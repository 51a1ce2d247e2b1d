package properties

import (
	"context"
	"fmt"
	"io"
	"time"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

// The hand-built trace every no-vacuous-property case starts from. It keeps every invariant
// (TestBaselineTraceKeepsEveryInvariant), so that a case that breaks one thing in it shows that
// the invariant it targets sees that one thing.
var (
	t0          = time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	keySettled  = "3f1c1a7e-5d0b-4c8e-9a51-2b7d6e9f0a13"
	keyRefused  = "7a2e9c41-0b6f-4d3a-8e15-c9f0a2b4d6e8"
	keyUnknown  = "c5d8e2f1-9a4b-4e7c-b3d6-1f2a8c9e0b57"
	keyOfLocal  = "e1b2c3d4-a5b6-4c7d-8e9f-0a1b2c3d4e5f"
	keyDeadline = "9b8a7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d"
	e2eSettled  = "E12345678202601021000abcdefghijk"
	body201     = []byte(`{"endToEndId":"E12345678202601021000abcdefghijk","valor":"150.00","chave":"pix@example.com","status":"REALIZADO","horario":"2026-01-02T10:00:00Z"}` + "\n")
	req201      = []byte(`{"valor":"150.00","chave":"pix@example.com"}`)
	body422     = []byte(`{"type":"urn:pixretry:psp:problem:insufficient_funds","title":"Unprocessable Entity","status":422,"detail":"valor 900.00 exceeds the payer's balance","code":"insufficient_funds"}` + "\n")
	body503     = []byte(`{"type":"urn:pixretry:psp:problem:injected_fault","title":"Service Unavailable","status":503,"detail":"fault injected","code":"injected_fault"}` + "\n")
	paySettled  = pix.Payment{AmountCents: 15000, PixKey: "pix@example.com"}
	payRefused  = pix.Payment{AmountCents: 90000, PixKey: "12345678901"}
	payUnknown  = pix.Payment{AmountCents: 1000, PixKey: "+5511987654321", Description: "aluguel"}
	payInvalid  = pix.Payment{AmountCents: 0, PixKey: "pix@example.com"}
	payDeadline = pix.Payment{AmountCents: 500, PixKey: "98765432000199"}
	errDeadline = fmt.Errorf("pix: Post %q: %w", "http://pipe/v1/pix/payments", context.DeadlineExceeded)
	errEOF      = fmt.Errorf("pix: Post %q: %w", "http://pipe/v1/pix/payments", io.EOF)
)

// baseline returns a fresh copy of the baseline trace: a payment settled on its second attempt
// (the first timed out under a late answer; the second got the replay), a payment refused for
// insufficient funds, a payment whose outcome is unknown after three attempts (503 with
// Retry-After, a closed connection, 503), a payment refused by local validation, and a payment
// whose caller's deadline ended it after two 503s (the wait drawn would have passed it).
func baseline() Trace {
	p := retry.Policy{AttemptsMax: 3, DelayBase: 100 * time.Millisecond, DelayMax: time.Second}
	tr := Trace{
		Policy: p, AttemptTimeout: 500 * time.Millisecond, SlowestFault: 2 * time.Second,
		KeyTTL: 24 * time.Hour, Token: runToken, BalanceStart: 100_000, BalanceEnd: 85_000,
		Ledger: []psp.Settlement{{Token: runToken, IdempotencyKey: keySettled, EndToEndID: e2eSettled,
			AmountCents: 15000, PixKey: "pix@example.com", SettledAt: t0}},
	}
	tr.Calls = []Call{settledCall(p), refusedCall(), unknownCall(p), localCall(), deadlineCall(p)}
	d := tr.Calls[4].Trips
	tr.Wire = []Exchange{
		{Arrived: t0, Answered: t0.Add(2 * time.Second), Token: runToken, Key: keySettled, Request: req201, Status: 201, Body: body201},
		{Arrived: tr.Calls[0].Trips[1].Start, Answered: tr.Calls[0].Trips[1].Start, Token: runToken, Key: keySettled, Request: req201, Status: 201, Body: body201, Replayed: true},
		{Arrived: t0.Add(time.Second), Answered: t0.Add(time.Second), Token: runToken, Key: keyRefused, Status: 422, Body: body422},
		{Arrived: t0.Add(2 * time.Second), Answered: t0.Add(2 * time.Second), Token: runToken, Key: keyUnknown, Status: 503, Body: body503},
		{Arrived: t0.Add(3 * time.Second), Token: runToken, Key: keyUnknown, Hijacked: true},
		{Arrived: tr.Calls[2].Trips[2].Start, Answered: tr.Calls[2].Trips[2].Start, Token: runToken, Key: keyUnknown, Status: 503, Body: body503},
		{Arrived: d[0].Start, Answered: d[0].Start, Token: runToken, Key: keyDeadline, Status: 503, Body: body503},
		{Arrived: d[1].Start, Answered: d[1].Start, Token: runToken, Key: keyDeadline, Status: 503, Body: body503},
	}
	return tr
}

// settledCall is call 0 of the baseline: a timeout under a late answer, then the replay.
func settledCall(p retry.Policy) Call {
	wait := fullJitterOf(ceilingOf(p, 1), 0.5)
	second := t0.Add(500*time.Millisecond + wait)
	return Call{
		Payment: paySettled, Start: t0, End: second, Draws: []float64{0.5},
		Receipt: pix.Receipt{EndToEndID: e2eSettled, AmountCents: 15000, PixKey: "pix@example.com", Status: "REALIZADO",
			SettledAt: t0, IdempotencyKey: keySettled, Replayed: true, Attempts: 2},
		Attempts: []Attempt{
			{At: t0.Add(500 * time.Millisecond), Number: 1, Key: keySettled, Outcome: "timeout", Error: errDeadline.Error(), Transient: true, Wait: wait, Elapsed: 500 * time.Millisecond},
			{At: second, Number: 2, Key: keySettled, Outcome: "replayed", Wait: 0, Elapsed: second.Sub(t0)},
		},
		Trips: []Trip{
			{Start: t0, End: t0.Add(500 * time.Millisecond), Key: keySettled, Err: context.DeadlineExceeded},
			{Start: second, End: second, Key: keySettled, Status: 201, Replayed: true},
		},
		Summary: &Summary{At: second, Message: msgSettled, Key: keySettled, Attempts: 2, EndToEndID: e2eSettled, Replayed: true},
	}
}

// refusedCall is call 1: refused at once for insufficient funds.
func refusedCall() Call {
	at := t0.Add(time.Second)
	pe := &pix.Error{Status: 422, Code: "insufficient_funds", Detail: "valor 900.00 exceeds the payer's balance"}
	return Call{
		Payment: payRefused, Start: at, End: at, Err: pe,
		Attempts: []Attempt{{At: at, Number: 1, Key: keyRefused, Outcome: "status 422 insufficient_funds", Error: pe.Error()}},
		Trips:    []Trip{{Start: at, End: at, Key: keyRefused, Status: 422}},
		Summary:  &Summary{At: at, Message: msgFailed, Key: keyRefused, Attempts: 1},
	}
}

// unknownCall is call 2: 503 with Retry-After 1 s, a closed connection, 503; budget spent.
func unknownCall(p retry.Policy) Call {
	at := t0.Add(2 * time.Second)
	w2 := fullJitterOf(ceilingOf(p, 2), 0.75)
	third := at.Add(time.Second + w2)
	first, last := &pix.Error{Status: 503, Code: "injected_fault", Detail: "fault injected"}, &pix.Error{Status: 503, Code: "injected_fault", Detail: "fault injected"}
	return Call{
		Payment: payUnknown, Start: at, End: third, Draws: []float64{0.25, 0.75},
		Err: &pix.OutcomeUnknownError{Key: keyUnknown, Attempts: 3, Err: fmt.Errorf("retry: attempt 3 of 3, budget spent: %w", last)},
		Attempts: []Attempt{
			{At: at, Number: 1, Key: keyUnknown, Outcome: "status 503 injected_fault", Error: first.Error(), Transient: true, Wait: time.Second},
			{At: at.Add(time.Second), Number: 2, Key: keyUnknown, Outcome: "connection closed", Error: errEOF.Error(), Transient: true, Wait: w2, Elapsed: time.Second},
			{At: third, Number: 3, Key: keyUnknown, Outcome: "status 503 injected_fault", Error: last.Error(), Transient: true, Elapsed: third.Sub(at)},
		},
		Trips: []Trip{
			{Start: at, End: at, Key: keyUnknown, Status: 503, RetryAfter: "1"},
			{Start: at.Add(time.Second), End: at.Add(time.Second), Key: keyUnknown, Err: io.EOF},
			{Start: third, End: third, Key: keyUnknown, Status: 503},
		},
		Summary: &Summary{At: third, Message: msgFailed, Key: keyUnknown, Attempts: 3, OutcomeUnknown: true},
	}
}

// localCall is call 3: an amount of 0, refused before any request.
func localCall() Call {
	at := t0.Add(4 * time.Second)
	return Call{
		Payment: payInvalid, Start: at, End: at,
		Err:     fmt.Errorf("%w: AmountCents 0 is not between 1 and 999999999999", pix.ErrInvalidPayment),
		Summary: &Summary{At: at, Message: msgFailed, Key: keyOfLocal},
	}
}

// deadlineCall is call 4: two 503s, then the wait drawn would end after the caller's deadline.
func deadlineCall(p retry.Policy) Call {
	at := t0.Add(5 * time.Second)
	w1 := fullJitterOf(ceilingOf(p, 1), 0.5)
	second := at.Add(w1)
	refusedWait := fullJitterOf(ceilingOf(p, 2), 0.9) // the wait not started: it ends after the deadline
	pe := &pix.Error{Status: 503, Code: "injected_fault", Detail: "fault injected"}
	return Call{
		Payment: payDeadline, Start: at, End: second, Deadline: second.Add(refusedWait - time.Millisecond),
		Draws: []float64{0.5, 0.9},
		Err: &pix.OutcomeUnknownError{Key: keyDeadline, Attempts: 2,
			Err: fmt.Errorf("retry: after attempt 2: %w; last error: %w", context.DeadlineExceeded, pe)},
		Attempts: []Attempt{
			{At: at, Number: 1, Key: keyDeadline, Outcome: "status 503 injected_fault", Error: pe.Error(), Transient: true, Wait: w1},
			{At: second, Number: 2, Key: keyDeadline, Outcome: "status 503 injected_fault", Error: pe.Error(), Transient: true, Elapsed: w1},
		},
		Trips: []Trip{
			{Start: at, End: at, Key: keyDeadline, Status: 503},
			{Start: second, End: second, Key: keyDeadline, Status: 503},
		},
		Summary: &Summary{At: second, Message: msgFailed, Key: keyDeadline, Attempts: 2, OutcomeUnknown: true},
	}
}
