package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/pix"
)

// errReset stands for the transport error of a connection the PSP closed.
var errReset = errors.New("read: connection reset by peer")

const (
	key1 = "11111111-0000-4000-8000-000000000001"
	key2 = "22222222-0000-4000-8000-000000000002"
	key3 = "33333333-0000-4000-8000-000000000003"
	key4 = "44444444-0000-4000-8000-000000000004"
	key5 = "55555555-0000-4000-8000-000000000005"
)

// recorded is a hand-built record of a demo run in which every expectation holds: the results of
// the five scenarios, the PSP's ledger, and its balance at the start and at the end.
type recorded struct {
	results      []result
	ledger       []settlement
	start, final int64
}

// goodRun returns a fresh recorded run in which every expectation holds; each test case
// breaks one thing in it.
func goodRun() recorded {
	at := time.Date(2025, 12, 2, 12, 0, 0, 123456789, time.UTC)
	settled := func(i int, key, e2e string, cents, before int64, replayed bool, sent ...wireAttempt) result {
		s := scenarios[i]
		p := s.Payment(before)
		return result{
			Scenario: s, Payment: p, Sent: sent, BalanceBefore: before, BalanceAfter: before - cents,
			Receipt: pix.Receipt{
				EndToEndID: e2e, AmountCents: p.AmountCents, PixKey: p.PixKey, Status: "REALIZADO",
				SettledAt: at, IdempotencyKey: key, Replayed: replayed, Attempts: len(sent),
			},
		}
	}
	lastErr := &url.Error{Op: "Post", URL: "http://psp/v1/pix/payments", Err: errReset}
	results := []result{
		settled(0, key1, "E1", 15000, 100000, false, wireAttempt{Key: key1, Status: 201}),
		settled(1, key2, "E2", 20000, 85000, false,
			wireAttempt{Key: key2, Status: 503}, wireAttempt{Key: key2, Status: 503}, wireAttempt{Key: key2, Status: 201}),
		settled(2, key3, "E3", 10000, 65000, true,
			wireAttempt{Key: key3, Err: context.DeadlineExceeded}, wireAttempt{Key: key3, Status: 201}),
		{
			Scenario: scenarios[3], Payment: scenarios[3].Payment(55000), BalanceBefore: 55000, BalanceAfter: 55000,
			Sent: []wireAttempt{{Key: key4, Status: 422}},
			Err:  &pix.Error{Status: 422, Code: "insufficient_funds", Detail: "valor exceeds the balance"},
		},
		{
			Scenario: scenarios[4], Payment: scenarios[4].Payment(55000), BalanceBefore: 55000, BalanceAfter: 55000,
			Sent: []wireAttempt{{Key: key5, Err: errReset}, {Key: key5, Err: errReset}, {Key: key5, Err: errReset}, {Key: key5, Err: errReset}},
			Err: &pix.OutcomeUnknownError{Key: key5, Attempts: 4,
				Err: fmt.Errorf("retry: attempt 4 of 4, budget spent: %w", fmt.Errorf("pix: %w", lastErr))},
		},
	}
	horario := at.Format(time.RFC3339Nano)
	ledger := []settlement{
		{EndToEndID: "E1", IdempotencyKey: key1, Valor: "150.00", Chave: "maria@example.com", Horario: horario},
		{EndToEndID: "E2", IdempotencyKey: key2, Valor: "200.00", Chave: "+5511987654321", Horario: horario},
		{EndToEndID: "E3", IdempotencyKey: key3, Valor: "100.00", Chave: "123e4567-e89b-42d3-a456-426614174000", Horario: horario},
	}
	return recorded{results: results, ledger: ledger, start: 100000, final: 55000}
}

func TestCheckPassesAGoodRun(t *testing.T) {
	r := goodRun()
	if err := check(r.results, r.ledger, r.start, r.final); err != nil {
		t.Errorf("check() = %v, want nil", err)
	}
}

