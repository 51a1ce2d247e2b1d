package durable

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

// TestJudge sorts the errors a real pix.Client returns from a real psp.Server. Each case makes
// the PSP answer as named, and checks that the error is the one pix documents for that answer
// before judging it.
func TestJudge(t *testing.T) {
	t.Parallel()
	l := mustPSP(t)
	ctx := context.Background()
	c := l.client()
	send := func(cents int64) error {
		_, err := c.Send(ctx, payment(cents))
		return err
	}
	tests := []struct {
		name   string
		answer func(t *testing.T) error
		is     error // what pix's error for the answer matches
		want   verdict
	}{
		{"a receipt", func(*testing.T) error { return send(100) }, nil, settle},
		{"a 503 after the commit, on every attempt", func(t *testing.T) error {
			l.inject(faultCommit503, faultCommit503)
			err := send(101)
			if pe, ok := errors.AsType[*pix.Error](err); !ok || pe.Status != 503 {
				t.Errorf("pix's error %v wraps no *pix.Error of status 503", err)
			}
			return err
		}, pix.ErrOutcomeUnknown, snooze},
		{"an empty retry quota after a 503", func(*testing.T) error {
			l.inject(faultCommit503)
			q := *c
			q.Quota = &retry.Quota{} // allows no retry
			_, err := q.Send(ctx, payment(102))
			return err
		}, retry.ErrQuotaExhausted, snooze},
		{"a retry that would end past the key deadline", func(t *testing.T) error {
			l.inject(faultCommit503)
			e := *c
			e.KeyTTL, e.AttemptTimeout, e.Jitter = 100*time.Millisecond, 50*time.Millisecond, func() float64 { return 1 }
			e.Policy = retry.Policy{AttemptsMax: 2, DelayBase: 60 * time.Millisecond, DelayMax: 60 * time.Millisecond}
			_, err := e.Send(ctx, payment(103))
			if !errors.Is(err, pix.ErrOutcomeUnknown) {
				t.Errorf("pix's error %v is no unknown outcome", err)
			}
			return err
		}, pix.ErrKeyExpired, snooze},
		{"a lookup answered 503", func(*testing.T) error {
			l.srv.Inject(psp.Status(503).ForLookup(), psp.Status(503).ForLookup())
			_, err := c.Lookup(ctx, uuid.NewString())
			return err
		}, pix.ErrOutcomeUnknown, snooze},
		{"a lookup answered 404", func(*testing.T) error {
			_, err := c.Lookup(ctx, uuid.NewString())
			return err
		}, pix.ErrNoSettlement, rotate},
		{"a lookup that found another payment", func(*testing.T) error {
			r, err := c.Send(ctx, payment(104))
			if err != nil {
				return err
			}
			unknown := &pix.OutcomeUnknownError{Key: r.IdempotencyKey, FirstSent: time.Now().Add(-48 * time.Hour)}
			_, err = c.Resume(ctx, unknown, payment(105))
			return err
		}, pix.ErrKeyReused, snooze}, // the PSP shows a key's latest settlement only: an earlier one may be p's
		{"a key reused with another payment", func(*testing.T) error {
			r, err := c.Send(ctx, payment(106))
			if err != nil {
				return err
			}
			_, err = c.SendWithKey(ctx, r.IdempotencyKey, payment(107))
			return err
		}, pix.ErrKeyReused, refuse},
		{"insufficient funds", func(*testing.T) error { return send(refusedCents) }, pix.ErrInsufficientFunds, refuse},
		{"an invalid payment", func(*testing.T) error { return send(0) }, pix.ErrInvalidPayment, refuse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.answer(t)
			if (err == nil) != (tt.is == nil) || tt.is != nil && !errors.Is(err, tt.is) {
				t.Fatalf("pix's error = %v, want one matching %v", err, tt.is)
			}
			if got := judge(err); got != tt.want {
				t.Errorf("judge(%v) = %d, want %d", err, got, tt.want)
			}
		})
	}
}
