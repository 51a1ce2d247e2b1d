package pix_test

import (
	"errors"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/pix"
	"pixretry/psp"
)

// keyTTL is the TTL of the PSP and of the clients of the Resume tests. The key deadline is
// 9 s after the first attempt, and with the 1 s AttemptTimeout an attempt starts no later than
// 8 s after it.
const keyTTL = 10 * time.Second

// newTTLFixture is a fixture whose PSP forgets a key keyTTL after it completes, with a
// client that knows it.
func newTTLFixture(t *testing.T) (*fixture, *pix.Client) {
	t.Helper()
	f := newFixture(t, psp.Config{KeyTTL: keyTTL})
	return f, f.client(func(c *pix.Client) { c.KeyTTL = keyTTL })
}

// droppedPayment pays payment with a single attempt whose answer the PSP drops after it
// settled, and returns the unknown outcome.
func droppedPayment(t *testing.T, f *fixture, c *pix.Client) *pix.OutcomeUnknownError {
	t.Helper()
	f.psp.Inject(psp.Drop())
	once := *c
	once.Policy.AttemptsMax = 1
	_, err := once.Send(t.Context(), payment)
	var unknown *pix.OutcomeUnknownError
	if !errors.As(err, &unknown) {
		t.Fatalf("Send() error = %v, want an *OutcomeUnknownError", err)
	}
	return unknown
}

// TestResumeResendsOrLooksUp: while an attempt fits before the key deadline, Resume resends
// under the key and the PSP replays the settlement. From the instant an attempt would end at
// the deadline, it looks the key up instead, and sends no payment request. Either way the
// PSP settled once.
func TestResumeResendsOrLooksUp(t *testing.T) {
	for _, tc := range []struct {
		name        string
		after       time.Duration // from the first attempt to Resume
		wantLookups int64
	}{
		{"1 ns before the last attempt that fits: resent", 8*time.Second - time.Nanosecond, 0},
		{"an attempt would end at the key deadline: looked up", 8 * time.Second, 1},
		{"the PSP forgot the key: looked up", keyTTL + time.Hour, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f, c := newTTLFixture(t)
				unknown := droppedPayment(t, f, c)
				time.Sleep(tc.after)

				r, err := c.Resume(t.Context(), unknown, payment)

				if err != nil || !r.Replayed || r.Attempts != 1 || r.IdempotencyKey != unknown.Key {
					t.Fatalf("Resume() = %+v, %v; want the settlement, replayed, after 1 attempt", r, err)
				}
				ledger := f.psp.Settlements()
				if len(ledger) != 1 || ledger[0].EndToEndID != r.EndToEndID {
					t.Errorf("ledger = %+v, want the one settlement %s", ledger, r.EndToEndID)
				}
				if got := f.psp.Stats().Lookups; got != tc.wantLookups {
					t.Errorf("PSP got %d lookups, want %d", got, tc.wantLookups)
				}
				if got, want := len(f.rec.requests()), 1+int(1-tc.wantLookups); got != want {
					t.Errorf("PSP got %d payment requests, want %d", got, want)
				}
			})
		})
	}
}

// TestResumeLooksUpWhenTheResendReachesTheKeyDeadline: a resend inside the key window whose
// retries run into the key deadline goes on with a lookup, in the same call. The resend's
// attempts at 5, 6.05 and 7.15 s time out; the next, at 8.35 s, would end past 9 s.
func TestResumeLooksUpWhenTheResendReachesTheKeyDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, c := newTTLFixture(t)
		unknown := droppedPayment(t, f, c)
		time.Sleep(5 * time.Second)
		f.psp.Inject(repeat(psp.Late(time.Hour), 4)...)
		start := time.Now()

		r, err := c.Resume(t.Context(), unknown, payment)

		if err != nil || !r.Replayed || r.Attempts != 1 {
			t.Fatalf("Resume() = %+v, %v; want the settlement found by a lookup", r, err)
		}
		if got, want := time.Since(start), 3350*time.Millisecond; got != want {
			t.Errorf("Resume() took %v, want %v", got, want)
		}
		if got := len(f.rec.requests()); got != 4 {
			t.Errorf("PSP got %d payment requests, want the first and 3 resent", got)
		}
		if got := len(f.psp.Settlements()); got != 1 || f.psp.Stats().Lookups != 1 {
			t.Errorf("PSP holds %d settlements after %d lookups, want 1 and 1", got, f.psp.Stats().Lookups)
		}
	})
}

