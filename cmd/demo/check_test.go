package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/pix"
	"pixretry/psp"
)

// errReset stands for the transport error of a connection the PSP closed.
var errReset = errors.New("read: connection reset by peer")

// record is what a demo run produced: the five results, the PSP's ledger, and its balance at the
// start and at the end.
type record struct {
	results      []result
	ledger       []psp.Settlement
	start, final int64
}

// goodRun returns a run in which every expectation holds. Each test case breaks one thing in it.
func goodRun() record {
	at := time.Date(2025, 12, 2, 12, 0, 0, 123456789, time.UTC)
	trips := func(key string, answers ...any) []trip {
		var sent []trip
		for _, a := range answers {
			status, _ := a.(int)
			err, _ := a.(error)
			sent = append(sent, trip{Key: key, Status: status, Err: err})
		}
		return sent
	}
	payment := func(i int, before int64) pix.Payment { // as play makes it
		p := scenarios[i].Payment
		if p.AmountCents == 0 {
			p.AmountCents = before + 1
		}
		return p
	}
	settled := func(i int, e2e string, before int64, replayed bool, sent []trip) result {
		p := payment(i, before)
		return result{
			Scenario: scenarios[i], Want: pixExpectations[i], Payment: p, Sent: sent,
			Received: received{Payments: int64(len(sent))}, BalanceBefore: before, BalanceAfter: before - p.AmountCents,
			Receipt: pix.Receipt{EndToEndID: e2e, AmountCents: p.AmountCents, PixKey: p.PixKey, Status: "REALIZADO",
				SettledAt: at, IdempotencyKey: sent[0].Key, Replayed: replayed, Attempts: len(sent)},
		}
	}
	failed := func(i int, err error, sent []trip) result {
		return result{Scenario: scenarios[i], Want: pixExpectations[i], Payment: payment(i, 55000), BalanceBefore: 55000,
			BalanceAfter: 55000, Sent: sent, Received: received{Payments: int64(len(sent))}, Err: err}
	}
	lastErr := &url.Error{Op: "Post", URL: "http://psp/v1/pix/payments", Err: errReset}
	results := []result{
		settled(0, "E1", 100000, false, trips("k1", 201)),
		settled(1, "E2", 85000, false, trips("k2", 503, 503, 201)),
		settled(2, "E3", 65000, true, trips("k3", context.DeadlineExceeded, 201)),
		failed(3, &pix.Error{Status: 422, Code: "insufficient_funds"}, trips("k4", 422)),
		failed(4, &pix.OutcomeUnknownError{Key: "k5", Attempts: 4, Err: fmt.Errorf("pix: %w", lastErr)},
			trips("k5", errReset, errReset, errReset, errReset)),
	}
	var ledger []psp.Settlement
	for _, r := range results[:3] {
		ledger = append(ledger, psp.Settlement{IdempotencyKey: r.key(), EndToEndID: r.Receipt.EndToEndID,
			AmountCents: r.Payment.AmountCents, PixKey: r.Payment.PixKey, SettledAt: at})
	}
	return record{results: results, ledger: ledger, start: 100000, final: 55000}
}

func TestCheckPassesAGoodRun(t *testing.T) {
	r := goodRun()
	if err := check(pixDialect, r.results, r.ledger, r.start, r.final); err != nil {
		t.Errorf("check() = %v, want nil", err)
	}
}

