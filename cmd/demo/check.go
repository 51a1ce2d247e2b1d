package main

import (
	"errors"
	"fmt"
	"net/http"

	"pixretry/pix"
	"pixretry/psp"
)

// check holds the results against their expectations in dialect d and against the PSP's
// ledger and balance (start after the reset, final at the end). It returns nil when every
// expectation holds, else every breach, joined, each naming its scenario or the ledger.
func check(d *dialect, results []result, ledger []psp.Settlement, start, final int64) error {
	byKey := map[string][]psp.Settlement{}
	for _, s := range ledger {
		byKey[s.IdempotencyKey] = append(byKey[s.IdempotencyKey], s)
	}
	var errs []error
	paid, settled := int64(0), 0
	for i, r := range results {
		for _, what := range r.breaches(byKey[r.key()], d) {
			errs = append(errs, fmt.Errorf("demo: scenario %d (%s): %s", i+1, r.Scenario.Title, what))
		}
		if r.settled() {
			paid, settled = paid+r.Payment.AmountCents, settled+1
		}
	}
	if len(ledger) != settled {
		errs = append(errs, fmt.Errorf("demo: ledger: %d settlements recorded for %d successful payments", len(ledger), settled))
	}
	if want := start - paid; final != want {
		errs = append(errs, fmt.Errorf("demo: ledger: balance %s, want %s - %s = %s", psp.FormatAmount(final),
			psp.FormatAmount(start), psp.FormatAmount(paid), psp.FormatAmount(want)))
	}
	return errors.Join(errs...)
}

// breaches says how r breaks its expectation in dialect d, given the ledger's settlements under
// its key.
func (r result) breaches(entries []psp.Settlement, d *dialect) []string {
	var b breachList
	want, n, key := r.Want, len(r.Sent), r.key()
	b.expect(n >= want.AttemptsMin && n <= want.AttemptsMax, "attempts: %d, want %s", n, attemptRange(want))
	for i, trip := range r.Sent {
		b.expect(trip.Key != "" && trip.Key == key, "attempt %d carried key %q, attempt 1 %q", i+1, trip.Key, key)
	}
	sent := received{int64(n), int64(len(r.Looked))}
	b.expect(r.Received == sent || !d.CoreCountsAll && r.Received.Payments <= sent.Payments && r.Received.Lookups <= sent.Lookups,
		"the PSP received %d payment requests and %d lookups, the client sent %d and %d",
		r.Received.Payments, r.Received.Lookups, n, len(r.Looked))
	b.breachesOfTheWait(r)
	b.expect(n == 0 || r.endsAsLastRequest(), "the outcome (%s) is not the last request's", outcomeOf(r))
	moved := r.BalanceBefore - r.BalanceAfter
	if want.Err != nil {
		b.expect(errors.Is(r.Err, want.Err), "got %s, want an error matching %q", outcomeOf(r), want.Err)
		b.expect(len(entries) == 0, "the ledger holds %d settlements under key %q, want none", len(entries), key)
		b.expect(moved == 0, "the balance went from %s to %s, want no debit", psp.FormatAmount(r.BalanceBefore), psp.FormatAmount(r.BalanceAfter))
		return b
	}
	if r.Err != nil {
		return append(b, fmt.Sprintf("failed (%v), want a settlement", r.Err))
	}
	rc, p := r.Receipt, r.Payment
	b.expect(rc.Replayed == want.Replayed, "receipt Replayed = %t, want %t", rc.Replayed, want.Replayed)
	if r.awaited() {
		b.expect(rc.Attempts == len(r.Looked), "receipt counts %d lookups, the client sent %d", rc.Attempts, len(r.Looked))
	} else {
		b.expect(rc.Attempts == n, "receipt counts %d attempts, the client sent %d requests", rc.Attempts, n)
	}
	b.expect(rc.IdempotencyKey == key, "receipt key %q, the requests carried %q", rc.IdempotencyKey, key)
	b.expect(rc.AmountCents == p.AmountCents && rc.PixKey == p.PixKey, "receipt for %s to %q, want %s to %q",
		psp.FormatAmount(rc.AmountCents), rc.PixKey, psp.FormatAmount(p.AmountCents), p.PixKey)
	b.expect(moved == p.AmountCents, "the balance went from %s to %s, want a debit of %s",
		psp.FormatAmount(r.BalanceBefore), psp.FormatAmount(r.BalanceAfter), psp.FormatAmount(p.AmountCents))
	if len(entries) != 1 {
		return append(b, fmt.Sprintf("the ledger holds %d settlements under key %q, want 1", len(entries), key))
	}
	e := entries[0]
	b.expect(e.EndToEndID == rc.EndToEndID, "the ledger's endToEndId %q, the receipt's %q", e.EndToEndID, rc.EndToEndID)
	b.expect(e.AmountCents == p.AmountCents && e.PixKey == p.PixKey, "the ledger holds %s to %q, want %s to %q",
		psp.FormatAmount(e.AmountCents), e.PixKey, psp.FormatAmount(p.AmountCents), p.PixKey)
	b.expect(e.SettledAt.Truncate(d.Precision).Equal(rc.SettledAt), "the ledger's settlement time %v, the receipt's %v",
		e.SettledAt, rc.SettledAt)
	return b
}