// TestResumeKeepsFirstSent: an outcome still unknown after Resume carries the first attempt's
// instant, whether the resend or the lookup failed, so that the next Resume counts from it.
func TestResumeKeepsFirstSent(t *testing.T) {
	for _, tc := range []struct {
		name   string
		after  time.Duration
		faults []psp.Fault
	}{
		{"the resend gets 503s", time.Second, repeat(psp.Status(503), 4)},
		{"the lookup gets 503s", time.Hour, repeat(psp.Status(503).ForLookup(), 4)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f, c := newTTLFixture(t)
				unknown := droppedPayment(t, f, c)
				time.Sleep(tc.after)
				f.psp.Inject(tc.faults...)

				_, err := c.Resume(t.Context(), unknown, payment)

				var again *pix.OutcomeUnknownError
				if !errors.As(err, &again) || !again.FirstSent.Equal(unknown.FirstSent) || again.Key != unknown.Key ||
					again.Attempts != 4 {
					t.Errorf("Resume() error = %#v, want an *OutcomeUnknownError for the key after 4 attempts, FirstSent %v",
						err, unknown.FirstSent)
				}
			})
		})
	}
}

// TestResumeFindsAnotherPayment: a settlement found under the key that is not for this
// payment is not its receipt. The key may also have paid this payment before it was reused,
// so the outcome stays unknown.
func TestResumeFindsAnotherPayment(t *testing.T) {
	for _, tc := range []struct {
		name    string
		other   pix.Payment
		wantErr error
	}{
		{"the same payment", payment, nil},
		{"another amount", pix.Payment{AmountCents: 15001, PixKey: payment.PixKey, Description: payment.Description},
			pix.ErrKeyReused},
		{"another chave", pix.Payment{AmountCents: 15000, PixKey: "+5511987654321", Description: payment.Description},
			pix.ErrKeyReused},
		{"another infoPagador", pix.Payment{AmountCents: 15000, PixKey: payment.PixKey, Description: "luz"},
			pix.ErrKeyReused},
		{"no infoPagador", pix.Payment{AmountCents: 15000, PixKey: payment.PixKey}, pix.ErrKeyReused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				_, c := newTTLFixture(t)
				if _, err := c.SendWithKey(t.Context(), "order-1", tc.other); err != nil {
					t.Fatalf("SendWithKey() error = %v", err)
				}
				firstSent := time.Now()
				time.Sleep(time.Hour)

				r, err := c.Resume(t.Context(), &pix.OutcomeUnknownError{Key: "order-1", FirstSent: firstSent}, payment)

				if tc.wantErr == nil {
					if err != nil || r.AmountCents != payment.AmountCents {
						t.Errorf("Resume() = %+v, %v; want the receipt", r, err)
					}
					return
				}
				var unknown *pix.OutcomeUnknownError
				if !errors.Is(err, tc.wantErr) || !errors.As(err, &unknown) || !unknown.FirstSent.Equal(firstSent) ||
					unknown.Attempts != 1 {
					t.Errorf("Resume() error = %v, want %v, as an *OutcomeUnknownError after 1 attempt, FirstSent kept",
						err, tc.wantErr)
				}
			})
		})
	}
}

// TestResumeOfAKeyThatNeverPaid: the lookup proves the payment unpaid for good, and a new key
// pays it once.
func TestResumeOfAKeyThatNeverPaid(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, c := newTTLFixture(t)
		unknown := &pix.OutcomeUnknownError{Key: "order-1", FirstSent: time.Now()}
		time.Sleep(time.Hour)

		_, err := c.Resume(t.Context(), unknown, payment)

		if !errors.Is(err, pix.ErrNoSettlement) || errors.Is(err, pix.ErrOutcomeUnknown) {
			t.Fatalf("Resume() error = %v, want ErrNoSettlement, not an unknown outcome", err)
		}
		r, err := c.Send(t.Context(), payment)
		if err != nil {
			t.Fatalf("Send() under a new key error = %v", err)
		}
		assertPaidOnce(t, f, r)
	})
}

