package properties

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"pixretry/pix"
	"pixretry/psp"
)

// TestBaselineTraceKeepsEveryInvariant: the hand-built trace the no-vacuous cases break is a
// valid one, so a case's violation is the one thing it changed.
func TestBaselineTraceKeepsEveryInvariant(t *testing.T) {
	if err := checkAll(baseline()); err != nil {
		t.Fatalf("checkAll(baseline()) = %v, want nil", err)
	}
	if got := brokenInvariants(baseline()); len(got) != 0 {
		t.Fatalf("brokenInvariants(baseline()) = %v, want none", got)
	}
}

// violation is a no-vacuous case: break changes one thing in the baseline trace, and check must
// then report a violation whose text contains want (which names the clause that saw it).
type violation struct {
	name   string
	check  func(Trace) error
	want   string
	break_ func(*Trace)
}

// TestNoVacuousInvariant hands every invariant, clause by clause, a trace that violates it and
// checks that the invariant reports it: a property that cannot fail proves nothing.
func TestNoVacuousInvariant(t *testing.T) {
	var cases []violation
	for _, group := range [][]violation{
		budgetViolations, permanentViolations, settlementViolations, keyViolations, waitViolations,
		finalErrorViolations, honestyViolations, replayViolations, moneyViolations, validationViolations,
	} {
		cases = append(cases, group...)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := baseline()
			c.break_(&tr)
			err := c.check(tr)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("check() = %v, want a violation saying %q", err, c.want)
			}
			if !strings.Contains(fmt.Sprint(brokenInvariants(tr)), invariantName(c.check)) {
				t.Fatalf("brokenInvariants() = %v, want it to name %q", brokenInvariants(tr), invariantName(c.check))
			}
		})
	}
}

// TestEveryInvariantHasViolations: each of the invariants has at least one no-vacuous case.
func TestEveryInvariantHasViolations(t *testing.T) {
	groups := [][]violation{
		budgetViolations, permanentViolations, settlementViolations, keyViolations, waitViolations,
		finalErrorViolations, honestyViolations, replayViolations, moneyViolations, validationViolations,
	}
	if len(groups) != len(invariants) {
		t.Fatalf("%d groups of cases for %d invariants", len(groups), len(invariants))
	}
	for i, g := range groups {
		for _, c := range g {
			if got, want := invariantName(c.check), invariants[i].name; got != want {
				t.Errorf("case %q checks %q, its group is for %q", c.name, got, want)
			}
		}
	}
}

// invariantName is the name under which check is listed in invariants.
func invariantName(check func(Trace) error) string {
	for _, inv := range invariants {
		if fmt.Sprintf("%p", inv.check) == fmt.Sprintf("%p", check) {
			return inv.name
		}
	}
	return "unlisted"
}

// errReset is a connection reset, as a client's transport reports it.
var errReset = &net.OpError{Op: "read", Net: "tcp", Err: errors.New("read: connection reset by peer")}