// Every way a run can go wrong is reported, naming the scenario (or the ledger) and what
// differed. Nothing else is reported.
func TestCheckReportsEachBreach(t *testing.T) {
	tests := []struct {
		name  string
		spoil func(r *record)
		want  []string // "N: what" for scenario N
	}{
		{"a payment that must settle fails", func(r *record) { r.results[0].Err = errors.New("boom") }, []string{
			"1: the outcome (failed: boom) is not the last request's",
			"1: failed (boom), want a settlement",
			"ledger: 3 settlements recorded for 2 successful payments",
			"ledger: balance 550.00, want 1000.00 - 300.00 = 700.00",
		}},
		{"a payment that must be refused settles", func(r *record) { r.results[3].Err = nil }, []string{
			"4: the outcome (settled) is not the last request's",
			`4: got settled, want an error matching "pix: insufficient funds"`,
			"ledger: 3 settlements recorded for 4 successful payments",
			"ledger: balance 550.00, want 1000.00 - 1000.01 = -0.01",
		}},
		{"another error than the one expected", func(r *record) { r.results[4].Err = fmt.Errorf("pix: %w", errReset) }, []string{
			`5: got failed: pix: read: connection reset by peer, want an error matching "pix: outcome unknown"`,
		}},
		{"the refusal is not the last answer", func(r *record) { r.results[3].Sent[0].Status = 500 }, []string{
			"4: the outcome (refused: insufficient funds) is not the last request's",
		}},
		{"the outcome unknown is not the last request's error", func(r *record) { r.results[4].Sent[3].Err = errors.New("EOF") }, []string{
			"5: the outcome (failed: outcome unknown) is not the last request's",
		}},
		{"a settlement whose last attempt was not a 201", func(r *record) { r.results[0].Sent[0].Status = 200 }, []string{
			"1: the outcome (settled) is not the last request's",
		}},
		{"the late answer is not a replay", func(r *record) { r.results[2].Receipt.Replayed = false }, []string{
			"3: receipt Replayed = false, want true",
		}},
		{"a first answer marked as a replay", func(r *record) { r.results[0].Receipt.Replayed = true }, []string{
			"1: receipt Replayed = true, want false",
		}},
		{"the receipt miscounts the attempts", func(r *record) { r.results[1].Receipt.Attempts = 2 }, []string{
			"2: receipt counts 2 attempts, the client sent 3 requests",
		}},
		{"the receipt names another key", func(r *record) { r.results[0].Receipt.IdempotencyKey = "other" }, []string{
			`1: receipt key "other", the requests carried "k1"`,
		}},
		{"the receipt names another amount", func(r *record) { r.results[0].Receipt.AmountCents = 1 }, []string{
			`1: receipt for 0.01 to "maria@example.com", want 150.00 to "maria@example.com"`,
		}},
		{"the receipt names another Pix key", func(r *record) { r.results[0].Receipt.PixKey = "joao@example.com" }, []string{
			`1: receipt for 150.00 to "joao@example.com", want 150.00 to "maria@example.com"`,
		}},
		{"fewer attempts than expected", func(r *record) {
			r.results[1].Sent = r.results[1].Sent[2:]
			r.results[1].Receipt.Attempts, r.results[1].Received.Payments = 1, 1
		}, []string{
			"2: attempts: 1, want exactly 3",
		}},
		{"more attempts than a range allows", func(r *record) {
			r.results[2].Sent = append(r.results[2].Sent[:1], r.results[2].Sent...)
			r.results[2].Sent = append(r.results[2].Sent[:1], r.results[2].Sent...)
			r.results[2].Sent = append(r.results[2].Sent[:1], r.results[2].Sent...)
			r.results[2].Receipt.Attempts, r.results[2].Received.Payments = 5, 5
		}, []string{"3: attempts: 5, want 2 to 4"}},
		{"an attempt with another key", func(r *record) { r.results[1].Sent[1].Key = "other" }, []string{
			`2: attempt 2 carried key "other", attempt 1 "k2"`,
		}},
		{"attempts without a key", func(r *record) { r.results[3].Sent[0].Key = "" }, []string{
			`4: attempt 1 carried key "", attempt 1 ""`,
		}},
		{"a payment that sent nothing", func(r *record) {
			r.results[3].Sent, r.results[3].Received.Payments, r.results[3].Err = nil, 0, pix.ErrInvalidPayment
		}, []string{
			"4: attempts: 0, want exactly 1",
			`4: got failed: pix: invalid payment, want an error matching "pix: insufficient funds"`,
		}},
		{"a settlement missing from the ledger", func(r *record) { r.ledger = r.ledger[1:] }, []string{
			`1: the ledger holds 0 settlements under key "k1", want 1`,
			"ledger: 2 settlements recorded for 3 successful payments",
		}},
		{"a payment settled twice", func(r *record) { r.ledger = append(r.ledger, r.ledger[1]) }, []string{
			`2: the ledger holds 2 settlements under key "k2", want 1`,
			"ledger: 4 settlements recorded for 3 successful payments",
		}},
		{"a settlement for a payment that failed", func(r *record) { r.ledger[2].IdempotencyKey = "k5" }, []string{
			`3: the ledger holds 0 settlements under key "k3", want 1`,
			`5: the ledger holds 1 settlements under key "k5", want none`,
		}},
		{"a settlement under a key no payment used", func(r *record) { r.ledger = append(r.ledger, psp.Settlement{IdempotencyKey: "k9"}) }, []string{
			"ledger: 4 settlements recorded for 3 successful payments",
		}},
		{"the ledger names another endToEndId", func(r *record) { r.ledger[0].EndToEndID = "E9" }, []string{
			`1: the ledger's endToEndId "E9", the receipt's "E1"`,
		}},
		{"the ledger holds another amount", func(r *record) { r.ledger[1].AmountCents++ }, []string{
			`2: the ledger holds 200.01 to "+5511987654321", want 200.00 to "+5511987654321"`,
		}},
		{"the ledger holds another Pix key", func(r *record) { r.ledger[1].PixKey = "+5511000000000" }, []string{
			`2: the ledger holds 200.00 to "+5511000000000", want 200.00 to "+5511987654321"`,
		}},
		{"the ledger holds another settlement time", func(r *record) { r.ledger[0].SettledAt = r.ledger[0].SettledAt.Add(time.Second) }, []string{
			"1: the ledger's settlement time 2025-12-02 12:00:01.123456789 +0000 UTC, the receipt's 2025-12-02 12:00:00.123456789 +0000 UTC",
		}},
		{"a settlement that did not debit the balance", func(r *record) { r.results[0].BalanceAfter = r.results[0].BalanceBefore }, []string{
			"1: the balance went from 1000.00 to 1000.00, want a debit of 150.00",
		}},
		{"a refusal that debited the balance", func(r *record) { r.results[3].BalanceAfter-- }, []string{
			"4: the balance went from 550.00 to 549.99, want no debit",
		}},
		{"a final balance off the ledger", func(r *record) { r.final -= 100 }, []string{
			"ledger: balance 549.00, want 1000.00 - 450.00 = 550.00",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := goodRun()
			tt.spoil(&r)
			err := check(pixDialect, r.results, r.ledger, r.start, r.final)
			if diff := cmp.Diff(tt.want, breaches(err)); diff != "" {
				t.Errorf("check() breaches mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// breaches lists the breaches joined in err, with "demo: scenario N (title): " cut to "N: " and
// "demo: " cut from the ledger's.
func breaches(err error) []string {
	var got []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		line := strings.TrimPrefix(e.Error(), "demo: ")
		if rest, ok := strings.CutPrefix(line, "scenario "); ok {
			n, _, _ := strings.Cut(rest, " ")
			_, what, _ := strings.Cut(rest, "): ")
			line = n + ": " + what
		}
		got = append(got, line)
	}
	return got
}
