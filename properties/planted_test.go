package properties

import (
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sony/gobreaker/v2"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/psp/webhook"
	"pixretry/retry"
)

// violations collects the violations of one invariant: its check returns err().
type violations []error

func (v *violations) addf(format string, args ...any) { *v = append(*v, fmt.Errorf(format, args...)) }

func (v violations) err() error { return errors.Join(v...) }

// planted is a violation planted in the baseline trace. Its invariant must report it with a
// message containing want, which names the clause that saw it.
type planted struct {
	name  string
	want  string
	plant func(*Trace)
}

// TestNoVacuousInvariant hands every invariant, clause by clause, a trace that violates it: a
// property that cannot fail proves nothing. The invariant and checkAll must both report it.
func TestNoVacuousInvariant(t *testing.T) {
	for _, inv := range invariants {
		if len(inv.planted) == 0 {
			t.Errorf("invariant %s has no planted violation", inv.name)
		}
		for _, c := range inv.planted {
			t.Run(c.name, func(t *testing.T) {
				tr := baseline(t)
				c.plant(&tr)
				if err := inv.check(tr); err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("invariant %s = %v, want a violation saying %q", inv.name, err, c.want)
				}
				if _, err := checkAll(tr); err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("checkAll() = %v, want it to report %q", err, c.want)
				}
			})
		}
	}
}

// The calls of the baseline run, by what happens to them.
const (
	callSettled            = iota // settled on attempt 2: a timeout under a late answer, then the replay
	callRefused                   // refused at once for insufficient funds
	callUnknown                   // outcome unknown: a 503 with Retry-After 1 s, a lost connection, a 503
	callLocal                     // an amount of 0, refused before any request
	callDeadline                  // two 503s, then the wait drawn would end after the caller's deadline
	callExpired                   // two 503s with Retry-After 1 s, then attempt 3 would end past the key deadline
	callNoSettlement              // resumes callExpired past its key deadline: its lookup answers 404 payment_not_found
	callRepaid                    // pays callExpired's payment again, under a new key
	callLost                      // outcome unknown: its first answer dropped after the commit, then two 503s
	callFound                     // resumes callLost past its key deadline: its lookup finds the settlement
	callPending                   // accepted pending for 0.3 s, then settled: ErrPending
	callAwaited                   // awaits callPending's key: lookups answer 202 until the settlement
	callRejected                  // accepted pending for 0.1 s, then rejected: ErrPending
	callAwaitRejected             // awaits callRejected's key: ErrRejected
	callPaidAfterRejection        // pays callRejected's payment again, under a new key
)

