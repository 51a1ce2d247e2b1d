package pix_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/pix"
	"pixretry/psp"
)

// assertPending checks that err is a pending payment's: an *OutcomeUnknownError for key after
// attempts, matching ErrPending, that says the endToEndId, and no *pix.Error.
func assertPending(t *testing.T, call string, err error, key string, attempts int) {
	t.Helper()
	unknown, ok := errors.AsType[*pix.OutcomeUnknownError](err)
	if !ok || !errors.Is(err, pix.ErrPending) {
		t.Fatalf("%s error = %v, want an *OutcomeUnknownError matching ErrPending", call, err)
	}
	if unknown.Key != key || unknown.Attempts != attempts {
		t.Errorf("%s error = %+v, want key %s after %d attempt(s)", call, unknown, key, attempts)
	}
	if !strings.Contains(err.Error(), "endToEndId E") || errors.As(err, new(*pix.Error)) {
		t.Errorf("%s error = %v, want one that says the endToEndId, and no *pix.Error", call, err)
	}
}

// TestPendingPaymentSettlesLater: the PSP accepts a payment and settles it 2 s later. Until
// then every answer, to the payment, its replay and a lookup, is a pending unknown outcome,
// not retried, and the ledger holds nothing. Await looks until it settles, and returns its
// receipt, which a replay then gives too.
func TestPendingPaymentSettlesLater(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, c := newFixtureWithClient(t, psp.Config{}, []psp.Fault{psp.Pending(2*time.Second, "settled")})
		start := time.Now()

		_, err := c.SendWithKey(t.Context(), "order-1", payment)
		assertPending(t, "SendWithKey()", err, "order-1", 1)
		_, err = c.SendWithKey(t.Context(), "order-1", payment)
		assertPending(t, "SendWithKey() again", err, "order-1", 1)
		_, err = c.Lookup(t.Context(), "order-1")
		assertPending(t, "Lookup()", err, "order-1", 1)
		if got := f.psp.Stats(); got.Settled != 0 || got.Pending != 1 || got.BalanceCents != startBalance-payment.AmountCents {
			t.Errorf("PSP Stats() = %+v, want no settlement, 1 pending, its valor held", got)
		}

		r, err := c.Await(t.Context(), "order-1")

		// Looks at 0, 50, 150, 350, 750, 1250, 1750 and 2250 ms: the last finds it settled.
		if got, want := time.Since(start), 2250*time.Millisecond; got != want {
			t.Errorf("Await() returned after %v, want %v", got, want)
		}
		ledger := f.settlementsFor("order-1")
		if err != nil || len(ledger) != 1 {
			t.Fatalf("Await() = %+v, %v with the ledger %+v; want the receipt of its one settlement", r, err, ledger)
		}
		want := pix.Receipt{EndToEndID: ledger[0].EndToEndID, AmountCents: payment.AmountCents, PixKey: payment.PixKey,
			Status: "REALIZADO", SettledAt: start.Add(2 * time.Second).UTC(), IdempotencyKey: "order-1", Replayed: true,
			Attempts: 8}
		if diff := cmp.Diff(want, r); diff != "" {
			t.Errorf("Await() receipt (-want +got):\n%s", diff)
		}
		replayed, err := c.SendWithKey(t.Context(), "order-1", payment)
		want.Attempts = 1
		if diff := cmp.Diff(want, replayed); err != nil || diff != "" {
			t.Errorf("SendWithKey() after the settlement = %v, receipt (-want +got):\n%s", err, diff)
		}
		if got := f.rec.keys(); len(got) != 3 {
			t.Errorf("PSP got payment requests %v, want 3: no pending answer is retried", got)
		}
	})
}