// assertPaidOnce checks that the ledger holds r's settlement and no other.
func assertPaidOnce(t *testing.T, f *fixture, r pix.Receipt) {
	t.Helper()
	ledger := f.psp.Settlements()
	if len(ledger) != 1 || ledger[0].EndToEndID != r.EndToEndID || ledger[0].IdempotencyKey != r.IdempotencyKey {
		t.Errorf("ledger = %+v, want the one settlement of %+v", ledger, r)
	}
}

// TestResumeAfterADroppedAnswerAndAnOutagePastTheTTL is the scenario that paid twice: the PSP
// settles and the answer is lost, then the PSP is down for 30 s, past its 10 s TTL. A payer
// that resumes every 5 s resends while the key deadline allows, then looks the key up until
// the PSP is back, and finds the one settlement.
func TestResumeAfterADroppedAnswerAndAnOutagePastTheTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, c := newTTLFixture(t)
		f.psp.Inject(psp.Drop(), psp.Down(30*time.Second))

		r, err := resumeUntilKnown(t, c)

		if err != nil {
			t.Fatalf("Resume() error = %v, want the settlement", err)
		}
		assertPaidOnce(t, f, r)
		if got := len(f.rec.requests()); got != 4+4 {
			t.Errorf("PSP got %d payment requests, want 4 from Send and 4 from one resend", got)
		}
	})
}

// TestResumeAfter503sAndAnOutagePastTheTTL: three 503s before any processing, then the PSP
// down past its TTL. Nothing was paid: the lookup proves it, and the payment is paid once,
// under a new key.
func TestResumeAfter503sAndAnOutagePastTheTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, c := newTTLFixture(t)
		f.psp.Inject(psp.Status(503), psp.Status(503), psp.Status(503), psp.Down(30*time.Second))

		_, err := resumeUntilKnown(t, c)

		if !errors.Is(err, pix.ErrNoSettlement) {
			t.Fatalf("Resume() error = %v, want ErrNoSettlement", err)
		}
		r, err := c.Send(t.Context(), payment)
		if err != nil {
			t.Fatalf("Send() under a new key error = %v", err)
		}
		assertPaidOnce(t, f, r)
	})
}

// resumeUntilKnown sends payment, then resumes it every 5 s while its outcome is unknown, for
// at most a minute, and returns the last result.
func resumeUntilKnown(t *testing.T, c *pix.Client) (pix.Receipt, error) {
	t.Helper()
	r, err := c.Send(t.Context(), payment)
	var unknown *pix.OutcomeUnknownError
	for deadline := time.Now().Add(time.Minute); errors.As(err, &unknown) && time.Now().Before(deadline); {
		time.Sleep(5 * time.Second)
		r, err = c.Resume(t.Context(), unknown, payment)
	}
	return r, err
}

// TestResumeOfAnInvalidPaymentSendsNothing: an invalid payment or key fails with
// ErrInvalidPayment, inside the key window and past it, and neither a payment nor a lookup
// leaves.
func TestResumeOfAnInvalidPaymentSendsNothing(t *testing.T) {
	invalid := pix.Payment{AmountCents: 0, PixKey: payment.PixKey}
	for _, tc := range []struct {
		name  string
		key   string
		p     pix.Payment
		after time.Duration
	}{
		{"invalid payment, resent", "order-1", invalid, time.Second},
		{"invalid payment, looked up", "order-1", invalid, time.Hour},
		{"invalid key, resent", "order 1", payment, time.Second},
		{"invalid key, looked up", "order 1", payment, time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f, c := newTTLFixture(t)
				unknown := &pix.OutcomeUnknownError{Key: tc.key, FirstSent: time.Now()}
				time.Sleep(tc.after)

				_, err := c.Resume(t.Context(), unknown, tc.p)

				if !errors.Is(err, pix.ErrInvalidPayment) || errors.Is(err, pix.ErrOutcomeUnknown) {
					t.Errorf("Resume() error = %v, want ErrInvalidPayment, not an unknown outcome", err)
				}
				if got := len(f.rec.requests()); got != 0 || f.psp.Stats().Lookups != 0 {
					t.Errorf("PSP got %d payment requests and %d lookups, want none", got, f.psp.Stats().Lookups)
				}
			})
		})
	}
}

