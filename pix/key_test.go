package pix_test

import (
	"testing"
	"testing/synctest"

	"github.com/google/uuid"

	"pixretry/psp"
)

func TestSameKeyOnEveryAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, psp.Config{})
		// Three failures of three kinds, the last one after settling: the fourth attempt
		// gets the stored answer.
		f.psp.Inject(psp.Status(503), psp.ResetConn(), psp.Drop())
		c := f.client()

		r, err := c.Send(t.Context(), payment)
		if err != nil {
			t.Fatalf("Send() error = %v", err)
		}
		if r.Attempts != 4 || !r.Replayed {
			t.Errorf("Send() = %d attempts, replayed %t; want 4 attempts, replayed", r.Attempts, r.Replayed)
		}
		keys := f.rec.keys()
		if len(keys) != 4 {
			t.Fatalf("PSP got keys %q, want 4 requests", keys)
		}
		for i, k := range keys {
			if k != r.IdempotencyKey {
				t.Errorf("attempt %d key = %q, want %q (the receipt's)", i+1, k, r.IdempotencyKey)
			}
		}
		if u, err := uuid.Parse(r.IdempotencyKey); err != nil || u.Version() != 4 || u.String() != r.IdempotencyKey {
			t.Errorf("key %q is not a canonical UUID v4 (parse error %v)", r.IdempotencyKey, err)
		}

		next, err := c.Send(t.Context(), payment)
		if err != nil {
			t.Fatalf("second Send() error = %v", err)
		}
		if next.IdempotencyKey == r.IdempotencyKey {
			t.Errorf("second Send() reused key %q, want a new key per payment", next.IdempotencyKey)
		}
		if got := len(f.psp.Settlements()); got != 2 {
			t.Errorf("PSP holds %d settlements, want 2 (two payments)", got)
		}
	})
}

func TestSendWithKeySendsTheCallersKey(t *testing.T) {
	f := newFixture(t, psp.Config{})
	r, err := f.client().SendWithKey(t.Context(), "invoice-2025-0001", payment)
	if err != nil {
		t.Fatalf("SendWithKey() error = %v", err)
	}
	if r.IdempotencyKey != "invoice-2025-0001" || r.Replayed || r.Attempts != 1 {
		t.Errorf("SendWithKey() = %+v, want key invoice-2025-0001, fresh, 1 attempt", r)
	}
	if got := f.settlementsFor("invoice-2025-0001"); len(got) != 1 || got[0].EndToEndID != r.EndToEndID {
		t.Errorf("settlements for the key = %+v, want the receipt's %s", got, r.EndToEndID)
	}
}
