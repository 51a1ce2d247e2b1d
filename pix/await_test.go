package pix_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

// awaitPolicy is the test policy with room for two attempts only: Await is not bounded by it.
var awaitPolicy = retry.Policy{AttemptsMax: 2, DelayBase: policy.DelayBase, DelayMax: policy.DelayMax}

// TestAwaitAnswers: every way Await ends, from the real PSP. It looks again after a transient
// failure, past AttemptsMax, waiting half of each ceiling: 50, 100, 200, 400, then 500 ms. A
// receipt, a proof that nothing was paid, and a failure for good end it at once.
func TestAwaitAnswers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		paid   bool // order-1, the key awaited, was paid first
		faults []psp.Fault
		change func(*pix.Client)

		wantFound    bool
		wantNone     bool // ErrNoSettlement
		wantAttempts int
		wantErr      error // reachable from the error, if not nil
		wantTook     time.Duration
	}{
		{name: "settled: the receipt at once", paid: true, wantFound: true, wantAttempts: 1},
		{name: "never paid: no settlement", wantNone: true, wantAttempts: 1},
		{name: "503 past AttemptsMax, then the receipt", paid: true, faults: repeat(psp.Status(503).ForLookup(), 6),
			wantFound: true, wantAttempts: 7, wantTook: (50 + 100 + 200 + 400 + 500 + 500) * time.Millisecond},
		{name: "a reset and a late answer, then the receipt", paid: true,
			faults:    []psp.Fault{psp.ResetConn().ForLookup(), psp.Late(time.Hour).ForLookup()},
			wantFound: true, wantAttempts: 3, wantTook: 50*time.Millisecond + time.Second + 100*time.Millisecond},
		{name: "401: unknown at once", paid: true, change: func(c *pix.Client) { c.Token = "stolen" },
			wantAttempts: 1, wantErr: &pix.Error{Status: 401}},
		{name: "a Retry-After past DelayMax: unknown at once", paid: true,
			faults:       []psp.Fault{{Kind: "status", Status: 503, RetryAfter: 5 * time.Second, Target: "lookup"}},
			wantAttempts: 1, wantErr: &pix.Error{Status: 503}},
		{name: "a 200 outside the contract: unknown at once", paid: true,
			faults: []psp.Fault{psp.BadBody("not_json").ForLookup()}, wantAttempts: 1, wantErr: pix.ErrContract},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f, c := newFixtureWithClient(t, psp.Config{}, tc.faults, func(c *pix.Client) { c.Policy = awaitPolicy },
					tc.change)
				paid := payLedger(t, f, tc.paid, 0) // the faults wait for lookups: this payment meets none
				start := time.Now()

				r, err := c.Await(t.Context(), "order-1")

				if got := time.Since(start); got != tc.wantTook {
					t.Errorf("Await() returned after %v, want %v", got, tc.wantTook)
				}
				if tc.wantFound {
					want := paid
					want.Replayed, want.Attempts = true, tc.wantAttempts
					if err != nil || !cmp.Equal(want, r) {
						t.Fatalf("Await() = %+v, %v; want %+v", r, err, want)
					}
					return
				}
				assertLookupError(t, err, tc.wantNone, tc.wantAttempts)
				if errors.Is(err, pix.ErrPending) {
					t.Errorf("Await() error = %v, want no ErrPending: the PSP answered", err)
				}
				if tc.wantErr != nil && !errorMatches(err, tc.wantErr) {
					t.Errorf("Await() error = %v, want one matching %v", err, tc.wantErr)
				}
			})
		})
	}
}

// errorMatches reports whether err wraps target, or a *pix.Error of target's status when
// target is one.
func errorMatches(err, target error) bool {
	if want, ok := target.(*pix.Error); ok {
		got, ok := errors.AsType[*pix.Error](err)
		return ok && got.Status == want.Status
	}
	return errors.Is(err, target)
}