// breachesOfTheWait adds how r's wait for a pending payment breaks its expectation: Send must
// end pending exactly when the expectation says, after the attempts the client sent, and the
// wait must take the lookups it says.
func (b *breachList) breachesOfTheWait(r result) {
	want := r.Want
	b.expect(r.awaited() == want.Pending, "Send ended pending: %t, want %t", r.awaited(), want.Pending)
	b.expect(!r.awaited() || r.Pending.Attempts == len(r.Sent), "Send counted %d attempts before it ended pending, "+
		"the client sent %d requests", r.pendingAttempts(), len(r.Sent))
	b.expect(len(r.Looked) == want.Lookups, "lookups: %d, want %d", len(r.Looked), want.Lookups)
}

// attemptRange writes an expectation's bounds on attempts: "exactly 3" or "2 to 4".
func attemptRange(want expectation) string {
	if want.AttemptsMin == want.AttemptsMax {
		return fmt.Sprintf("exactly %d", want.AttemptsMin)
	}
	return fmt.Sprintf("%d to %d", want.AttemptsMin, want.AttemptsMax)
}

// breachList gathers what differed from an expectation.
type breachList []string

// expect adds the breach that format and args describe unless ok.
func (b *breachList) expect(ok bool, format string, args ...any) {
	if !ok {
		*b = append(*b, fmt.Sprintf(format, args...))
	}
}

// endsAsLastRequest reports whether r's outcome is its last request's: its last lookup's if it
// was awaited, else its last attempt's. A settlement was answered 201 by an attempt, 200 by a
// lookup. A failure wraps the last request's transport error, or carries the status it was
// answered.
func (r result) endsAsLastRequest() bool {
	trips, settledStatus := r.Sent, http.StatusCreated
	if r.awaited() {
		trips, settledStatus = r.Looked, http.StatusOK
	}
	if len(trips) == 0 {
		return false
	}
	last := trips[len(trips)-1]
	pe, isPSP := errors.AsType[*pix.Error](r.Err)
	switch {
	case r.settled():
		return last.Status == settledStatus
	case last.Err != nil:
		return errors.Is(r.Err, last.Err)
	}
	return isPSP && pe.StatusCode() == last.Status
}

// awaited reports whether Send ended r's payment pending, so that the demo awaited it.
func (r result) awaited() bool { return r.Pending != nil }

// pendingAttempts is the number of attempts Send counted before it ended pending, or 0.
func (r result) pendingAttempts() int {
	if r.Pending == nil {
		return 0
	}
	return r.Pending.Attempts
}

// key is the idempotency key of r's first request, or "" if none went out.
func (r result) key() string {
	if len(r.Sent) == 0 {
		return ""
	}
	return r.Sent[0].Key
}

// settled reports whether r's payment succeeded.
func (r result) settled() bool { return r.Err == nil }
