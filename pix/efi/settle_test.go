package efi_test

import (
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/pix"
	"pixretry/psp"
)

// pending returns the *pix.OutcomeUnknownError of a payment Efí accepted: err matches
// ErrPending, after attempts.
func pending(t *testing.T, call string, err error, attempts int) *pix.OutcomeUnknownError {
	t.Helper()
	unknown, ok := errors.AsType[*pix.OutcomeUnknownError](err)
	if !ok || !errors.Is(err, pix.ErrPending) || unknown.Attempts != attempts {
		t.Fatalf("%s error = %v, want an *OutcomeUnknownError matching ErrPending after %d attempt(s)", call, err, attempts)
	}
	return unknown
}

// TestPaymentSettles: Efí accepts a payment (201 EM_PROCESSAMENTO) and settles it 2 s later.
// Send ends pending, and Await looks the idEnvio up until it is REALIZADO. The double's ledger
// holds the one settlement that the receipt tells of.
func TestPaymentSettles(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, nil, psp.Pending(2*time.Second, "settled"))
		c := r.client()
		start := time.Now()

		_, err := c.Send(t.Context(), payment)
		unknown := pending(t, "Send()", err, 1)
		got, err := c.Await(t.Context(), unknown.Key)

		ledger := r.settlementsUnder(unknown.Key)
		if err != nil || len(ledger) != 1 {
			t.Fatalf("Await() = %+v, %v with the ledger %+v; want the receipt of its one settlement", got, err, ledger)
		}
		// Lookups at 0, 50, 150, 350, 750, 1250, 1750 and 2250 ms: the last finds it settled.
		want := pix.Receipt{EndToEndID: ledger[0].EndToEndID, AmountCents: payment.AmountCents, PixKey: payment.PixKey,
			Status: "REALIZADO", SettledAt: start.Add(2 * time.Second).UTC(), IdempotencyKey: unknown.Key,
			Replayed: true, Attempts: 8}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Await() receipt (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(append([]string{put(unknown.Key)}, repeat(get(unknown.Key), 8)...), r.wire.requests()); diff != "" {
			t.Errorf("requests (-want +got):\n%s", diff)
		}
		if st := r.Stats(); st.BalanceCents != psp.DefaultConfig().BalanceCents-payment.AmountCents {
			t.Errorf("double's balance = %d, want %d less the payment", st.BalanceCents, psp.DefaultConfig().BalanceCents)
		}
	})
}

// TestPaymentSettledAtOnce: a payment that the double settles at once takes two requests, the
// PUT, which Efí answers EM_PROCESSAMENTO all the same, and one lookup that finds it REALIZADO.
func TestPaymentSettledAtOnce(t *testing.T) {
	r := newRig(t, nil)
	c := r.client()

	_, err := c.Send(t.Context(), payment)
	unknown := pending(t, "Send()", err, 1)
	got, err := c.Await(t.Context(), unknown.Key)

	if err != nil || got.Attempts != 1 || got.AmountCents != payment.AmountCents || len(r.settlementsUnder(unknown.Key)) != 1 {
		t.Errorf("Await() = %+v, %v; want the receipt of the one settlement after 1 lookup", got, err)
	}
	if diff := cmp.Diff([]string{put(unknown.Key), get(unknown.Key)}, r.wire.requests()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

// TestPaymentRejected: Efí accepts a payment whose valor the double rejects, and a second
// later it is NAO_REALIZADO. Await says so with ErrRejected and the lookup's motivo, which is
// no unknown outcome: nothing was paid, and the valor is back.
func TestPaymentRejected(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, func(cfg *psp.Config) {
			cfg.CompleteAfter, cfg.RejectFromCents, cfg.RejectToCents = time.Second, 10001, 20000
		})
		c := r.client()

		_, err := c.Send(t.Context(), payment)
		unknown := pending(t, "Send()", err, 1)
		_, err = c.Await(t.Context(), unknown.Key)

		const motivo = "valor 150.00 is in the range the PSP rejects, 100.01 to 200.00"
		if !errors.Is(err, pix.ErrRejected) || errors.Is(err, pix.ErrOutcomeUnknown) || !strings.HasSuffix(err.Error(), motivo) {
			t.Errorf("Await() error = %v, want ErrRejected, no unknown outcome, ending with %q", err, motivo)
		}
		if st := r.Stats(); st.Settled != 0 || st.Rejected != 1 || st.BalanceCents != psp.DefaultConfig().BalanceCents {
			t.Errorf("double's Stats() = %+v, want no settlement, 1 rejected, the balance whole", st)
		}
	})
}