// baselineRun is the run the planted violations start from. Its faults fall on the requests in
// the order they arrive: the calls never overlap. A slow fault of 0 lets a request through. The
// PSP and the clients keep keys 2 s, so the key deadline falls 1.8 s after a key's first send.
var baselineRun = scenario{
	Policy:         retry.Policy{AttemptsMax: 3, DelayBase: 100 * time.Millisecond, DelayMax: time.Second},
	AttemptTimeout: 500 * time.Millisecond,
	KeyTTL:         2 * time.Second,
	BalanceCents:   100_000,
	Faults: []psp.Fault{psp.Late(2 * time.Second), psp.Slow(0), psp.Slow(0),
		{Kind: "status", Status: 503, RetryAfter: time.Second}, psp.ResetConn(), psp.Status(503),
		psp.Status(503), psp.Status(503),
		{Kind: "status", Status: 503, RetryAfter: time.Second}, {Kind: "status", Status: 503,
			RetryAfter: time.Second},
		psp.Slow(0),
		psp.Drop(), psp.Status(503), psp.Status(503),
		psp.Pending(300*time.Millisecond, "settled"), psp.Pending(100*time.Millisecond, "rejected")},
	Calls: []callSpec{
		callSettled: {Payment: pix.Payment{AmountCents: 15000, PixKey: "pix@example.com"}, Jitter: []float64{0.5}},
		callRefused: {Payment: pix.Payment{AmountCents: 90000, PixKey: "12345678901"}, After: time.Second,
			Jitter: []float64{0.5}},
		callUnknown: {Payment: pix.Payment{AmountCents: 1000, PixKey: "+5511987654321", Description: "aluguel"},
			After: 2 * time.Second, Jitter: []float64{0.25, 0.75}},
		callLocal: {Payment: pix.Payment{AmountCents: 0, PixKey: "pix@example.com"}, After: 4 * time.Second,
			Jitter: []float64{0.5}},
		// Attempt 2 ends 50ms in; the wait after it would be FullJitter(200ms, 0.9) = 180ms: 1ms too long.
		callDeadline: {Payment: pix.Payment{AmountCents: 500, PixKey: "98765432000199"}, After: 5 * time.Second,
			Deadline: 229 * time.Millisecond, Jitter: []float64{0.5, 0.9}},
		// Attempt 3 would start 2 s after the first, its timeout ending 0.7 s past the key deadline.
		callExpired: {Payment: pix.Payment{AmountCents: 700, PixKey: "11222333000181", Description: "boleto"},
			After: 6 * time.Second, Jitter: []float64{0.5}},
		callNoSettlement: {Reconcile: true, After: 2 * time.Second, Jitter: []float64{0.5}},
		callRepaid:       {Reconcile: true, After: 500 * time.Millisecond, Jitter: []float64{0.5}},
		callLost: {Payment: pix.Payment{AmountCents: 2500, PixKey: "pix@example.com"}, After: 12 * time.Second,
			Jitter: []float64{0.5}},
		callFound: {Reconcile: true, After: 3 * time.Second, Jitter: []float64{0.5}},
		callPending: {Payment: pix.Payment{AmountCents: 3000, PixKey: "pix@example.com"}, After: 20 * time.Second,
			Jitter: []float64{0.5}},
		// Lookups at once, then 0.05, 0.15 and 0.35 s after: the payment settled at 0.3 s.
		callAwaited:            {Reconcile: true, Await: true, Deadline: 5 * time.Second, Jitter: []float64{0.5}},
		callRejected:           {Payment: pix.Payment{AmountCents: 4000, PixKey: "12345678901"}, After: 30 * time.Second, Jitter: []float64{0.5}},
		callAwaitRejected:      {Reconcile: true, Await: true, Deadline: 5 * time.Second, Jitter: []float64{0.5}},
		callPaidAfterRejection: {Reconcile: true, Jitter: []float64{0.5}},
	},
	// A breaker that never opens: every call's tickets are recorded.
	Breaker: &breakerSettings{Failures: 100, Timeout: time.Minute, MaxRequests: 1},
	// The first delivery, callSettled's end, goes twice; the second, callRepaid's, fails its
	// first try unsent; the third Apply, callLost's, fails and is tried again 0.5 s later. A
	// forgery claims callSettled's key was rejected; callSettled's delivery is replayed late.
	Webhooks: &webhookRun{Sender: webhook.Config{Attempts: 3, DelayBase: time.Second, WaitMax: 2 * time.Second,
		Timeout: 5 * time.Second, Parallel: 1}, Draws: []float64{0.5},
		Faults: []webhook.Fault{webhook.Duplicate(), webhook.Fail(1)}, Failures: []bool{false, false, false, true},
		Forgeries: []forgery{{After: 25 * time.Second, Key: 0, Status: "NAO_REALIZADO"}}, Replays: []int{0}},
}

// baseline plays baselineRun in a synctest bubble and returns its trace, fresh on every call: a
// planted violation changes one thing in it. The run keeps every invariant
// (TestBaselineTraceKeepsEveryInvariant) and has the shape the constants above name
// (TestBaselineHasItsShape).
func baseline(t *testing.T) Trace {
	t.Helper()
	var tr Trace
	var err error
	synctest.Test(t, func(*testing.T) { tr, err = runScenario(baselineRun) })
	if err != nil {
		t.Fatalf("runScenario(baselineRun) = %v", err)
	}
	return tr
}

