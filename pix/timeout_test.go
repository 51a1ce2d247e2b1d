package pix_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/internal/pipenet"
	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

func TestAttemptTimeoutEndsTheAttemptOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, psp.Config{})
		f.psp.Inject(psp.Late(time.Hour))
		start := time.Now()

		_, err := f.client(func(c *pix.Client) { c.Policy.AttemptsMax = 1 }).Send(t.Context(), payment)

		if got, want := time.Since(start), time.Second; got != want {
			t.Errorf("Send() returned after %v, want the attempt timeout %v", got, want)
		}
		if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, pix.ErrOutcomeUnknown) {
			t.Errorf("Send() error = %v, want the attempt's DeadlineExceeded, as ErrOutcomeUnknown", err)
		}
		if t.Context().Err() != nil {
			t.Errorf("caller's context ended: %v", t.Context().Err())
		}
	})
}

func TestAttemptTimeoutIsTransient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, psp.Config{})
		f.psp.Inject(psp.Slow(time.Hour))
		start := time.Now()

		_, err := f.client().SendWithKey(t.Context(), "k", payment)
		// attempt 1 times out at 1 s; attempts 2 to 4 get 409, the key being in flight: every
		// one transient, after waits of 50, 100 and 200 ms.
		want := []time.Duration{0, 1050 * time.Millisecond, 1150 * time.Millisecond, 1350 * time.Millisecond}
		if diff := cmp.Diff(want, offsets(f.rec.requests(), start)); diff != "" {
			t.Errorf("attempt instants mismatch (-want +got):\n%s", diff)
		}
		var perr *pix.Error
		if !errors.As(err, &perr) || perr.Status != http.StatusConflict || !errors.Is(err, pix.ErrOutcomeUnknown) {
			t.Errorf("Send() error = %v, want the last 409, as ErrOutcomeUnknown", err)
		}
	})
}

func TestAttemptTimeoutCoversTheBody(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var calls atomic.Int32
		srv := pipenet.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) == 1 { // the headers, then a body that stalls
				w.WriteHeader(http.StatusCreated)
				w.Write([]byte(`{"endToEndId":`))
				http.NewResponseController(w).Flush()
				<-r.Context().Done()
				return
			}
			writeSettled(w, validSettled())
		}))
		defer srv.Close()
		start := time.Now()

		r, err := clientOf(srv).Send(t.Context(), payment)
		if err != nil || r.Attempts != 2 {
			t.Fatalf("Send() = %+v, %v; want success on attempt 2", r, err)
		}
		if got, want := time.Since(start), 1050*time.Millisecond; got != want {
			t.Errorf("Send() took %v, want %v (a 1 s attempt timeout, then a 50 ms wait)", got, want)
		}
	})
}

func TestCallerContext(t *testing.T) {
	for _, tc := range []struct {
		name   string
		faults []psp.Fault
		ctx    func(context.Context) (context.Context, context.CancelFunc)
		// wantErr is the caller's context error; wantTook when Send returns; wantRequests how
		// many attempts reached the PSP.
		wantErr      error
		wantTook     time.Duration
		wantRequests int
		wantStatus   int // status of the last attempt's *pix.Error, 0 if none
	}{
		{
			name:    "canceled before Send",
			ctx:     func(ctx context.Context) (context.Context, context.CancelFunc) { return canceled(ctx) },
			wantErr: context.Canceled,
		},
		{
			name:   "canceled during an attempt",
			faults: []psp.Fault{psp.Slow(time.Hour)},
			ctx: func(ctx context.Context) (context.Context, context.CancelFunc) {
				return cancelAfter(ctx, 300*time.Millisecond)
			},
			wantErr: context.Canceled, wantTook: 300 * time.Millisecond, wantRequests: 1,
		},
		{
			name:   "canceled during the wait",
			faults: []psp.Fault{psp.Status(503)},
			ctx: func(ctx context.Context) (context.Context, context.CancelFunc) {
				return cancelAfter(ctx, 20*time.Millisecond)
			},
			wantErr: context.Canceled, wantTook: 20 * time.Millisecond, wantRequests: 1, wantStatus: 503,
		},
		{
			name:   "deadline before the attempt timeout",
			faults: []psp.Fault{psp.Late(time.Hour)},
			ctx: func(ctx context.Context) (context.Context, context.CancelFunc) {
				return context.WithTimeout(ctx, 500*time.Millisecond)
			},
			wantErr: context.DeadlineExceeded, wantTook: 500 * time.Millisecond, wantRequests: 1,
		},
		{
			name:   "deadline during a later attempt",
			faults: []psp.Fault{psp.Late(time.Hour), psp.Late(time.Hour)},
			ctx: func(ctx context.Context) (context.Context, context.CancelFunc) {
				return context.WithTimeout(ctx, 1500*time.Millisecond)
			},
			wantErr: context.DeadlineExceeded, wantTook: 1500 * time.Millisecond, wantRequests: 2,
		},
		{
			name:   "deadline before the wait would end",
			faults: []psp.Fault{psp.Status(503)},
			ctx: func(ctx context.Context) (context.Context, context.CancelFunc) {
				return context.WithTimeout(ctx, 30*time.Millisecond)
			},
			wantErr: context.DeadlineExceeded, wantTook: 0, wantRequests: 1, wantStatus: 503,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t, psp.Config{})
				f.psp.Inject(tc.faults...)
				ctx, cancel := tc.ctx(t.Context())
				defer cancel()
				start := time.Now()

				_, err := f.client().Send(ctx, payment)

				if got := time.Since(start); got != tc.wantTook {
					t.Errorf("Send() returned after %v, want %v", got, tc.wantTook)
				}
				if !errors.Is(err, tc.wantErr) {
					t.Errorf("Send() error = %v, want one wrapping %v", err, tc.wantErr)
				}
				if got := len(f.rec.requests()); got != tc.wantRequests {
					t.Errorf("PSP got %d requests, want %d", got, tc.wantRequests)
				}
				// An attempt that reached the PSP makes the outcome unknown; none, not.
				if got, want := errors.Is(err, pix.ErrOutcomeUnknown), tc.wantRequests > 0; got != want {
					t.Errorf("errors.Is(err, ErrOutcomeUnknown) = %t, want %t; err = %v", got, want, err)
				}
				var perr *pix.Error
				if got := errors.As(err, &perr); got != (tc.wantStatus != 0) || got && perr.Status != tc.wantStatus {
					t.Errorf("Send() error = %v, want the last attempt's status %d reachable", err, tc.wantStatus)
				}
			})
		})
	}
}

func canceled(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	cancel()
	return ctx, cancel
}

// cancelAfter is a context canceled d from now (not a deadline: Do cannot see it coming).
func cancelAfter(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	timer := time.AfterFunc(d, cancel)
	return ctx, func() { timer.Stop(); cancel() }
}

// clientOf is a client of a hand-written server, with the test policy.
func clientOf(srv *pipenet.Server, change ...func(*pix.Client)) *pix.Client {
	c := &pix.Client{
		BaseURL: srv.URL, Token: token, HTTPClient: srv.Client(),
		Policy: policy, AttemptTimeout: time.Second, Jitter: halfDraw,
	}
	for _, ch := range change {
		ch(c)
	}
	return c
}

// oneAttempt makes a client give up after its first attempt.
func oneAttempt(c *pix.Client) { c.Policy = retry.Policy{AttemptsMax: 1} }
