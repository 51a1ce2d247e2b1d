package main

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/pix"
)

// goodAwaitedRun returns goodRun with scenario 1 played as Efí plays it: Send ends pending after
// one attempt, and one lookup finds the payment settled. Every expectation holds.
func goodAwaitedRun() record {
	r := goodRun()
	first := &r.results[0]
	first.Want = efiExpectations[0]
	first.Pending = &pix.OutcomeUnknownError{Key: "k1", Attempts: 1, Err: pix.ErrPending}
	first.Looked = []trip{{Key: "k1", Status: 200}}
	first.Received.Lookups = 1
	first.Receipt.Replayed, first.Receipt.Attempts = true, 1
	return r
}

func TestCheckPassesAGoodAwaitedRun(t *testing.T) {
	r := goodAwaitedRun()
	if err := check(pixDialect, r.results, r.ledger, r.start, r.final); err != nil {
		t.Errorf("check() = %v, want nil", err)
	}
}

// Every way the wait for a pending payment, or the PSP's count of the requests, can go wrong is
// reported, naming the scenario and what differed. Nothing else is reported.
func TestCheckReportsEachBreachOfAWait(t *testing.T) {
	tests := []struct {
		name  string
		spoil func(r *record)
		want  []string // "N: what" for scenario N
	}{
		{"Send settles a payment that must end pending", func(r *record) {
			r.results[0].Pending, r.results[0].Looked, r.results[0].Received.Lookups = nil, nil, 0
		}, []string{
			"1: Send ended pending: false, want true",
			"1: lookups: 0, want 1",
		}},
		{"Send ends pending a payment that must settle at once", func(r *record) {
			r.results[1].Pending = &pix.OutcomeUnknownError{Key: "k2", Attempts: 3, Err: pix.ErrPending}
			r.results[1].Looked, r.results[1].Received.Lookups, r.results[1].Receipt.Attempts = []trip{{Key: "k2", Status: 200}}, 1, 1
		}, []string{
			"2: Send ended pending: true, want false",
			"2: lookups: 1, want 0",
		}},
		{"more lookups than expected", func(r *record) {
			r.results[0].Looked = append([]trip{{Key: "k1", Status: 503}}, r.results[0].Looked...)
			r.results[0].Received.Lookups, r.results[0].Receipt.Attempts = 2, 2
		}, []string{"1: lookups: 2, want 1"}},
		{"a wait without a lookup", func(r *record) { r.results[0].Looked, r.results[0].Received.Lookups = nil, 0 }, []string{
			"1: lookups: 0, want 1",
			"1: the outcome (settled) is not the last request's",
			"1: receipt counts 1 lookups, the client sent 0",
		}},
		{"the receipt miscounts the lookups", func(r *record) { r.results[0].Receipt.Attempts = 2 }, []string{
			"1: receipt counts 2 lookups, the client sent 1",
		}},
		{"Send miscounts the attempts before pending", func(r *record) { r.results[0].Pending.Attempts = 2 }, []string{
			"1: Send counted 2 attempts before it ended pending, the client sent 1 requests",
		}},
		{"a settlement that is not the last lookup's answer", func(r *record) { r.results[0].Looked[0].Status = 202 }, []string{
			"1: the outcome (settled) is not the last request's",
		}},
		{"a refusal that is not the last lookup's answer", func(r *record) {
			r.results[0].Err = &pix.Error{Status: 422, Code: "payment_rejected"}
			r.results[0].Want.Err = pix.ErrRejected
			r.ledger, r.results[0].BalanceAfter, r.final = r.ledger[1:], r.results[0].BalanceBefore, r.final+15000
		}, []string{"1: the outcome (refused: rejected) is not the last request's"}},
		{"the PSP counts a lookup the client did not send", func(r *record) { r.results[0].Received.Lookups = 2 }, []string{
			"1: the PSP received 1 payment requests and 2 lookups, the client sent 1 and 1",
		}},
		{"the PSP counts fewer payment requests than the client sent", func(r *record) { r.results[1].Received.Payments = 2 }, []string{
			"2: the PSP received 2 payment requests and 0 lookups, the client sent 3 and 0",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := goodAwaitedRun()
			tt.spoil(&r)
			err := check(pixDialect, r.results, r.ledger, r.start, r.final)
			if diff := cmp.Diff(tt.want, breaches(err)); diff != "" {
				t.Errorf("check() breaches mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// A dialect whose answers carry times to the millisecond settles at the ledger's time cut to
// the millisecond. Cut any further, the time is another.
func TestCheckComparesTimesAtTheDialectsPrecision(t *testing.T) {
	cut := func(precision time.Duration) record {
		r := goodRun()
		for i := range r.results[:3] {
			r.results[i].Receipt.SettledAt = r.results[i].Receipt.SettledAt.Truncate(precision)
		}
		return r
	}
	r := cut(time.Millisecond)
	if err := check(efiDialect, r.results, r.ledger, r.start, r.final); err != nil {
		t.Errorf("check(efi) of receipts cut to the millisecond = %v, want nil", err)
	}
	if err := check(pixDialect, r.results, r.ledger, r.start, r.final); err == nil {
		t.Errorf("check(pix) of receipts cut to the millisecond = nil, want a breach")
	}
	r = cut(time.Second)
	want := []string{
		"1: the ledger's settlement time 2025-12-02 12:00:00.123456789 +0000 UTC, the receipt's 2025-12-02 12:00:00 +0000 UTC",
		"2: the ledger's settlement time 2025-12-02 12:00:00.123456789 +0000 UTC, the receipt's 2025-12-02 12:00:00 +0000 UTC",
		"3: the ledger's settlement time 2025-12-02 12:00:00.123456789 +0000 UTC, the receipt's 2025-12-02 12:00:00 +0000 UTC",
	}
	if diff := cmp.Diff(want, breaches(check(efiDialect, r.results, r.ledger, r.start, r.final))); diff != "" {
		t.Errorf("check(efi) of receipts cut to the second: breaches mismatch (-want +got):\n%s", diff)
	}
}

// In a dialect whose core may not count every request, as in Open Finance, where a retry may end
// at the front end, the PSP may count fewer requests than the client sent, never more.
func TestCheckLetsAFrontEndAnswerAlone(t *testing.T) {
	frontEnd := *pixDialect
	frontEnd.CoreCountsAll = false
	tests := []struct {
		name  string
		spoil func(r *record)
		want  []string // nil: no breach
	}{
		{"a payment request the core did not count", func(r *record) { r.results[1].Received.Payments = 2 }, nil},
		{"a lookup the core did not count", func(r *record) { r.results[0].Received.Lookups = 0 }, nil},
		{"a payment request the client did not send", func(r *record) { r.results[1].Received.Payments = 4 }, []string{
			"2: the PSP received 4 payment requests and 0 lookups, the client sent 3 and 0",
		}},
		{"a lookup the client did not send", func(r *record) { r.results[0].Received.Lookups = 2 }, []string{
			"1: the PSP received 1 payment requests and 2 lookups, the client sent 1 and 1",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := goodAwaitedRun()
			tt.spoil(&r)
			err := check(&frontEnd, r.results, r.ledger, r.start, r.final)
			if tt.want == nil {
				if err != nil {
					t.Errorf("check() = %v, want nil", err)
				}
				return
			}
			if diff := cmp.Diff(tt.want, breaches(err)); diff != "" {
				t.Errorf("check() breaches mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
