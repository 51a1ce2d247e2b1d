package durable

import (
	"context"
	"fmt"
	"testing"
)

// checkLedger holds the intents to the PSP's ledger: each settled intent has exactly one
// settlement, under any of its keys, whose receipt it recorded; no other intent has any; and
// every settlement belongs to an intent, by one of its keys. The intents' amounts must be
// distinct, so that a settlement under a key that no intent holds names the intent it paid.
func checkLedger(tb testing.TB, l ledger, all []Intent) {
	tb.Helper()
	owner, byAmount := map[string]string{}, map[int64]string{}
	for _, in := range all {
		if other, ok := byAmount[in.Payment.AmountCents]; ok {
			tb.Fatalf("intents %q and %q have the same amount, %d: the ledger check needs them distinct",
				other, in.ID, in.Payment.AmountCents)
		}
		byAmount[in.Payment.AmountCents] = in.ID
		for _, key := range in.Keys {
			owner[key] = in.ID
		}
	}
	paid := map[string][]settlement{}
	for _, s := range l.settlements() {
		id, ok := owner[s.Key]
		if !ok {
			tb.Errorf("settlement %+v is under a key no intent holds (intent %q has its amount)", s, byAmount[s.AmountCents])
			continue
		}
		paid[id] = append(paid[id], s)
	}
	for _, in := range all {
		got := paid[in.ID]
		switch {
		case in.Status == StatusSettled && len(got) != 1:
			tb.Errorf("settled intent %q has %d settlements under its keys %v, want 1: %+v", in.ID, len(got), in.Keys, got)
		case in.Status == StatusSettled && (got[0].EndToEndID != in.EndToEndID || !got[0].SettledAt.Equal(in.SettledAt) ||
			got[0].AmountCents != in.Payment.AmountCents):
			tb.Errorf("intent %q recorded %s at %v, the ledger has %+v", in.ID, in.EndToEndID, in.SettledAt, got[0])
		case in.Status != StatusSettled && len(got) != 0:
			tb.Errorf("%s intent %q has %d settlements, want 0: %+v", in.Status, in.ID, len(got), got)
		}
	}
}

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
	r, err := l.client().Send(context.Background(), payment(100))
	if err != nil {
		t.Fatal(err)
	}
	return Intent{ID: id, Key: r.IdempotencyKey, Keys: []string{r.IdempotencyKey}, Payment: payment(100), Status: StatusSettled,
		Attempts: 1, EndToEndID: r.EndToEndID, SettledAt: r.SettledAt}
}

// paidTwice is a violation: the intent's payment was sent again under a new key, as a Payer
// that made its key after a restart would.
func paidTwice(t *testing.T, l ledger) []Intent {
	in := settledIntent(t, l, "a")
	settledIntent(t, l, "a-again")
	return []Intent{in}
}

// paidUnderTwoKeys is a violation: the intent was paid under its first key, and again under
// a second, as a Payer that rotated a key without a lookup's proof would.
func paidUnderTwoKeys(t *testing.T, l ledger) []Intent {
	first := settledIntent(t, l, "a")
	in := settledIntent(t, l, "a")
	in.Keys = []string{first.Key, in.Key}
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
	t.Parallel()
	for name, plant := range map[string]func(*testing.T, ledger) []Intent{
		"paid twice": paidTwice, "wrong receipt": wrongReceipt, "refused but paid": refusedButPaid,
		"lost intent": lostIntent, "paid under two keys": paidUnderTwoKeys,
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
	t.Run("correct, paid under its second key", func(t *testing.T) {
		l := mustPSP(t)
		r := &recorder{TB: t}
		in := settledIntent(t, l, "a")
		in.Keys = []string{"a-key-the-PSP-never-paid", in.Key}
		checkLedger(r, l, []Intent{in})
		if len(r.errs) != 0 {
			t.Errorf("checkLedger() = %v on a correct run, want nothing", r.errs)
		}
	})
}
