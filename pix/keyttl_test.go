package pix_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

// TestKeyDeadlineStopsTheAttempts: no attempt under a key may still be in flight at its key
// deadline, FirstSent + KeyTTL − KeyTTL/10. Every attempt times out (a late answer), and
// retries follow at once. The attempt that would not end before the deadline is not sent, is
// not counted, logged, nor asked of the breaker, and the payment ends unknown with
// ErrKeyExpired.
func TestKeyDeadlineStopsTheAttempts(t *testing.T) {
	for _, tc := range []struct {
		name           string
		keyTTL         time.Duration
		attemptTimeout time.Duration
		wantAttempts   int
		wantTook       time.Duration
	}{
		// The deadline is at 9 s: the attempt at 8 s would end at it.
		{name: "an attempt ending at the deadline is not sent", keyTTL: 10 * time.Second,
			attemptTimeout: time.Second, wantAttempts: 8, wantTook: 8 * time.Second},
		{name: "an attempt ending 1 ns before it is sent", keyTTL: 10*time.Second + time.Nanosecond,
			attemptTimeout: time.Second, wantAttempts: 9, wantTook: 9 * time.Second},
		// Without an AttemptTimeout, the key deadline ends the first attempt, and the retry
		// starts at the deadline: too late.
		{name: "no AttemptTimeout: the deadline ends the attempt", keyTTL: 10 * time.Second,
			wantAttempts: 1, wantTook: 9 * time.Second},
		// The deadline is at 21 h 36 min: the attempt at 21 h 30 min would end after it.
		{name: "a KeyTTL of 0 is 24 hours", attemptTimeout: 30 * time.Minute,
			wantAttempts: 43, wantTook: 21*time.Hour + 30*time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t, psp.Config{})
				f.psp.Inject(repeat(psp.Late(psp.MaxFaultDuration), 50)...)
				cb := twoStep(100, time.Minute)
				c := f.client(func(c *pix.Client) {
					c.KeyTTL, c.AttemptTimeout, c.Breaker = tc.keyTTL, tc.attemptTimeout, cb
					c.Policy = retry.Policy{AttemptsMax: 50} // no waits
				})
				start := time.Now()

				_, err := c.Send(t.Context(), payment)

				if got := time.Since(start); got != tc.wantTook {
					t.Errorf("Send() returned after %v, want %v", got, tc.wantTook)
				}
				assertKeyExpired(t, err, start, tc.wantAttempts)
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("Send() error = %v, want the last attempt's timeout reachable", err)
				}
				if got := len(f.rec.requests()); got != tc.wantAttempts {
					t.Errorf("PSP got %d requests, want %d", got, tc.wantAttempts)
				}
				if got := cb.Counts().Requests; got != uint32(tc.wantAttempts) {
					t.Errorf("breaker admitted %d attempts, want %d", got, tc.wantAttempts)
				}
				if got := messages(f.log.all(), "pix attempt"); got != tc.wantAttempts {
					t.Errorf("%d attempts logged, want %d", got, tc.wantAttempts)
				}
			})
		})
	}
}

// assertKeyExpired checks that err is an OutcomeUnknownError for a key first sent at
// firstSent, after attempts, that ErrKeyExpired ended.
func assertKeyExpired(t *testing.T, err error, firstSent time.Time, attempts int) {
	t.Helper()
	var unknown *pix.OutcomeUnknownError
	if !errors.As(err, &unknown) || !errors.Is(err, pix.ErrKeyExpired) {
		t.Fatalf("error = %v, want an *OutcomeUnknownError wrapping ErrKeyExpired", err)
	}
	if !unknown.FirstSent.Equal(firstSent) || unknown.Attempts != attempts {
		t.Errorf("OutcomeUnknownError = {FirstSent %v, Attempts %d}, want {%v, %d}",
			unknown.FirstSent, unknown.Attempts, firstSent, attempts)
	}
	if retry.Transient(pix.ErrKeyExpired) {
		t.Errorf("ErrKeyExpired is transient, want permanent")
	}
}

// messages counts the records of log with message msg.
func messages(log []record, msg string) int {
	n := 0
	for _, r := range log {
		if r.Message == msg {
			n++
		}
	}
	return n
}