// TestAwaitEndsWithItsContext: when ctx ends before the payment does, Await's error is an
// *OutcomeUnknownError for the key that matches ErrPending and ctx's error. A wait that would
// end past ctx's deadline is not started.
func TestAwaitEndsWithItsContext(t *testing.T) {
	for _, tc := range []struct {
		name         string
		ctx          func(context.Context) (context.Context, context.CancelFunc)
		wantErr      error
		wantAttempts int
		wantTook     time.Duration
	}{
		{"a deadline: the wait past it is not started", func(ctx context.Context) (context.Context, context.CancelFunc) {
			return context.WithTimeout(ctx, time.Second)
		}, context.DeadlineExceeded, 5, 750 * time.Millisecond}, // looks at 0, 50, 150, 350 and 750 ms
		{"canceled during a wait", func(ctx context.Context) (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(ctx)
			time.AfterFunc(300*time.Millisecond, cancel)
			return ctx, cancel
		}, context.Canceled, 3, 300 * time.Millisecond},
		{"canceled before the first look", func(ctx context.Context) (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(ctx)
			cancel()
			return ctx, cancel
		}, context.Canceled, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f, c := newFixtureWithClient(t, psp.Config{}, []psp.Fault{psp.Down(time.Hour).ForLookup()})
				payLedger(t, f, true, 0) // a lookup's fault: the payment meets none
				ctx, cancel := tc.ctx(t.Context())
				defer cancel()
				start := time.Now()

				_, err := c.Await(ctx, "order-1")

				if got := time.Since(start); got != tc.wantTook {
					t.Errorf("Await() returned after %v, want %v", got, tc.wantTook)
				}
				unknown, ok := errors.AsType[*pix.OutcomeUnknownError](err)
				if !ok || !errors.Is(err, pix.ErrPending) || !errors.Is(err, tc.wantErr) {
					t.Fatalf("Await() error = %v, want an *OutcomeUnknownError matching ErrPending and %v", err, tc.wantErr)
				}
				if unknown.Key != "order-1" || unknown.Attempts != tc.wantAttempts {
					t.Errorf("OutcomeUnknownError = %+v, want key order-1 after %d attempts", unknown, tc.wantAttempts)
				}
			})
		})
	}
}

// TestAwaitContextEndingDuringALook: a look that ctx's end cuts short, before any answer, ends
// Await as ctx's end does: unknown, pending and ctx's error. An answer that came as ctx ended
// ends Await for its own reason, as any answer does: a 401 is no pending payment.
func TestAwaitContextEndingDuringALook(t *testing.T) {
	for _, tc := range []struct {
		name string
		// answer answers the first look, made under a ctx that cancel ends.
		answer  func(r *http.Request, cancel context.CancelFunc) (*http.Response, error)
		wantErr error
		pending bool
	}{
		{"canceled while connecting", func(r *http.Request, cancel context.CancelFunc) (*http.Response, error) {
			time.AfterFunc(300*time.Millisecond, cancel)
			<-r.Context().Done() // a dial that never completes
			return nil, r.Context().Err()
		}, context.Canceled, true},
		{"a 401 as ctx ends", func(r *http.Request, cancel context.CancelFunc) (*http.Response, error) {
			cancel()
			return &http.Response{StatusCode: http.StatusUnauthorized, Header: http.Header{},
				Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
		}, &pix.Error{Status: http.StatusUnauthorized}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				c := &pix.Client{BaseURL: "http://psp.test", Token: token, Policy: awaitPolicy, Jitter: halfDraw,
					HTTPClient: &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
						return tc.answer(r, cancel)
					})}}

				_, err := c.Await(ctx, "order-1")

				unknown, ok := errors.AsType[*pix.OutcomeUnknownError](err)
				if !ok || unknown.Attempts != 1 || !errorMatches(err, tc.wantErr) {
					t.Fatalf("Await() error = %v, want an *OutcomeUnknownError after 1 attempt matching %v", err,
						tc.wantErr)
				}
				if got := errors.Is(err, pix.ErrPending); got != tc.pending {
					t.Errorf("Await() error = %v matches ErrPending: %v, want %v", err, got, tc.pending)
				}
			})
		})
	}
}

// TestAwaitRefusesAnInvalidKey: an invalid key sends nothing, and its error is no unknown
// outcome: no payment can have it.
func TestAwaitRefusesAnInvalidKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, c := newFixtureWithClient(t, psp.Config{}, nil)

		_, err := c.Await(t.Context(), "order 1")

		if !errors.Is(err, pix.ErrInvalidPayment) || errors.Is(err, pix.ErrOutcomeUnknown) {
			t.Errorf("Await() error = %v, want ErrInvalidPayment and no unknown outcome", err)
		}
		if got := f.psp.Stats().Lookups; got != 0 {
			t.Errorf("PSP got %d lookups, want none", got)
		}
	})
}