// Every way a run can go wrong is reported, naming the scenario (or the ledger) and what
// differed; nothing else is reported.
func TestCheckReportsEachBreach(t *testing.T) {
	tests := []struct {
		name  string
		spoil func(r *recorded)
		want  []string
	}{
		{
			name:  "a payment that must settle fails",
			spoil: func(r *recorded) { r.results[0].Err = errors.New("boom") },
			want: []string{
				"demo: scenario 1 (the PSP answers on the first attempt): failed (boom), want a settlement",
				"demo: scenario 1 (the PSP answers on the first attempt): the error carries status 0, the last attempt was answered 201",
				"demo: ledger: 3 settlements recorded for 2 successful payments",
				"demo: ledger: balance 550.00, want 1000.00 - 300.00 = 700.00",
			},
		},
		{
			name:  "a payment that must be refused settles",
			spoil: func(r *recorded) { r.results[3].Err = nil },
			want: []string{
				`demo: scenario 4 (an amount above the balance is refused and not retried): got settled, want an error matching "pix: insufficient funds"`,
				"demo: scenario 4 (an amount above the balance is refused and not retried): settled, but the last attempt was answered 422",
				"demo: ledger: 3 settlements recorded for 4 successful payments",
				"demo: ledger: balance 550.00, want 1000.00 - 1000.01 = -0.01",
			},
		},
		{
			name: "a payment fails with another error than the one expected",
			spoil: func(r *recorded) {
				r.results[4].Err = fmt.Errorf("pix: %w", &pix.Error{Status: 400, Code: "invalid_request"})
			},
			want: []string{
				`demo: scenario 5 (the PSP is down for longer than the retry budget): got failed: pix: pix: PSP answered 400 invalid_request, want an error matching "pix: outcome unknown"`,
				"demo: scenario 5 (the PSP is down for longer than the retry budget): the error (pix: pix: PSP answered 400 invalid_request) does not wrap the last attempt's (read: connection reset by peer)",
			},
		},
		{
			name:  "the refusal is not the last answer",
			spoil: func(r *recorded) { r.results[3].Sent[0].Status = 500 },
			want: []string{
				"demo: scenario 4 (an amount above the balance is refused and not retried): the error carries status 422, the last attempt was answered 500",
			},
		},
		{
			name:  "a settlement whose last attempt was not a 201",
			spoil: func(r *recorded) { r.results[0].Sent[0].Status = 200 },
			want:  []string{"demo: scenario 1 (the PSP answers on the first attempt): settled, but the last attempt was answered 200"},
		},
		{
			name:  "a settlement whose last attempt failed",
			spoil: func(r *recorded) { r.results[2].Sent[1] = wireAttempt{Key: key3, Err: errReset} },
			want: []string{
				"demo: scenario 3 (the PSP settles but answers after the attempt timeout; the retry gets the stored answer): settled, but the last attempt failed (read: connection reset by peer)",
			},
		},
		{
			name:  "the late answer is not a replay",
			spoil: func(r *recorded) { r.results[2].Receipt.Replayed = false },
			want: []string{
				"demo: scenario 3 (the PSP settles but answers after the attempt timeout; the retry gets the stored answer): receipt Replayed = false, want true",
			},
		},
		{
			name:  "a first answer marked as a replay",
			spoil: func(r *recorded) { r.results[0].Receipt.Replayed = true },
			want:  []string{"demo: scenario 1 (the PSP answers on the first attempt): receipt Replayed = true, want false"},
		},
		{
			name:  "the receipt miscounts the attempts",
			spoil: func(r *recorded) { r.results[1].Receipt.Attempts = 2 },
			want: []string{
				"demo: scenario 2 (two 503 in a row, then success on the third attempt): receipt counts 2 attempts, the client sent 3 requests",
			},
		},
		{
			name:  "the receipt names another key",
			spoil: func(r *recorded) { r.results[0].Receipt.IdempotencyKey = "other" },
			want: []string{
				`demo: scenario 1 (the PSP answers on the first attempt): receipt key "other", the requests carried "` + key1 + `"`,
			},
		},
		{
			name:  "the receipt names another amount",
			spoil: func(r *recorded) { r.results[0].Receipt.AmountCents = 1 },
			want: []string{
				`demo: scenario 1 (the PSP answers on the first attempt): receipt for 0.01 to "maria@example.com", want 150.00 to "maria@example.com"`,
			},
		},
		{
			name:  "the receipt names another Pix key",
			spoil: func(r *recorded) { r.results[0].Receipt.PixKey = "joao@example.com" },
			want: []string{
				`demo: scenario 1 (the PSP answers on the first attempt): receipt for 150.00 to "joao@example.com", want 150.00 to "maria@example.com"`,
			},
		},
		{
			name: "fewer attempts than expected",
			spoil: func(r *recorded) {
				r.results[1].Sent = r.results[1].Sent[2:]
				r.results[1].Receipt.Attempts = 1
			},
			want: []string{"demo: scenario 2 (two 503 in a row, then success on the third attempt): attempts: 1, want exactly 3"},
		},
		{
			name: "more attempts than expected",
			spoil: func(r *recorded) {
				r.results[3].Sent = append(r.results[3].Sent, wireAttempt{Key: key4, Status: 422})
			},
			want: []string{"demo: scenario 4 (an amount above the balance is refused and not retried): attempts: 2, want exactly 1"},
		},
		{
			name: "more attempts than a range allows",
			spoil: func(r *recorded) {
				more := wireAttempt{Key: key3, Err: context.DeadlineExceeded}
				r.results[2].Sent = append([]wireAttempt{more, more, more}, r.results[2].Sent...)
				r.results[2].Receipt.Attempts = 5
			},
			want: []string{
				"demo: scenario 3 (the PSP settles but answers after the attempt timeout; the retry gets the stored answer): attempts: 5, want 2 to 4",
			},
		},
		{
			name:  "an attempt with another key",
			spoil: func(r *recorded) { r.results[1].Sent[1].Key = "other" },
			want: []string{
				`demo: scenario 2 (two 503 in a row, then success on the third attempt): attempt 2 carried Idempotency-Key "other", attempt 1 "` + key2 + `"`,
			},
		},
		{
			name: "attempts without a key",
			spoil: func(r *recorded) {
				r.results[3].Sent[0].Key = ""
			},
			want: []string{
				`demo: scenario 4 (an amount above the balance is refused and not retried): attempt 1 carried Idempotency-Key "", attempt 1 ""`,
			},
		},
		{
			name: "a payment that sent nothing",
			spoil: func(r *recorded) {
				r.results[3].Sent = nil
				r.results[3].Err = fmt.Errorf("%w: AmountCents 0", pix.ErrInvalidPayment)
			},
			want: []string{
				`demo: scenario 4 (an amount above the balance is refused and not retried): got failed: pix: invalid payment: AmountCents 0, want an error matching "pix: insufficient funds"`,
				"demo: scenario 4 (an amount above the balance is refused and not retried): attempts: 0, want exactly 1",
			},
		},
		{
			name:  "a settlement missing from the ledger",
			spoil: func(r *recorded) { r.ledger = r.ledger[1:] },
			want: []string{
				`demo: scenario 1 (the PSP answers on the first attempt): the ledger holds 0 settlements under key "` + key1 + `", want 1`,
				"demo: ledger: 2 settlements recorded for 3 successful payments",
			},
		},
		{
			name:  "a payment settled twice",
			spoil: func(r *recorded) { r.ledger = append(r.ledger, r.ledger[1]) },
			want: []string{
				`demo: scenario 2 (two 503 in a row, then success on the third attempt): the ledger holds 2 settlements under key "` + key2 + `", want 1`,
				"demo: ledger: 4 settlements recorded for 3 successful payments",
			},
		},
		{
			name: "a settlement for a payment that failed",
			spoil: func(r *recorded) {
				r.ledger = append(r.ledger, settlement{EndToEndID: "E5", IdempotencyKey: key5, Valor: "50.00", Chave: "11222333000181"})
			},
			want: []string{
				`demo: scenario 5 (the PSP is down for longer than the retry budget): the ledger holds 1 settlements under key "` + key5 + `", want 0`,
				"demo: ledger: 4 settlements recorded for 3 successful payments",
			},
		},
		{
			name: "a settlement under a key no payment used",
			spoil: func(r *recorded) {
				r.ledger = append(r.ledger, settlement{EndToEndID: "E9", IdempotencyKey: "stranger"})
			},
			want: []string{"demo: ledger: 4 settlements recorded for 3 successful payments"},
		},
		{
			name:  "the ledger names another endToEndId",
			spoil: func(r *recorded) { r.ledger[0].EndToEndID = "E9" },
			want:  []string{`demo: scenario 1 (the PSP answers on the first attempt): the ledger's endToEndId "E9", the receipt's "E1"`},
		},
		{
			name:  "the ledger holds another amount",
			spoil: func(r *recorded) { r.ledger[1].Valor = "200.01" },
			want: []string{
				`demo: scenario 2 (two 503 in a row, then success on the third attempt): the ledger holds 200.01 to "+5511987654321", want 200.00 to "+5511987654321"`,
			},
		},
		{
			name:  "the ledger holds another Pix key",
			spoil: func(r *recorded) { r.ledger[1].Chave = "+5511000000000" },
			want: []string{
				`demo: scenario 2 (two 503 in a row, then success on the third attempt): the ledger holds 200.00 to "+5511000000000", want 200.00 to "+5511987654321"`,
			},
		},
		{
			name:  "the ledger holds another settlement time",
			spoil: func(r *recorded) { r.ledger[0].Horario = "2025-12-02T12:00:01Z" },
			want: []string{
				`demo: scenario 1 (the PSP answers on the first attempt): the ledger's horario "2025-12-02T12:00:01Z", the receipt's 2025-12-02T12:00:00.123456789Z`,
			},
		},
		{
			name:  "the ledger's settlement time is not RFC 3339",
			spoil: func(r *recorded) { r.ledger[0].Horario = "noon" },
			want: []string{
				`demo: scenario 1 (the PSP answers on the first attempt): the ledger's horario "noon", the receipt's 2025-12-02T12:00:00.123456789Z`,
			},
		},
		{
			name:  "a settlement that did not debit the balance",
			spoil: func(r *recorded) { r.results[0].BalanceAfter = r.results[0].BalanceBefore },
			want: []string{
				"demo: scenario 1 (the PSP answers on the first attempt): the balance went from 1000.00 to 1000.00, want a debit of 150.00",
			},
		},
		{
			name:  "a refusal that debited the balance",
			spoil: func(r *recorded) { r.results[3].BalanceAfter-- },
			want: []string{
				"demo: scenario 4 (an amount above the balance is refused and not retried): the balance went from 550.00 to 549.99, want a debit of 0.00",
			},
		},
		{
			name:  "a final balance off the ledger",
			spoil: func(r *recorded) { r.final -= 100 },
			want:  []string{"demo: ledger: balance 549.00, want 1000.00 - 450.00 = 550.00"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := goodRun()
			tt.spoil(&r)
			err := check(r.results, r.ledger, r.start, r.final)
			if diff := cmp.Diff(tt.want, breaches(err)); diff != "" {
				t.Errorf("check() breaches mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// breaches returns the messages of the *expectationErrors that check joined, in order.
func breaches(err error) []string {
	var got []string
	for _, e := range joined(err) {
		var x *expectationError
		if !errors.As(e, &x) {
			return append(got, "not an *expectationError: "+e.Error())
		}
		got = append(got, x.Error())
	}
	return got
}

// joined returns the errors that errors.Join put together, or err alone.
func joined(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

func TestExpectationErrorNamesWhatBroke(t *testing.T) {
	tests := []struct {
		err  *expectationError
		want string
	}{
		{&expectationError{Scenario: 2, Title: "two 503", What: "attempts: 1"}, "demo: scenario 2 (two 503): attempts: 1"},
		{&expectationError{What: "balance 1.00"}, "demo: ledger: balance 1.00"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}