// The cases, one group per invariant, in the order of invariants.
var (
	budgetViolations = []violation{
		{"more attempts than AttemptsMax", checkAttemptBudget, "AttemptsMax is 1", func(tr *Trace) { tr.Policy.AttemptsMax = 1 }},
		{"an attempt without a round trip", checkAttemptBudget, "1 round trips but 2 attempt records", func(tr *Trace) { tr.Calls[0].Trips = tr.Calls[0].Trips[:1] }},
		{"attempts misnumbered", checkAttemptBudget, "is numbered 3", func(tr *Trace) { tr.Calls[0].Attempts[1].Number = 3 }},
		{"Receipt.Attempts wrong", checkAttemptBudget, "Receipt.Attempts = 1", func(tr *Trace) { tr.Calls[0].Receipt.Attempts = 1 }},
		{"closing record's count wrong", checkAttemptBudget, "closing record says 4", func(tr *Trace) { tr.Calls[2].Summary.Attempts = 4 }},
		{"OutcomeUnknownError.Attempts wrong", checkAttemptBudget, "OutcomeUnknownError.Attempts = 2", func(tr *Trace) {
			tr.Calls[2].Err.(*pix.OutcomeUnknownError).Attempts = 2
		}},
		{"a request the client did not count (a hidden resend)", checkAttemptBudget, "the clients sent 2 requests, the PSP received 3", func(tr *Trace) {
			tr.Wire = append(tr.Wire, Exchange{Arrived: t0, Token: runToken, Key: keySettled, Hijacked: true})
		}},
		{"a request the line stopped before it was written reached the PSP (a hidden resend)", checkAttemptBudget, "the clients sent 1 requests, the PSP received 2", func(tr *Trace) {
			tr.Calls[0].Lines = []lineEvent{{Fault: lineCutBeforeWrite, Pooled: true}, {}}
		}},
	}
	permanentViolations = []violation{
		{"an answer whose header pix cannot read, retried", checkPermanentStops, "logged transient=true for a round trip with status 0, error read tcp: read: connection reset by peer", func(tr *Trace) {
			tr.Calls[2].Trips[1].Err = errReset
			tr.Wire[4].HeaderBytes = headerLimit + 1
		}},
		{"a name that does not resolve, retried", checkPermanentStops, "logged transient=true for a round trip with status 0, error dial tcp: lookup psp.invalid: no such host", func(tr *Trace) {
			tr.Calls[2].Trips[1].Err = &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "psp.invalid", IsNotFound: true}}
		}},
		{"an attempt after a permanent failure", checkPermanentStops, "failed permanently", func(tr *Trace) {
			tr.Calls[2].Attempts[0].Transient = false
		}},
		{"an attempt after a success", checkPermanentStops, "succeeded, yet attempt 2 followed", func(tr *Trace) { tr.Calls[0].Attempts[0].Error = "" }},
		{"an attempt after a final answer on the wire", checkPermanentStops, "got a final answer (400)", func(tr *Trace) { tr.Calls[2].Trips[0].Status = 400 }},
		{"a verdict that contradicts the wire", checkPermanentStops, "logged transient=true for a round trip with status 422", func(tr *Trace) {
			tr.Calls[1].Attempts[0].Transient = true
		}},
		{"giving up with budget left", checkPermanentStops, "with no reason to", func(tr *Trace) { tr.Policy.AttemptsMax = 5 }},
		{"giving up long before the caller's deadline", checkPermanentStops, "call 4 stopped after transient attempt 2", func(tr *Trace) {
			tr.Calls[4].Deadline = tr.Calls[4].End.Add(time.Hour)
		}},
		{"a 201 cut short judged permanent", checkPermanentStops, "logged transient=false for a round trip with status 201", func(tr *Trace) {
			tr.Calls[2].Trips[0] = Trip{Start: tr.Calls[2].Trips[0].Start, Status: 201, BodyErr: io.ErrUnexpectedEOF}
			tr.Calls[2].Attempts[2].Transient = false
			tr.Calls[2].Trips[2] = tr.Calls[2].Trips[0]
		}},
	}
	settlementViolations = []violation{
		{"two settlements for one key", checkSettlements, "settled twice", func(tr *Trace) {
			s := tr.Ledger[0]
			s.EndToEndID, s.SettledAt = "E12345678202601021001abcdefghijl", t0.Add(time.Minute)
			tr.Ledger = append(tr.Ledger, s)
		}},
		{"a settlement no call made", checkSettlements, "belongs to no call", func(tr *Trace) { tr.Ledger[0].AmountCents = 15001 }},
		{"a success with no settlement", checkSettlements, "call 0 succeeded; the ledger holds 0", func(tr *Trace) { tr.Ledger = nil }},
		{"a refused payment settled", checkSettlements, "call 1 was refused", func(tr *Trace) {
			tr.Ledger = append(tr.Ledger, psp.Settlement{Token: runToken, IdempotencyKey: keyRefused, EndToEndID: "E12345678202601021000abcdefghijm",
				AmountCents: payRefused.AmountCents, PixKey: payRefused.PixKey, SettledAt: t0})
		}},
	}
	keyViolations = []violation{
		{"another key on a retry", checkKeys, "round trip 2 sent key", func(tr *Trace) { tr.Calls[0].Trips[1].Key = keyRefused }},
		{"another key in an attempt record", checkKeys, "attempt 2 logged key", func(tr *Trace) { tr.Calls[2].Attempts[1].Key = "other" }},
		{"another key in the closing record", checkKeys, "closing record has key", func(tr *Trace) { tr.Calls[1].Summary.Key = "other" }},
		{"another key in the receipt", checkKeys, "Receipt.IdempotencyKey", func(tr *Trace) { tr.Calls[0].Receipt.IdempotencyKey = "other" }},
		{"another key in OutcomeUnknownError", checkKeys, "OutcomeUnknownError.Key", func(tr *Trace) {
			tr.Calls[2].Err.(*pix.OutcomeUnknownError).Key = "other"
		}},
		{"a key that is not a UUID v4", checkKeys, "not a lower-case UUID v4", func(tr *Trace) { rekey(tr, 1, "payment-0001") }},
		{"an upper-case UUID", checkKeys, "not a lower-case UUID v4", func(tr *Trace) { rekey(tr, 1, strings.ToUpper(keyRefused)) }},
		{"two Sends with one key", checkKeys, "calls [1 2] all made key", func(tr *Trace) { rekey(tr, 1, keyUnknown) }},
		{"attempts without a key", checkKeys, "without an Idempotency-Key", func(tr *Trace) {
			for i := range tr.Calls[2].Trips {
				tr.Calls[2].Trips[i].Key = ""
			}
		}},
	}
	waitViolations = []violation{
		{"a wait above the ceiling", checkWaits, "outside [0, ceiling 100ms]", func(tr *Trace) { setWait(tr, 0, 0, 150*time.Millisecond) }},
		{"a wait below the hint", checkWaits, "outside [hint 1s", func(tr *Trace) { setWait(tr, 2, 0, 500*time.Millisecond) }},
		{"a wait above hint and ceiling", checkWaits, "outside [hint 1s", func(tr *Trace) { setWait(tr, 2, 0, 1100*time.Millisecond) }},
		{"a wait that is not the draw's", checkWaits, "want max(FullJitter", func(tr *Trace) { tr.Calls[0].Draws[0] = 0.9 }},
		{"a next attempt that did not wait the logged wait", checkWaits, "the logged wait is", func(tr *Trace) {
			tr.Calls[0].Attempts[0].Wait -= time.Millisecond
		}},
		{"a wait logged after the last attempt", checkWaits, "last attempt 2 logged wait 1ms", func(tr *Trace) { tr.Calls[0].Attempts[1].Wait = time.Millisecond }},
		{"a call that returns after its last attempt", checkWaits, "returned 1ms after it", func(tr *Trace) { tr.Calls[1].End = tr.Calls[1].End.Add(time.Millisecond) }},
		{"an attempt longer than its timeout", checkWaits, "attempt 1 took 500ms, the bound is 400ms", func(tr *Trace) { tr.AttemptTimeout = 400 * time.Millisecond }},
		{"an attempt longer than the PSP held it", checkWaits, "attempt 1 took 500ms, the bound is 300ms", func(tr *Trace) {
			tr.AttemptTimeout, tr.SlowestFault = 0, 300*time.Millisecond
		}},
		{"a wrong elapsed time", checkWaits, "logged elapsed", func(tr *Trace) { tr.Calls[2].Attempts[1].Elapsed = 0 }},
		{"a retry after a hint above DelayMax", checkWaits, "Retry-After 2s > DelayMax 1s", func(tr *Trace) { tr.Calls[2].Trips[0].RetryAfter = "2" }},
		{"a call longer than its budget", checkWaits, "more than its budget", func(tr *Trace) {
			c := &tr.Calls[1]
			c.Start = c.Start.Add(-time.Hour)
			c.Attempts[0].Elapsed += time.Hour
		}},
		{"a draw taken after the last attempt", checkWaits, "took 2 jitter draws for 1 waits", func(tr *Trace) {
			tr.Calls[0].Draws = append(tr.Calls[0].Draws, 0.1)
		}},
		{"no draw for the wait the deadline refused", checkWaits, "took 1 jitter draws for 2 waits", func(tr *Trace) {
			tr.Calls[4].Draws = tr.Calls[4].Draws[:1]
		}},
		{"an attempt at the caller's deadline", checkWaits, "attempt 2 started 0s after the caller's deadline", func(tr *Trace) {
			tr.Calls[4].Deadline = tr.Calls[4].Trips[1].Start
		}},
		{"a call that outlives its caller's deadline", checkWaits, "outlived its caller's deadline by 1ms", func(tr *Trace) {
			c := &tr.Calls[1]
			c.Deadline = c.End.Add(-time.Millisecond)
			c.Trips[0].Start = c.Deadline.Add(-time.Millisecond)
		}},
	}
	finalErrorViolations = []violation{
		{"an answer whose header pix cannot read, without ErrContract", checkFinalError, "ErrContract) = false after an answer with a header of more than", func(tr *Trace) {
			tr.Calls[2].Trips[2].Status, tr.Calls[2].Trips[2].Err = 0, tr.Calls[2].Err
			tr.Wire[5].HeaderBytes = headerLimit + 1
		}},
		{"a lost connection reported as ErrContract", checkFinalError, "ErrContract) = true after an answer with a header of more than", func(tr *Trace) {
			tr.Calls[2].Trips[2].Status, tr.Calls[2].Trips[2].Err = 0, tr.Calls[2].Err
			tr.Calls[2].Err = fmt.Errorf("%w: %w", pix.ErrContract, tr.Calls[2].Err)
		}},
		{"an error with another problem code than the answer's", checkFinalError, `error carries code "invalid_request"`, func(tr *Trace) {
			pe := *tr.Calls[1].Err.(*pix.Error)
			pe.Code = "invalid_request"
			tr.Calls[1].Err = &pe
		}},
		{"an error that lost the answer's detail", checkFinalError, `and detail ""`, func(tr *Trace) {
			pe := *tr.Calls[1].Err.(*pix.Error)
			pe.Detail = ""
			tr.Calls[1].Err = &pe
		}},
		{"an error that lost the body's error", checkFinalError, "the transport's unexpected EOF", func(tr *Trace) {
			tr.Calls[2].Trips[2].Status, tr.Calls[2].Trips[2].BodyErr = 201, io.ErrUnexpectedEOF
		}},
		{"a 201 refused without ErrContract", checkFinalError, "after a 201 it did not accept", func(tr *Trace) { tr.Calls[2].Trips[2].Status = 201 }},
		{"a 200 that is not ErrContract", checkFinalError, "ErrContract) = false after a 200", func(tr *Trace) {
			tr.Calls[2].Trips[2].Status = 200
			tr.Calls[2].Err.(*pix.OutcomeUnknownError).Err = &notContract{&pix.Error{Status: 200}}
		}},
		{"a 503 that is ErrContract", checkFinalError, "ErrContract) = true after a 503", func(tr *Trace) {
			tr.Calls[2].Err.(*pix.OutcomeUnknownError).Err = errors.Join(tr.Calls[2].Err.(*pix.OutcomeUnknownError).Err, pix.ErrContract)
		}},
		{"a failure whose last attempt succeeded", checkFinalError, "its last attempt 1 error \"\"", func(tr *Trace) { tr.Calls[1].Attempts[0].Error = "" }},
		{"an error that is not the last attempt's", checkFinalError, "does not say the last attempt's", func(tr *Trace) {
			tr.Calls[2].Attempts[2].Error = "pix: PSP answered 502 injected_fault"
		}},
		{"an error that lost the last answer's status", checkFinalError, "does not carry the last answer's status 503", func(tr *Trace) {
			tr.Calls[2].Err = &pix.OutcomeUnknownError{Key: keyUnknown, Attempts: 3, Err: errors.New(tr.Calls[2].Attempts[2].Error)}
		}},
		{"an error that lost the transport's error", checkFinalError, "the transport's EOF", func(tr *Trace) {
			c := &tr.Calls[2]
			c.Trips[2].Status, c.Trips[2].Err, c.Attempts[2].Error = 0, io.EOF, errEOF.Error()
			c.Err = &pix.OutcomeUnknownError{Key: keyUnknown, Attempts: 3, Err: errors.New(errEOF.Error())}
		}},
	}
	honestyViolations = []violation{
		{"a success on a 201 that breaks the contract", checkHonesty, "accepted a 201 that breaks the contract", func(tr *Trace) {
			tr.Wire[1].Body = []byte(strings.Replace(string(body201), "150.00", "150.01", 1))
		}},
		{"a plain error for a settled payment", checkHonesty, "not outcome-unknown, but the PSP settled it", func(tr *Trace) {
			tr.Calls[2].Err = &pix.Error{Status: 503, Code: "injected_fault"}
			tr.Ledger = append(tr.Ledger, psp.Settlement{Token: runToken, IdempotencyKey: keyUnknown, EndToEndID: "E12345678202601021000abcdefghijn",
				AmountCents: payUnknown.AmountCents, PixKey: payUnknown.PixKey, Description: payUnknown.Description, SettledAt: t0.Add(2 * time.Second)})
		}},
		{"outcome unknown after requests that could not have settled", checkHonesty, "yet none of its requests could have settled it", func(tr *Trace) {
			refused := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}
			tr.Calls[2].Trips = []Trip{{Err: refused}, {Status: 400}, {Status: 422}}
		}},
		{"a closing record that contradicts the error", checkHonesty, "outcome_unknown=false", func(tr *Trace) { tr.Calls[2].Summary.OutcomeUnknown = false }},
		{"a success with no settlement", checkHonesty, "the ledger holds 0 settlements", func(tr *Trace) { tr.Ledger = nil }},
		{"a receipt with another endToEndId", checkHonesty, "but the ledger holds", func(tr *Trace) { tr.Calls[0].Receipt.EndToEndID = "E12345678202601021000abcdefghijz" }},
		{"a receipt with another settlement time", checkHonesty, "but the ledger holds", func(tr *Trace) { tr.Calls[0].Receipt.SettledAt = t0.Add(time.Second) }},
		{"a receipt not REALIZADO", checkHonesty, "for payment", func(tr *Trace) { tr.Calls[0].Receipt.Status = "PENDENTE" }},
		{"a receipt that hides the replay", checkHonesty, "Receipt.Replayed = false", func(tr *Trace) { tr.Calls[0].Receipt.Replayed = false }},
	}
	replayViolations = []violation{
		{"a replay with another body", checkReplays, "replayed 201", func(tr *Trace) {
			tr.Wire[1].Body = []byte(strings.Replace(string(body201), "150.00", "150.01", 1))
		}},
		{"a replay with another status", checkReplays, "replayed 200", func(tr *Trace) { tr.Wire[1].Status = 200 }},
		{"a key answered afresh twice", checkReplays, "answered afresh twice", func(tr *Trace) { tr.Wire[1].Replayed = false }},
		{"a replay of an answer the PSP does not store", checkReplays, "the PSP stores no such answer", func(tr *Trace) { tr.Wire[3].Replayed = true }},
		{"replays that differ after a dropped answer", checkReplays, "replayed 201", func(tr *Trace) {
			tr.Wire[0].Status, tr.Wire[0].Body, tr.Wire[0].Hijacked = 0, nil, true
			again := tr.Wire[1]
			again.Body = []byte(strings.Replace(string(body201), "abcdefghijk", "abcdefghijl", 1))
			tr.Wire = append(tr.Wire, again)
		}},
	}
	moneyViolations = []violation{
		{"a balance that lost a cent", checkMoney, "the PSP reports 84999", func(tr *Trace) { tr.BalanceEnd = 84_999 }},
		{"a settlement of no money", checkMoney, "moved 0 cents", func(tr *Trace) { tr.Ledger[0].AmountCents, tr.BalanceEnd = 0, 100_000 }},
		{"a balance below zero", checkMoney, "took the balance to -5000", func(tr *Trace) { tr.BalanceStart, tr.BalanceEnd = 10_000, -5_000 }},
	}
	validationViolations = []violation{
		{"a valid payment refused locally", checkValidation, "but the contract accepts it", func(tr *Trace) { tr.Calls[3].Payment.AmountCents = 1 }},
		{"an invalid payment sent", checkValidation, "breaks the contract, yet pix sent it", func(tr *Trace) { tr.Calls[1].Payment.PixKey = "Pix@Example.com" }},
		{"a description of 141 characters sent", checkValidation, "breaks the contract, yet pix sent it", func(tr *Trace) {
			tr.Calls[1].Payment.Description = strings.Repeat("ç", 141)
		}},
		{"a local refusal that logged attempts", checkValidation, "yet logged 1 attempts", func(tr *Trace) {
			tr.Calls[3].Attempts = []Attempt{{Number: 1}}
		}},
		{"a request the PSP found invalid", checkValidation, "the PSP refused request", func(tr *Trace) {
			tr.Wire[2].Status, tr.Wire[2].Body = 400, []byte(`{"status":400,"code":"invalid_request"}`)
		}},
	}
)

