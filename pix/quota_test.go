package pix_test

import (
	"context"
	"errors"
	"net/http"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

// TestQuotaIsSharedByTheClientsPayments: with the PSP answering 503 to everything, a quota of
// one token and no refill grants one retry to all the payments together. Each payment that
// reached the PSP ends with ErrOutcomeUnknown, since a 503 may hide a settlement, and with
// ErrQuotaExhausted and the 503 reachable.
func TestQuotaIsSharedByTheClientsPayments(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, psp.Config{})
		f.psp.Inject(repeat(psp.Status(503), 10)...)
		q, err := retry.NewQuota(0, 1)
		if err != nil {
			t.Fatal(err)
		}
		c := f.client(func(c *pix.Client) { c.Quota = q })
		for i, wantAttempts := range []int{2, 1, 1} {
			before := len(f.rec.requests())
			_, err := c.Send(t.Context(), payment)
			key := f.rec.keys()[before]
			assertOutcome(t, err, key, true, wantAttempts)
			var perr *pix.Error
			if !errors.Is(err, retry.ErrQuotaExhausted) || !errors.As(err, &perr) || perr.Status != 503 {
				t.Errorf("payment %d: Send() error = %v, want ErrQuotaExhausted and the 503 reachable", i, err)
			}
			if got := len(f.rec.requests()) - before; got != wantAttempts {
				t.Errorf("payment %d: the PSP received %d requests, want %d", i, got, wantAttempts)
			}
		}
		time.Sleep(time.Hour)
		if got := len(f.psp.Settlements()); got != 0 {
			t.Errorf("PSP holds %d settlements, want 0", got)
		}
	})
}

// TestQuotaRefusalAfterAnAnswerThatMaySettle: the quota ends the payment after attempts that
// may have settled it, and the error says the outcome is unknown. Here the first attempt did
// settle: its answer came too late.
func TestQuotaRefusalAfterAnAnswerThatMaySettle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, psp.Config{})
		f.psp.Inject(psp.Late(time.Hour))
		_, err := f.client(func(c *pix.Client) { c.Quota = &retry.Quota{} }).Send(t.Context(), payment)
		time.Sleep(time.Hour)

		key := f.rec.keys()[0]
		assertOutcome(t, err, key, true, 1)
		if !errors.Is(err, retry.ErrQuotaExhausted) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Send() error = %v, want ErrQuotaExhausted and the attempt's timeout reachable", err)
		}
		if got := len(f.settlementsFor(key)); got != 1 {
			t.Errorf("PSP holds %d settlements for the key, want 1", got)
		}
	})
}

// TestQuotaRefusalAfterARefusedConnection: a connection that could not be made carried no
// request, so a payment the quota then ends is not an unknown outcome.
func TestQuotaRefusalAfterARefusedConnection(t *testing.T) {
	c := &pix.Client{BaseURL: refusingURL(t), Token: token, HTTPClient: &http.Client{Transport: &http.Transport{}},
		Policy: retry.Policy{AttemptsMax: 2}, Quota: &retry.Quota{}}

	_, err := c.Send(t.Context(), payment)

	if !errors.Is(err, retry.ErrQuotaExhausted) || !errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, pix.ErrOutcomeUnknown) {
		t.Fatalf("Send() error = %v, want the quota's refusal after a refused connection, not an unknown outcome", err)
	}
}
