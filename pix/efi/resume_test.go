package efi_test

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/pix"
	"pixretry/psp"
)

// lost pays under a new key while the double drops every answer: the first PUT pays, and the
// outcome stays unknown after the policy's four attempts.
func lost(t *testing.T, r *rig, c *pix.Client, faults ...psp.Fault) *pix.OutcomeUnknownError {
	t.Helper()
	r.Inject(faults...)
	_, err := c.Send(t.Context(), payment)
	unknown, ok := errors.AsType[*pix.OutcomeUnknownError](err)
	if !ok || unknown.Attempts != policy.AttemptsMax {
		t.Fatalf("Send() error = %v, want an *OutcomeUnknownError after %d attempts", err, policy.AttemptsMax)
	}
	return unknown
}

// fourDrops are the faults that drop the answers of four payment attempts.
var fourDrops = []psp.Fault{psp.Drop(), psp.Drop(), psp.Drop(), psp.Drop()}

// TestResumeBeforeKeyDeadlineResends: 21 h after the first attempt, before the key deadline
// (21.6 h), Resume resends under the idEnvio, and Efí replays the settlement.
func TestResumeBeforeKeyDeadlineResends(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, nil)
		c := r.client()
		unknown := lost(t, r, c, fourDrops...)
		time.Sleep(21 * time.Hour)

		got, err := c.Resume(t.Context(), unknown, payment)

		if err != nil || !got.Replayed || got.Attempts != 1 || len(r.settlementsUnder(unknown.Key)) != 1 {
			t.Errorf("Resume() = %+v, %v; want the replayed receipt of the one settlement after 1 attempt", got, err)
		}
		if diff := cmp.Diff(repeat(put(unknown.Key), 5), r.wire.requests()); diff != "" {
			t.Errorf("requests (-want +got):\n%s", diff)
		}
	})
}

// TestResumeAfterKeyDeadlineLooksUp: 22 h after the first attempt, past the key deadline,
// Resume sends no PUT, which Efí might take as new, and looks the idEnvio up instead.
func TestResumeAfterKeyDeadlineLooksUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, nil)
		c := r.client()
		unknown := lost(t, r, c, fourDrops...)
		time.Sleep(22 * time.Hour)

		got, err := c.Resume(t.Context(), unknown, payment)

		ledger := r.settlementsUnder(unknown.Key)
		if err != nil || len(ledger) != 1 {
			t.Fatalf("Resume() = %+v, %v with the ledger %+v; want the receipt of its one settlement", got, err, ledger)
		}
		want := pix.Receipt{EndToEndID: ledger[0].EndToEndID, AmountCents: payment.AmountCents, PixKey: payment.PixKey,
			Status: "REALIZADO", SettledAt: ledger[0].SettledAt, IdempotencyKey: unknown.Key, Replayed: true, Attempts: 1}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Resume() receipt (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(append(repeat(put(unknown.Key), 4), get(unknown.Key)), r.wire.requests()); diff != "" {
			t.Errorf("requests (-want +got):\n%s", diff)
		}
	})
}

// TestResumeFindsNothingPaid: no attempt reached the double (four 503s). Past the key deadline
// the lookup's 404 proves that nothing was paid, and the double closes the idEnvio: a PUT under
// it then pays nothing (422 pagamento_negado), and the payment goes under a new idEnvio.
func TestResumeFindsNothingPaid(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, nil)
		c := r.client()
		unknown := lost(t, r, c, psp.Status(503), psp.Status(503), psp.Status(503), psp.Status(503))
		time.Sleep(22 * time.Hour)

		_, err := c.Resume(t.Context(), unknown, payment)
		if !errors.Is(err, pix.ErrNoSettlement) || errors.Is(err, pix.ErrOutcomeUnknown) {
			t.Fatalf("Resume() error = %v, want ErrNoSettlement, no unknown outcome", err)
		}
		_, err = c.SendWithKey(t.Context(), unknown.Key, payment)
		if !errors.Is(err, pix.ErrRejected) || errors.Is(err, pix.ErrOutcomeUnknown) {
			t.Errorf("SendWithKey() under the closed idEnvio error = %v, want ErrRejected, no unknown outcome", err)
		}
		_, err = c.Send(t.Context(), payment)
		fresh := pending(t, "Send() under a new idEnvio", err, 1)

		if got := r.Settlements(); len(got) != 1 || got[0].IdempotencyKey != fresh.Key {
			t.Errorf("double's ledger = %+v, want one settlement, under the new idEnvio", got)
		}
		want := append(repeat(put(unknown.Key), 4), get(unknown.Key), put(unknown.Key), put(fresh.Key))
		if diff := cmp.Diff(want, r.wire.requests()); diff != "" {
			t.Errorf("requests (-want +got):\n%s", diff)
		}
	})
}

// TestResumeFindsAnotherPayee: past the key deadline the lookup finds a payment to another
// chave. It is not this payment's receipt: ErrKeyReused, and the outcome stays unknown.
func TestResumeFindsAnotherPayee(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, nil)
		c := r.client()
		unknown := lost(t, r, c, fourDrops...)
		r.Inject(psp.BadBody("chave").ForLookup())
		time.Sleep(22 * time.Hour)

		_, err := c.Resume(t.Context(), unknown, payment)

		if !errors.Is(err, pix.ErrKeyReused) || !errors.Is(err, pix.ErrOutcomeUnknown) {
			t.Errorf("Resume() error = %v, want ErrKeyReused and an unknown outcome", err)
		}
	})
}