// rekey gives call i key everywhere the trace shows its key.
func rekey(tr *Trace, i int, key string) {
	c := &tr.Calls[i]
	old := c.Key()
	for j := range c.Trips {
		c.Trips[j].Key = key
	}
	for j := range c.Attempts {
		c.Attempts[j].Key = key
	}
	c.Summary.Key = key
	for j := range tr.Wire {
		if tr.Wire[j].Key == old {
			tr.Wire[j].Key = key
		}
	}
}

// setWait changes the wait after attempt j+1 of call i to wait, and moves the rest of the call
// in time so that the next attempt still starts when the wait ends.
func setWait(tr *Trace, i, j int, wait time.Duration) {
	c := &tr.Calls[i]
	shift := wait - c.Attempts[j].Wait
	c.Attempts[j].Wait = wait
	for k := j + 1; k < len(c.Attempts); k++ {
		c.Attempts[k].At = c.Attempts[k].At.Add(shift)
		c.Attempts[k].Elapsed += shift
		c.Trips[k].Start, c.Trips[k].End = c.Trips[k].Start.Add(shift), c.Trips[k].End.Add(shift)
	}
	c.End = c.End.Add(shift)
}

// notContract is a *pix.Error that hides its ErrContract: what a client that took a 2xx for a
// plain failure would return.
type notContract struct{ err *pix.Error }

func (e *notContract) Error() string      { return e.err.Error() }
func (e *notContract) As(target any) bool { return errors.As(e.err, target) }
func (e *notContract) Is(target error) bool {
	return target != pix.ErrContract && errors.Is(e.err, target)
}
