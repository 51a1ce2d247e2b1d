package pix_test

// The three scenarios at the heart of idempotency: a response lost after settlement does not
// pay twice, a key reused with another payment is refused, and a business refusal is repeated
// on replay.

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/pix"
	"pixretry/psp"
)

func TestLostResponseAfterSettlementPaysOnce(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault psp.Fault
		// wantAt are the instants of the two attempts: the second follows the first's end by
		// half the first ceiling (50 ms).
		wantAt []time.Duration
	}{
		{"answer later than the attempt timeout", psp.Late(5 * time.Second), []time.Duration{0, 1050 * time.Millisecond}},
		{"connection dropped instead of the answer", psp.Drop(), []time.Duration{0, 50 * time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t, psp.Config{})
				f.psp.Inject(tc.fault)
				start := time.Now()

				got, err := f.client().Send(t.Context(), payment)
				if err != nil {
					t.Fatalf("Send() error = %v, want a replayed receipt", err)
				}
				ledger := f.psp.Settlements()
				if len(ledger) != 1 {
					t.Fatalf("PSP holds %d settlements, want 1: %+v", len(ledger), ledger)
				}
				s := ledger[0]
				want := pix.Receipt{
					EndToEndID: s.EndToEndID, AmountCents: payment.AmountCents, PixKey: payment.PixKey,
					Status: "REALIZADO", SettledAt: s.SettledAt, IdempotencyKey: s.IdempotencyKey,
					Replayed: true, Attempts: 2,
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("Send() receipt mismatch (-want +got):\n%s", diff)
				}
				if got, want := f.psp.Stats().BalanceCents, startBalance-payment.AmountCents; got != want {
					t.Errorf("balance = %d, want %d (debited once)", got, want)
				}
				if diff := cmp.Diff(tc.wantAt, offsets(f.rec.requests(), start)); diff != "" {
					t.Errorf("attempt instants mismatch (-want +got):\n%s", diff)
				}
			})
		})
	}
}

func TestKeyReusedWithAnotherPaymentIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		other func(pix.Payment) pix.Payment
	}{
		{"another amount", func(p pix.Payment) pix.Payment { p.AmountCents++; return p }},
		{"another Pix key", func(p pix.Payment) pix.Payment { p.PixKey = "12345678901"; return p }},
		{"another description", func(p pix.Payment) pix.Payment { p.Description = "outro"; return p }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, psp.Config{})
			c := f.client()
			first, err := c.SendWithKey(t.Context(), "order-42", payment)
			if err != nil {
				t.Fatalf("first SendWithKey() error = %v", err)
			}

			_, err = c.SendWithKey(t.Context(), "order-42", tc.other(payment))
			if !errors.Is(err, pix.ErrKeyReused) || errors.Is(err, pix.ErrOutcomeUnknown) {
				t.Fatalf("second SendWithKey() error = %v, want ErrKeyReused and not ErrOutcomeUnknown", err)
			}
			var perr *pix.Error
			if !errors.As(err, &perr) || perr.Status != 422 || perr.Code != "idempotency_key_reused" {
				t.Errorf("second SendWithKey() error = %#v, want a *pix.Error 422 idempotency_key_reused", perr)
			}
			ledger := f.psp.Settlements()
			if len(ledger) != 1 || ledger[0].EndToEndID != first.EndToEndID {
				t.Errorf("ledger = %+v, want only the first payment %s", ledger, first.EndToEndID)
			}
			if got, want := len(f.rec.requests()), 2; got != want {
				t.Errorf("PSP got %d requests, want %d (the refusal is not retried)", got, want)
			}
		})
	}
}

func TestBusinessRefusalIsRepeatedOnReplay(t *testing.T) {
	f := newFixture(t, psp.Config{BalanceCents: 10000})
	c := f.client()
	tooMuch := pix.Payment{AmountCents: 10001, PixKey: "+5511987654321"}

	for i := range 2 {
		_, err := c.SendWithKey(t.Context(), "order-7", tooMuch)
		if !errors.Is(err, pix.ErrInsufficientFunds) || errors.Is(err, pix.ErrOutcomeUnknown) {
			t.Fatalf("SendWithKey() #%d error = %v, want ErrInsufficientFunds and not ErrOutcomeUnknown", i+1, err)
		}
	}
	want := []seen{{Key: "order-7"}, {Key: "order-7", Replayed: true}}
	if diff := cmp.Diff(want, f.rec.requests(), cmpIgnoreAt); diff != "" {
		t.Errorf("PSP requests mismatch (-want +got):\n%s", diff)
	}
	if got := f.psp.Settlements(); len(got) != 0 {
		t.Errorf("ledger = %+v, want empty", got)
	}
	if got, want := f.psp.Stats().BalanceCents, int64(10000); got != want {
		t.Errorf("balance = %d, want %d", got, want)
	}
}