// TestPendingPaymentRejectedLater: the PSP accepts a payment and rejects it 1 s later. Await
// then says so with ErrRejected, which is no unknown outcome: nothing was paid, the valor is
// back. Every later answer under the key says the same: a lookup's 200 NAO_REALIZADO, a
// replay's 422 payment_rejected, and Resume's either way.
func TestPendingPaymentRejectedLater(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, c := newFixtureWithClient(t, psp.Config{}, []psp.Fault{psp.Pending(time.Second, "rejected")})
		start := time.Now()
		_, err := c.Send(t.Context(), payment)
		unknown, ok := errors.AsType[*pix.OutcomeUnknownError](err)
		if !ok || !errors.Is(err, pix.ErrPending) {
			t.Fatalf("Send() error = %v, want a pending unknown outcome", err)
		}

		_, err = c.Await(t.Context(), unknown.Key)

		if got, want := time.Since(start), 1250*time.Millisecond; got != want {
			t.Errorf("Await() returned after %v, want %v", got, want)
		}
		assertRejected(t, "Await()", err)
		if !strings.Contains(err.Error(), "rejected by a pending fault") {
			t.Errorf("Await() error = %v, want it to say the PSP's motivo", err)
		}
		_, err = c.Lookup(t.Context(), unknown.Key)
		assertRejected(t, "Lookup()", err)
		_, err = c.SendWithKey(t.Context(), unknown.Key, payment)
		assertRejected(t, "SendWithKey()", err)
		if perr, ok := errors.AsType[*pix.Error](err); !ok || perr.Status != 422 || perr.Code != "payment_rejected" {
			t.Errorf("SendWithKey() error = %v, want the PSP's 422 payment_rejected", err)
		}
		_, err = c.Resume(t.Context(), unknown, payment)
		assertRejected(t, "Resume()", err)
		_, err = c.Resume(t.Context(), &pix.OutcomeUnknownError{Key: unknown.Key}, payment) // past the key deadline
		assertRejected(t, "Resume() by a lookup", err)
		if got := f.psp.Stats(); got.Settled != 0 || got.Rejected != 1 || got.BalanceCents != startBalance {
			t.Errorf("PSP Stats() = %+v, want no settlement, 1 rejected, the balance whole", got)
		}
	})
}

// assertRejected checks that err matches ErrRejected and is no unknown outcome.
func assertRejected(t *testing.T, call string, err error) {
	t.Helper()
	if !errors.Is(err, pix.ErrRejected) || errors.Is(err, pix.ErrOutcomeUnknown) || errors.Is(err, pix.ErrPending) {
		t.Errorf("%s error = %v, want ErrRejected, neither unknown nor pending", call, err)
	}
}

// TestResumeOfAPendingKeySaysPending: Resume of a key whose payment is pending resends under
// the key before its key deadline, and looks it up after: either way the error is a pending
// unknown outcome that keeps the FirstSent it was given.
func TestResumeOfAPendingKeySaysPending(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, c := newFixtureWithClient(t, psp.Config{KeyTTL: 10 * time.Minute}, []psp.Fault{psp.Pending(time.Hour, "settled")},
			func(c *pix.Client) { c.KeyTTL = 10 * time.Minute })
		_, err := c.SendWithKey(t.Context(), "order-1", payment)
		unknown, ok := errors.AsType[*pix.OutcomeUnknownError](err)
		if !ok || !errors.Is(err, pix.ErrPending) || unknown.FirstSent.IsZero() {
			t.Fatalf("SendWithKey() error = %v, want a pending unknown outcome with its FirstSent", err)
		}

		for _, tc := range []struct {
			name        string
			after       time.Duration
			wantLookups int64
		}{
			{"before the key deadline: a resend", time.Minute, 0},
			{"after it: a lookup", 20 * time.Minute, 1},
		} {
			time.Sleep(tc.after)
			_, err := c.Resume(t.Context(), unknown, payment)
			resumed, ok := errors.AsType[*pix.OutcomeUnknownError](err)
			if !ok || !errors.Is(err, pix.ErrPending) || !resumed.FirstSent.Equal(unknown.FirstSent) {
				t.Errorf("%s: Resume() error = %v, want a pending unknown outcome with FirstSent %v", tc.name, err,
					unknown.FirstSent)
			}
			if got := f.psp.Stats().Lookups; got != tc.wantLookups {
				t.Errorf("%s: PSP got %d lookups, want %d", tc.name, got, tc.wantLookups)
			}
		}
	})
}