// TestAwaitTakesTheQuota: every look after the first is a retry to the Client's Quota. A
// refused one ends Await with an unknown outcome that wraps retry.ErrQuotaExhausted.
func TestAwaitTakesTheQuota(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := &observed{}
		f, c := newFixtureWithClient(t, psp.Config{}, repeat(psp.Status(503).ForLookup(), 5),
			func(c *pix.Client) { c.Quota = mustQuota(t, 0, 2) }, observedBy(o))
		payLedger(t, f, true, 0) // lookups' faults: the payment meets none

		_, err := c.Await(t.Context(), "order-1")

		if !errors.Is(err, retry.ErrQuotaExhausted) || !errors.Is(err, pix.ErrOutcomeUnknown) {
			t.Errorf("Await() error = %v, want an unknown outcome wrapping retry.ErrQuotaExhausted", err)
		}
		if got := f.psp.Stats().Lookups; got != 3 {
			t.Errorf("PSP got %d lookups, want 3: the first, and the 2 the quota granted", got)
		}
		if got := o.calls[len(o.calls)-1].Outcome; got != pix.OutcomeQuotaEmpty {
			t.Errorf("call outcome = %s, want quota_empty", got)
		}
	})
}

// TestAwaitIsACallOfItsOwn: the Observer learns of Await as a call of kind await, whose
// attempts are its GETs, and the Logger writes it as it writes a lookup's attempts and a
// payment's end.
func TestAwaitIsACallOfItsOwn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := &observed{}
		f, c := newFixtureWithClient(t, psp.Config{}, []psp.Fault{psp.Status(503).ForLookup()}, observedBy(o))
		payLedger(t, f, true, 0) // a lookup's fault: the payment meets none
		before := len(f.log.all())

		r, err := c.Await(within(t.Context(), "payer"), "order-1")

		if err != nil {
			t.Fatalf("Await() error = %v", err)
		}
		want := []string{
			`await started in "payer"`,
			`GET 1 started in "payer/await"`,
			`GET 1 ended in "payer/await/GET 1": 503 transient after 0s, wait 50ms, stop none`,
			`GET 2 started in "payer/await"`,
			`GET 2 ended in "payer/await/GET 2": 200 lookup_found after 0s, wait 0s, stop success`,
			`await ended in "payer/await": lookup_found after 50ms`,
		}
		if diff := cmp.Diff(want, o.all()); diff != "" {
			t.Errorf("the Observer's lines (-want +got):\n%s", diff)
		}
		var got []string
		for _, rec := range f.log.all()[before:] {
			got = append(got, rec.Level.String()+" "+rec.Message+" "+str(rec.Attrs["outcome"]))
		}
		wantLog := []string{"WARN pix lookup attempt status 503 injected_fault", "INFO pix lookup attempt found",
			"INFO pix await settled <nil>"}
		if diff := cmp.Diff(wantLog, got); diff != "" {
			t.Errorf("log records (-want +got):\n%s", diff)
		}
		if end := f.log.all()[len(f.log.all())-1]; end.Attrs["endToEndId"] != r.EndToEndID {
			t.Errorf("the await's record = %+v, want the endToEndId %s", end.Attrs, r.EndToEndID)
		}
	})
}

// str is v as text, "<nil>" for nil.
func str(v any) string {
	if v == nil {
		return "<nil>"
	}
	return v.(string)
}

// TestAwaitNeedsWaits: a Policy whose DelayBase is 0 makes every wait 0. Await would then look
// again at once, without end: it sends nothing and says why, an unknown outcome as for any
// Client it cannot use.
func TestAwaitNeedsWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, c := newFixtureWithClient(t, psp.Config{}, nil,
			func(c *pix.Client) { c.Policy = retry.Policy{AttemptsMax: 3, DelayMax: time.Second} })

		_, err := c.Await(t.Context(), "order-1")

		want := "pix: invalid Client: Await needs a Policy.DelayBase above 0, not to look the key up again at once, " +
			"without end"
		if !errors.Is(err, pix.ErrOutcomeUnknown) || errors.Is(err, pix.ErrPending) ||
			!strings.HasSuffix(err.Error(), want) {
			t.Errorf("Await() error = %v, want an unknown outcome that ends %q", err, want)
		}
		if got := f.psp.Stats().Lookups; got != 0 {
			t.Errorf("PSP got %d lookups, want none", got)
		}
	})
}