// TestKeyExpiredIsAlwaysUnknown: connections that could not be made prove that nothing was
// paid, yet a payment that the key deadline stops is an unknown outcome all the same, so that
// the caller reconciles it the one way (Resume). Waits of 50, 100, 200 and 400 ms put the
// sixth attempt at 1250 ms, past the deadline of 900 ms.
func TestKeyExpiredIsAlwaysUnknown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		refused := &http.Client{Transport: roundTrip(func(*http.Request) (*http.Response, error) {
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
		})}
		c := &pix.Client{BaseURL: "http://psp.test", Token: token, HTTPClient: refused, Jitter: halfDraw,
			Policy: retry.Policy{AttemptsMax: 10, DelayBase: 100 * time.Millisecond, DelayMax: time.Second},
			KeyTTL: time.Second}
		start := time.Now()

		_, err := c.Send(t.Context(), payment)

		assertKeyExpired(t, err, start, 5)
		if !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("Send() error = %v, want the refused connection reachable", err)
		}
		if got, want := time.Since(start), 1250*time.Millisecond; got != want {
			t.Errorf("Send() returned after %v, want %v", got, want)
		}
	})
}

// TestFirstSentIsTheFirstAttempt: an unknown outcome carries when the key's first attempt
// left, not its last. A call that sent nothing carries none.
func TestFirstSentIsTheFirstAttempt(t *testing.T) {
	for _, tc := range []struct {
		name string
		send func(context.Context, *pix.Client) error
		ctx  func(context.Context) (context.Context, context.CancelFunc)
		want time.Duration // after the start; -1: zero
	}{
		{name: "Send", send: func(ctx context.Context, c *pix.Client) error {
			_, err := c.Send(ctx, payment)
			return err
		}},
		{name: "SendWithKey", send: func(ctx context.Context, c *pix.Client) error {
			_, err := c.SendWithKey(ctx, "order-1", payment)
			return err
		}},
		{name: "SendWithKey, nothing sent", send: func(ctx context.Context, c *pix.Client) error {
			_, err := c.SendWithKey(ctx, "order-1", payment)
			return err
		}, ctx: canceled, want: -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t, psp.Config{})
				f.psp.Inject(repeat(psp.Status(503), 4)...)
				ctx, cancel := context.WithCancel(t.Context())
				if tc.ctx != nil {
					ctx, cancel = tc.ctx(ctx)
				}
				defer cancel()
				time.Sleep(time.Minute) // FirstSent is not the bubble's start
				start := time.Now()

				err := tc.send(ctx, f.client())

				var unknown *pix.OutcomeUnknownError
				if !errors.As(err, &unknown) {
					t.Fatalf("error = %v, want an *OutcomeUnknownError", err)
				}
				want := start.Add(tc.want)
				if tc.want < 0 {
					want = time.Time{}
				}
				if !unknown.FirstSent.Equal(want) {
					t.Errorf("FirstSent = %v, want %v", unknown.FirstSent, want)
				}
			})
		})
	}
}

// TestAttemptTimeoutBelowTheKeyWindowIsValid: the limits of a valid Client around KeyTTL, each
// with a payment that settles; those past them are in TestInvalidClientSendsNothing.
func TestAttemptTimeoutBelowTheKeyWindowIsValid(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		keyTTL, attemptTimeout time.Duration
	}{
		{"1 ns below KeyTTL less a tenth", 10 * time.Second, 9*time.Second - time.Nanosecond},
		{"1 ns below 24 h less a tenth, KeyTTL 0", 0, 21*time.Hour + 36*time.Minute - time.Nanosecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t, psp.Config{})
				c := f.client(func(c *pix.Client) { c.KeyTTL, c.AttemptTimeout = tc.keyTTL, tc.attemptTimeout })
				if _, err := c.Send(t.Context(), payment); err != nil {
					t.Errorf("Send() error = %v, want a settlement", err)
				}
			})
		})
	}
}

// TestKeyExpiredErrorText: what a log shows of ErrKeyExpired and ErrNoSettlement.
func TestKeyExpiredErrorText(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{pix.ErrKeyExpired, "pix: the PSP may have forgotten the idempotency key"},
		{pix.ErrNoSettlement, "pix: the PSP holds no settlement under the key, and closed it"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
	if diff := cmp.Diff(false, errors.Is(pix.ErrNoSettlement, pix.ErrOutcomeUnknown)); diff != "" {
		t.Errorf("ErrNoSettlement is ErrOutcomeUnknown (-want +got):\n%s", diff)
	}
}