// TestAwaitOfAPendingPaymentEndsWithItsContext: a payment still pending when ctx ends leaves
// Await with a pending unknown outcome that wraps ctx's error, after its last look.
func TestAwaitOfAPendingPaymentEndsWithItsContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, c := newFixtureWithClient(t, psp.Config{}, []psp.Fault{psp.Pending(time.Hour, "settled")})
		_, err := c.SendWithKey(t.Context(), "order-1", payment)
		assertPending(t, "SendWithKey()", err, "order-1", 1)
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
		defer cancel()

		_, err = c.Await(ctx, "order-1")

		// Looks at 0, 50, 150, 350, 750, 1250, 1750, 2250 and 2750 ms; the next would be past 3 s.
		assertPending(t, "Await()", err, "order-1", 9)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Await() error = %v, want it to wrap context.DeadlineExceeded", err)
		}
		if got := f.psp.Stats(); got.Settled != 0 || got.Pending != 1 {
			t.Errorf("PSP Stats() = %+v, want the payment still pending", got)
		}
	})
}

// TestCompleteAfterAndTheRejectedRange: with the PSP's CompleteAfter every payment is pending
// for that long; one whose valor is in the rejected range then ends rejected, the others
// settled. Await tells each apart.
func TestCompleteAfterAndTheRejectedRange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, c := newFixtureWithClient(t,
			psp.Config{CompleteAfter: 500 * time.Millisecond, RejectFromCents: 1001, RejectToCents: 2000}, nil)
		for _, tc := range []struct {
			cents       int64
			wantSettled bool
		}{{1000, true}, {1001, false}, {2000, false}, {2001, true}} {
			p := pix.Payment{AmountCents: tc.cents, PixKey: payment.PixKey}
			_, err := c.Send(t.Context(), p)
			unknown, ok := errors.AsType[*pix.OutcomeUnknownError](err)
			if !ok || !errors.Is(err, pix.ErrPending) {
				t.Fatalf("Send(%d cents) error = %v, want a pending unknown outcome", tc.cents, err)
			}

			r, err := c.Await(t.Context(), unknown.Key)

			if tc.wantSettled && (err != nil || r.AmountCents != tc.cents) {
				t.Errorf("Await() of %d cents = %+v, %v; want its receipt", tc.cents, r, err)
			}
			if !tc.wantSettled {
				assertRejected(t, "Await()", err)
			}
		}
		if got := f.psp.Stats(); got.Settled != 2 || got.Rejected != 2 {
			t.Errorf("PSP Stats() = %+v, want 2 settled and 2 rejected", got)
		}
	})
}

// TestPendingIsReportedAsPending: the Observer learns a pending payment's attempt and call as
// pending, Await's looks at it as pending, and the Logger writes them at Info: the PSP
// answered.
func TestPendingIsReportedAsPending(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := &observed{}
		f, c := newFixtureWithClient(t, psp.Config{}, []psp.Fault{psp.Pending(100*time.Millisecond, "settled")},
			observedBy(o))

		_, err := c.SendWithKey(t.Context(), "order-1", payment)
		assertPending(t, "SendWithKey()", err, "order-1", 1)
		if _, err := c.Await(t.Context(), "order-1"); err != nil {
			t.Fatalf("Await() error = %v", err)
		}

		want := []string{
			`send_with_key started in ""`,
			`POST 1 started in "send_with_key"`,
			`POST 1 ended in "send_with_key/POST 1": 202 pending after 0s, wait 0s, stop permanent`,
			`send_with_key ended in "send_with_key": pending after 0s`,
			`await started in ""`,
			`GET 1 started in "await"`,
			`GET 1 ended in "await/GET 1": 202 pending after 0s, wait 50ms, stop none`,
			`GET 2 started in "await"`,
			`GET 2 ended in "await/GET 2": 202 pending after 0s, wait 100ms, stop none`,
			`GET 3 started in "await"`,
			`GET 3 ended in "await/GET 3": 200 lookup_found after 0s, wait 0s, stop success`,
			`await ended in "await": lookup_found after 150ms`,
		}
		if diff := cmp.Diff(want, o.all()); diff != "" {
			t.Errorf("the Observer's lines (-want +got):\n%s", diff)
		}
		var got []string
		for _, rec := range f.log.all() {
			got = append(got, rec.Level.String()+" "+rec.Message+" "+str(rec.Attrs["outcome"]))
		}
		wantLog := []string{
			"INFO pix attempt pending", "INFO pix payment pending <nil>",
			"INFO pix lookup attempt pending", "INFO pix lookup attempt pending", "INFO pix lookup attempt found",
			"INFO pix await settled <nil>",
		}
		if diff := cmp.Diff(wantLog, got); diff != "" {
			t.Errorf("log records (-want +got):\n%s", diff)
		}
	})
}