// TestLostAnswerResent: the double pays, then closes the connection before its answer. pix
// resends under the same idEnvio, and Efí replays the payment settled: one settlement, two PUTs.
func TestLostAnswerResent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, nil, psp.Drop())
		c := r.client()
		key := c.Dialect.NewKey()

		got, err := c.SendWithKey(t.Context(), key, payment)

		ledger := r.settlementsUnder(key)
		if err != nil || len(ledger) != 1 {
			t.Fatalf("SendWithKey() = %+v, %v with the ledger %+v; want the receipt of its one settlement", got, err, ledger)
		}
		want := pix.Receipt{EndToEndID: ledger[0].EndToEndID, AmountCents: payment.AmountCents, PixKey: payment.PixKey,
			Status: "REALIZADO", SettledAt: ledger[0].SettledAt, IdempotencyKey: key, Replayed: true, Attempts: 2}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("SendWithKey() receipt (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(repeat(put(key), 2), r.wire.requests()); diff != "" {
			t.Errorf("requests (-want +got):\n%s", diff)
		}
	})
}

// TestTransientFailuresRetried: a 503, 504, 500 or 429 of Efí is retried under the same
// idEnvio after the policy's wait, or the Retry-After if longer, and the payment is then
// accepted.
func TestTransientFailuresRetried(t *testing.T) {
	tests := []struct {
		name  string
		fault psp.Fault
		wait  time.Duration
	}{
		{"503 ServicoIndisponivel", psp.Status(503), 50 * time.Millisecond},
		{"504 IndisponibilidadePorTempoEsgotado", psp.Status(504), 50 * time.Millisecond},
		{"500 erro_aplicacao", psp.Status(500), 50 * time.Millisecond},
		{"429 BaldeFichasVazio with Retry-After", psp.Fault{Kind: "status", Status: 429, RetryAfter: time.Second},
			time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, nil, tt.fault)
				c := r.client()
				start := time.Now()

				_, err := c.Send(t.Context(), payment)

				unknown := pending(t, "Send()", err, 2)
				if got := time.Since(start); got != tt.wait {
					t.Errorf("Send() took %v, want %v: one wait", got, tt.wait)
				}
				if diff := cmp.Diff(repeat(put(unknown.Key), 2), r.wire.requests()); diff != "" {
					t.Errorf("requests (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestInFlightRetried: a gateway delivers the PUT twice. While the first copy holds the idEnvio
// in flight, Efí answers the second 500 erro_aplicacao, which pix retries, and once the first
// copy has paid, the next PUT gets the settled payment replayed.
func TestInFlightRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, nil, psp.Duplicate(100*time.Millisecond))
		c := r.client()
		key := c.Dialect.NewKey()

		got, err := c.SendWithKey(t.Context(), key, payment)

		// Attempts at 0 (500), 50 ms (500) and 150 ms, after the first copy paid at 100 ms.
		if err != nil || !got.Replayed || got.Attempts != 3 || len(r.settlementsUnder(key)) != 1 {
			t.Errorf("SendWithKey() = %+v, %v; want the replayed receipt of the one settlement after 3 attempts", got, err)
		}
		if diff := cmp.Diff(repeat(put(key), 3), r.wire.requests()); diff != "" {
			t.Errorf("requests (-want +got):\n%s", diff)
		}
	})
}