// TestResumeWithAnInvalidClientIsUnknown: the key may hold the settlement, so a misconfigured
// Client leaves the outcome unknown, with FirstSent kept, and sends nothing.
func TestResumeWithAnInvalidClientIsUnknown(t *testing.T) {
	for _, after := range []time.Duration{time.Second, time.Hour} {
		t.Run(after.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f, c := newTTLFixture(t)
				c.BaseURL = "pipe"
				unknown := &pix.OutcomeUnknownError{Key: "order-1", FirstSent: time.Now()}
				time.Sleep(after)

				_, err := c.Resume(t.Context(), unknown, payment)

				var again *pix.OutcomeUnknownError
				if !errors.As(err, &again) || !again.FirstSent.Equal(unknown.FirstSent) || again.Attempts != 0 {
					t.Errorf("Resume() error = %v, want an *OutcomeUnknownError with FirstSent kept, no attempt", err)
				}
				if got := len(f.rec.requests()); got != 0 || f.psp.Stats().Lookups != 0 {
					t.Errorf("PSP got %d payment requests and %d lookups, want none", got, f.psp.Stats().Lookups)
				}
			})
		})
	}
}

// TestLookupLogRecords: one record per lookup attempt and one per lookup, as for payments.
func TestLookupLogRecords(t *testing.T) {
	lookupAttempt := func(level slog.Level, n int, outcome string, transient bool, wait, elapsed time.Duration) record {
		r := attemptRecord(level, n, outcome, transient, wait, elapsed)
		r.Message = "pix lookup attempt"
		return r
	}
	for _, tc := range []struct {
		name   string
		paid   bool
		key    string
		faults []psp.Fault
		want   func(e2e string) []record
	}{
		{
			name: "a 503, then found", paid: true, faults: []psp.Fault{psp.Status(503).ForLookup()},
			want: func(e2e string) []record {
				return []record{
					lookupAttempt(slog.LevelWarn, 1, "status 503 injected_fault", true, 50*time.Millisecond, 0),
					lookupAttempt(slog.LevelInfo, 2, "found", false, 0, 50*time.Millisecond),
					{slog.LevelInfo, "pix lookup found", map[string]any{"key": "k", "attempts": int64(2), "endToEndId": e2e}},
				}
			},
		},
		{
			name: "not found",
			want: func(string) []record {
				return []record{
					lookupAttempt(slog.LevelInfo, 1, "not found", false, 0, 0),
					{slog.LevelInfo, "pix lookup found nothing", map[string]any{"key": "k", "attempts": int64(1)}},
				}
			},
		},
		{
			name: "a 400", faults: []psp.Fault{psp.Status(400).ForLookup()},
			want: func(string) []record {
				return []record{
					lookupAttempt(slog.LevelWarn, 1, "status 400 injected_fault", false, 0, 0),
					lookupFailed("k", 1, true),
				}
			},
		},
		{
			name: "an invalid key", key: "k k",
			want: func(string) []record { return []record{lookupFailed("k k", 0, false)} },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t, psp.Config{})
				c := f.client()
				var e2e string
				if tc.paid {
					r, err := c.SendWithKey(t.Context(), "k", payment)
					if err != nil {
						t.Fatalf("SendWithKey() error = %v", err)
					}
					e2e = r.EndToEndID
				}
				f.psp.Inject(tc.faults...)
				key := tc.key
				if key == "" {
					key = "k"
				}
				before := len(f.log.all())

				_, err := c.Lookup(t.Context(), key)

				got := f.log.all()[before:]
				for _, rec := range got {
					if e, ok := rec.Attrs["error"]; ok {
						if rec.Message == "pix lookup failed" && e != err.Error() {
							t.Errorf("final record error = %q, want Lookup's error %q", e, err.Error())
						}
						rec.Attrs["error"] = errorSet
					}
				}
				if diff := cmp.Diff(tc.want(e2e), got); diff != "" {
					t.Errorf("log records mismatch (-want +got):\n%s", diff)
				}
			})
		})
	}
}

func lookupFailed(key string, attempts int, unknown bool) record {
	return record{slog.LevelError, "pix lookup failed", map[string]any{
		"key": key, "attempts": int64(attempts), "outcome_unknown": unknown, "error": errorSet}}
}