// attempt is the record of payment attempt n of call i, trip its round trip, answer the request
// that round trip became.
func (tr *Trace) attempt(i, n int) *Attempt { return &tr.Calls[i].Attempts[n-1] }
func (tr *Trace) trip(i, n int) *Trip       { return &tr.Calls[i].Trips[n-1] }
func (tr *Trace) answer(i, n int) *Exchange { return tr.exchange(tr.trip(i, n).Number) }

// exchange is the request that round trip number became. A missing one panics: the baseline
// pairs every round trip.
func (tr *Trace) exchange(number int64) *Exchange {
	return &tr.Wire[slices.IndexFunc(tr.Wire, func(ex Exchange) bool { return ex.Trip == number })]
}

// unknownErr is the *pix.OutcomeUnknownError of call i.
func (tr *Trace) unknownErr(i int) *pix.OutcomeUnknownError {
	return tr.Calls[i].Err.(*pix.OutcomeUnknownError)
}

// lookupTrip is the round trip of lookup attempt n of call i, ticket its question n to the
// breaker.
func (tr *Trace) lookupTrip(i, n int) *Trip { return &tr.Calls[i].Lookup.Trips[n-1] }
func (tr *Trace) ticket(i, n int) *Ticket   { return &tr.Calls[i].Tickets[n-1] }

// settle puts in the ledger a settlement of call i's payment under its key.
func settle(tr *Trace, i int) {
	c := tr.Calls[i]
	tr.Ledger = append(tr.Ledger, psp.Settlement{Token: tr.Token, IdempotencyKey: c.Key(),
		EndToEndID: "E12345678202601021000abcdefghijn", AmountCents: c.Payment.AmountCents,
		PixKey: c.Payment.PixKey, Description: c.Payment.Description, SettledAt: c.Start})
}

// settlementOf is the ledger's settlement under the key of call i, nil if none; endOf the end of
// its payment; deliveryOf the n-th of the PSP's deliveries of that end.
func settlementOf(tr *Trace, i int) *psp.Settlement {
	k := slices.IndexFunc(tr.Ledger, func(s psp.Settlement) bool { return s.IdempotencyKey == tr.Calls[i].Key() })
	if k < 0 {
		return nil
	}
	return &tr.Ledger[k]
}
func endOf(tr *Trace, i int) *psp.Ended {
	return &tr.Ends[slices.IndexFunc(tr.Ends, func(e psp.Ended) bool { return e.IdempotencyKey == tr.Calls[i].Key() })]
}
func deliveryOf(tr *Trace, i, n int) *Delivery {
	for k, d := range tr.Deliveries {
		if d.Key == tr.Calls[i].Key() && d.Forged == "" {
			if n--; n == 0 {
				return &tr.Deliveries[k]
			}
		}
	}
	panic("the baseline has no such delivery")
}

// lostConnection turns round trip n of call i into a connection lost after the request was
// written, with err.
func lostConnection(tr *Trace, i, n int, err error) {
	t := tr.trip(i, n)
	*t = Trip{Number: t.Number, Start: t.Start, End: t.End, Key: t.Key, Err: err}
}

// errReset is the error a transport reports for a reset connection.
var errReset = &net.OpError{Op: "read", Net: "tcp", Err: errors.New("read: connection reset by peer")}

// refusedAfter ends call i's questions to the breaker with a refusal after its round trip n,
// and drops the round trips after it.
func refusedAfter(tr *Trace, i, n int) {
	c := &tr.Calls[i]
	c.Trips, c.Tickets = c.Trips[:n], append(c.Tickets[:n], Ticket{Refused: gobreaker.ErrOpenState, TripsBefore: n})
}

// rewriteAnswer replaces old by new in the body of the answer to round trip n of call i.
func rewriteAnswer(tr *Trace, i, n int, old, new string) {
	tr.answer(i, n).Body = withBody(tr.answer(i, n).Body, old, new)
}

// withBody returns body with old replaced by new.
func withBody(body []byte, old, new string) []byte {
	return []byte(strings.Replace(string(body), old, new, 1))
}

// errEOF is the error of a call whose connection was lost.
var errEOF = fmt.Errorf("pix: Post %q: %w", "http://pipe/v1/pix/payments", io.EOF)
