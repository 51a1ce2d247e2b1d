package main

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// checkOutcome holds the payment's receipt or error against the expectation.
func checkOutcome(r result) []string {
	want := r.Scenario.Want
	if want.Err != nil {
		if !errors.Is(r.Err, want.Err) {
			return []string{fmt.Sprintf("got %s, want an error matching %q", outcomeOf(r), want.Err)}
		}
		return nil
	}
	if r.Err != nil {
		return []string{fmt.Sprintf("failed (%v), want a settlement", r.Err)}
	}
	var breaches []string
	rc := r.Receipt
	if rc.Replayed != want.Replayed {
		breaches = append(breaches, fmt.Sprintf("receipt Replayed = %t, want %t", rc.Replayed, want.Replayed))
	}
	if rc.Attempts != len(r.Sent) {
		breaches = append(breaches, fmt.Sprintf("receipt counts %d attempts, the client sent %d requests",
			rc.Attempts, len(r.Sent)))
	}
	if rc.IdempotencyKey != r.key() {
		breaches = append(breaches, fmt.Sprintf("receipt key %q, the requests carried %q", rc.IdempotencyKey, r.key()))
	}
	if rc.AmountCents != r.Payment.AmountCents || rc.PixKey != r.Payment.PixKey {
		breaches = append(breaches, fmt.Sprintf("receipt for %s to %q, want %s to %q",
			formatCents(rc.AmountCents), rc.PixKey, formatCents(r.Payment.AmountCents), r.Payment.PixKey))
	}
	return breaches
}

// checkAttempts holds the payment requests the client sent against the expectation: how many,
// one Idempotency-Key for all, and a final answer or error that is the last request's.
func checkAttempts(r result) []string {
	want := r.Scenario.Want
	n := len(r.Sent)
	if n < want.AttemptsMin || n > want.AttemptsMax {
		return []string{fmt.Sprintf("attempts: %d, want %s", n, attemptRange(want))}
	}
	var breaches []string
	for i, a := range r.Sent {
		if a.Key == "" || a.Key != r.key() {
			breaches = append(breaches, fmt.Sprintf("attempt %d carried Idempotency-Key %q, attempt 1 %q",
				i+1, a.Key, r.key()))
		}
	}
	if what := lastAttemptMismatch(r); what != "" {
		breaches = append(breaches, what)
	}
	return breaches
}

// lastAttemptMismatch says how the outcome differs from the last request's, or "" when it is
// that request's: a success was answered 201; an error wraps the request's transport error,
// or carries the status it was answered.
func lastAttemptMismatch(r result) string {
	last := r.Sent[len(r.Sent)-1]
	if r.settled() {
		if last.Status != http.StatusCreated {
			return "settled, but the last attempt " + answerOf(last)
		}
		return ""
	}
	if last.Err != nil {
		if !errors.Is(r.Err, last.Err) {
			return fmt.Sprintf("the error (%v) does not wrap the last attempt's (%v)", r.Err, last.Err)
		}
		return ""
	}
	if got := statusOf(r.Err); got != last.Status {
		return fmt.Sprintf("the error carries status %d, the last attempt was answered %d", got, last.Status)
	}
	return ""
}

// checkLedgerEntry holds the PSP's settlements under the payment's key (entries) against the
// expectation: exactly one, matching the receipt, for a payment that must settle; none for
// one that must not. The balance must have moved by the amount, or not at all.
func checkLedgerEntry(r result, entries []settlement) []string {
	var breaches []string
	moved := r.BalanceBefore - r.BalanceAfter
	wantMoved, wantEntries := int64(0), 0
	if r.Scenario.Want.Err == nil {
		wantMoved, wantEntries = r.Payment.AmountCents, 1
	}
	if len(entries) != wantEntries {
		breaches = append(breaches, fmt.Sprintf("the ledger holds %d settlements under key %q, want %d",
			len(entries), r.key(), wantEntries))
	} else if wantEntries == 1 {
		breaches = append(breaches, entryMismatch(r, entries[0])...)
	}
	if moved != wantMoved {
		breaches = append(breaches, fmt.Sprintf("the balance went from %s to %s, want a debit of %s",
			formatCents(r.BalanceBefore), formatCents(r.BalanceAfter), formatCents(wantMoved)))
	}
	return breaches
}

// entryMismatch compares the ledger's settlement with the receipt and the payment.
func entryMismatch(r result, e settlement) []string {
	var breaches []string
	if e.EndToEndID != r.Receipt.EndToEndID {
		breaches = append(breaches, fmt.Sprintf("the ledger's endToEndId %q, the receipt's %q", e.EndToEndID, r.Receipt.EndToEndID))
	}
	if want := formatCents(r.Payment.AmountCents); e.Valor != want || e.Chave != r.Payment.PixKey {
		breaches = append(breaches, fmt.Sprintf("the ledger holds %s to %q, want %s to %q", e.Valor, e.Chave, want, r.Payment.PixKey))
	}
	if at, err := time.Parse(time.RFC3339Nano, e.Horario); err != nil || !at.Equal(r.Receipt.SettledAt) {
		breaches = append(breaches, fmt.Sprintf("the ledger's horario %q, the receipt's %s", e.Horario, r.Receipt.SettledAt.Format(time.RFC3339Nano)))
	}
	return breaches
}

// attemptRange writes an expectation's attempt bounds: "exactly 3" or "2 to 4".
func attemptRange(want expectation) string {
	if want.AttemptsMin == want.AttemptsMax {
		return fmt.Sprintf("exactly %d", want.AttemptsMin)
	}
	return fmt.Sprintf("%d to %d", want.AttemptsMin, want.AttemptsMax)
}

// answerOf writes what a request got back: its status, or its transport error.
func answerOf(a wireAttempt) string {
	if a.Err != nil {
		return fmt.Sprintf("failed (%v)", a.Err)
	}
	return fmt.Sprintf("was answered %d", a.Status)
}

// statusOf is the HTTP status an error carries (see retry.Transient), or 0.
func statusOf(err error) int {
	if e, ok := errors.AsType[interface {
		error
		StatusCode() int
	}](err); ok {
		return e.StatusCode()
	}
	return 0
}
