package durable

import (
	"context"
	"fmt"
	"testing"
)

// recorder is a testing.TB that keeps the errors reported to it, to show that a check fails.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// settledIntent pays p through the PSP under a fresh key and returns the intent a correct
// Payer records for it.
func settledIntent(t *testing.T, l ledger, id string) Intent {
	t.Helper()
	r, err := testClient(l.url).Send(context.Background(), payment(100))
	if err != nil {
		t.Fatal(err)
	}
	return Intent{ID: id, Key: r.IdempotencyKey, Payment: payment(100), Status: StatusSettled,
		Attempts: 1, EndToEndID: r.EndToEndID, SettledAt: r.SettledAt}
}

// paidTwice is a violation: the intent's payment was sent again under a new key, as a Payer
// that made its key after a restart would.
func paidTwice(t *testing.T, l ledger) []Intent {
	in := settledIntent(t, l, "a")
	settledIntent(t, l, "a-again")
	return []Intent{in}
}

// wrongReceipt is a violation: the intent recorded a receipt the ledger does not hold.
func wrongReceipt(t *testing.T, l ledger) []Intent {
	in := settledIntent(t, l, "a")
	in.EndToEndID = "E12345678202601010000aaaaaaaaaaa"
	return []Intent{in}
}

// refusedButPaid is a violation: the intent says refused, and the ledger holds its payment.
func refusedButPaid(t *testing.T, l ledger) []Intent {
	in := settledIntent(t, l, "a")
	in.Status = StatusRefused
	return []Intent{in}
}

// lostIntent is a violation: the PSP settled a payment whose intent is gone.
func lostIntent(t *testing.T, l ledger) []Intent {
	settledIntent(t, l, "a")
	return nil
}

func TestCheckLedgerFindsPlantedViolations(t *testing.T) {
	for name, plant := range map[string]func(*testing.T, ledger) []Intent{
		"paid twice": paidTwice, "wrong receipt": wrongReceipt, "refused but paid": refusedButPaid,
		"lost intent": lostIntent,
	} {
		t.Run(name, func(t *testing.T) {
			l := mustPSP(t)
			r := &recorder{TB: t}
			checkLedger(r, l, plant(t, l))
			if len(r.errs) == 0 {
				t.Errorf("checkLedger() found nothing wrong")
			}
		})
	}
	t.Run("correct", func(t *testing.T) {
		l := mustPSP(t)
		r := &recorder{TB: t}
		checkLedger(r, l, []Intent{settledIntent(t, l, "a")})
		if len(r.errs) != 0 {
			t.Errorf("checkLedger() = %v on a correct run, want nothing", r.errs)
		}
	})
}
