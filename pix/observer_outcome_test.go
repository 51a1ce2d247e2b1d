package pix_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

// TestObserverSeesEveryCallAndAttempt runs one call per case, against the PSP with the case's
// faults, and holds what the Observer learnt to the case's lines: which call and attempts
// started under which context, and how each ended, with its status, outcome, duration, wait,
// stop and quota. Waits are half their ceilings: 50 ms, 100 ms, 200 ms. An earlier payment,
// made by a Client with no Observer, sets the stage where a case needs one.
func TestObserverSeesEveryCallAndAttempt(t *testing.T) {
	settle := func(t *testing.T, f *fixture) {
		if _, err := f.client().SendWithKey(t.Context(), "order-1", payment); err != nil {
			t.Fatal(err)
		}
	}
	reject := func(t *testing.T, f *fixture) { // accepted, rejected as soon as anyone looks
		f.psp.Inject(psp.Pending(0, "rejected"))
		if _, err := f.client().SendWithKey(t.Context(), "order-1", payment); !errors.Is(err, pix.ErrPending) {
			t.Fatalf("SendWithKey() error = %v, want ErrPending", err)
		}
	}
	unknownKey := &pix.OutcomeUnknownError{Key: "order-1"} // a zero FirstSent is long past
	tests := []struct {
		name   string
		setup  func(*testing.T, *fixture)
		faults []psp.Fault
		change func(*pix.Client)
		call   func(context.Context, *pix.Client) error
		want   []string
	}{
		{
			name:   "two 503s, then settled",
			faults: []psp.Fault{psp.Status(503), psp.Status(503)},
			call:   sendWithKey(payment),
			want: []string{
				`send_with_key started in ""`,
				`POST 1 started in "send_with_key"`,
				`POST 1 ended in "send_with_key/POST 1": 503 transient after 0s, wait 50ms, stop none`,
				`POST 2 started in "send_with_key"`,
				`POST 2 ended in "send_with_key/POST 2": 503 transient after 0s, wait 100ms, stop none`,
				`POST 3 started in "send_with_key"`,
				`POST 3 ended in "send_with_key/POST 3": 201 settled after 0s, wait 0s, stop success`,
				`send_with_key ended in "send_with_key": settled after 150ms`,
			},
		},
		{
			name:  "replayed",
			setup: settle,
			call:  sendWithKey(payment),
			want: []string{
				`send_with_key started in ""`,
				`POST 1 started in "send_with_key"`,
				`POST 1 ended in "send_with_key/POST 1": 201 replayed after 0s, wait 0s, stop success`,
				`send_with_key ended in "send_with_key": replayed after 0s`,
			},
		},
		{
			name: "refused for insufficient funds",
			call: sendWithKey(pix.Payment{AmountCents: startBalance + 1, PixKey: payment.PixKey}),
			want: []string{
				`send_with_key started in ""`,
				`POST 1 started in "send_with_key"`,
				`POST 1 ended in "send_with_key/POST 1": 422 refused after 0s, wait 0s, stop permanent`,
				`send_with_key ended in "send_with_key": refused after 0s`,
			},
		},
		{
			name:   "refused for a token the PSP does not know",
			change: func(c *pix.Client) { c.Token = "wrong" },
			call:   send(payment),
			want: []string{
				`send started in ""`,
				`POST 1 started in "send"`,
				`POST 1 ended in "send/POST 1": 401 refused after 0s, wait 0s, stop permanent`,
				`send ended in "send": refused after 0s`,
			},
		},
		{
			name: "an invalid payment",
			call: send(pix.Payment{PixKey: payment.PixKey}),
			want: []string{`send started in ""`, `send ended in "send": invalid after 0s`},
		},
		{
			name:   "an invalid Client",
			change: func(c *pix.Client) { c.BaseURL = "ftp://psp" },
			call:   send(payment),
			want:   []string{`send started in ""`, `send ended in "send": invalid after 0s`},
		},
		{
			name: "a context ended before the first attempt",
			call: func(ctx context.Context, c *pix.Client) error {
				ctx, cancel := context.WithCancel(ctx)
				cancel()
				_, err := c.Send(ctx, payment)
				return err
			},
			want: []string{`send started in ""`, `send ended in "send": failed after 0s`},
		},
		{
			name:   "a 503, then down past the budget",
			faults: []psp.Fault{psp.Status(503), psp.Down(time.Hour)},
			call:   sendWithKey(payment),
			want: []string{
				`send_with_key started in ""`,
				`POST 1 started in "send_with_key"`,
				`POST 1 ended in "send_with_key/POST 1": 503 transient after 0s, wait 50ms, stop none`,
				`POST 2 started in "send_with_key"`,
				`POST 2 ended in "send_with_key/POST 2": 0 transient after 0s, wait 100ms, stop none`,
				`POST 3 started in "send_with_key"`,
				`POST 3 ended in "send_with_key/POST 3": 0 transient after 0s, wait 200ms, stop none`,
				`POST 4 started in "send_with_key"`,
				`POST 4 ended in "send_with_key/POST 4": 0 transient after 0s, wait 0s, stop budget`,
				`send_with_key ended in "send_with_key": unknown after 350ms`,
			},
		},
		{
			name:   "a 201 that breaks the contract",
			faults: []psp.Fault{psp.BadBody("valor")},
			call:   sendWithKey(payment),
			want: []string{
				`send_with_key started in ""`,
				`POST 1 started in "send_with_key"`,
				`POST 1 ended in "send_with_key/POST 1": 201 unknown after 0s, wait 0s, stop permanent`,
				`send_with_key ended in "send_with_key": unknown after 0s`,
			},
		},
		{
			name:   "the breaker refuses the first attempt",
			change: func(c *pix.Client) { c.Breaker = tripped(t, time.Hour) },
			call:   send(payment),
			want:   []string{`send started in ""`, `send ended in "send": circuit_open after 0s`},
		},
		{
			name:   "the quota grants one retry, then refuses one",
			faults: []psp.Fault{psp.Status(503), psp.Status(503)},
			change: func(c *pix.Client) { c.Quota = mustQuota(t, 0, 1) },
			call:   sendWithKey(payment),
			want: []string{
				`send_with_key started in ""`,
				`POST 1 started in "send_with_key"`,
				`POST 1 ended in "send_with_key/POST 1": 503 transient after 0s, wait 50ms, stop none, quota granted`,
				`POST 2 started in "send_with_key"`,
				`POST 2 ended in "send_with_key/POST 2": 503 transient after 0s, wait 0s, stop quota`,
				`send_with_key ended in "send_with_key": quota_empty after 50ms`,
			},
		},
		{
			name:   "the key deadline refuses a retry",
			faults: []psp.Fault{psp.Late(time.Hour)},
			change: func(c *pix.Client) { c.KeyTTL, c.AttemptTimeout = time.Second, 500*time.Millisecond },
			call:   sendWithKey(payment),
			want: []string{
				`send_with_key started in ""`,
				`POST 1 started in "send_with_key"`,
				`POST 1 ended in "send_with_key/POST 1": 0 transient after 500ms, wait 50ms, stop none`,
				`send_with_key ended in "send_with_key": key_expired after 550ms`,
			},
		},
		{
			name:  "Resume resends before the key deadline",
			setup: settle,
			call: func(ctx context.Context, c *pix.Client) error {
				_, err := c.Resume(ctx, &pix.OutcomeUnknownError{Key: "order-1", FirstSent: time.Now()}, payment)
				return err
			},
			want: []string{
				`resume started in ""`,
				`resend started in "resume"`,
				`POST 1 started in "resume/resend"`,
				`POST 1 ended in "resume/resend/POST 1": 201 replayed after 0s, wait 0s, stop success`,
				`resend ended in "resume/resend": replayed after 0s`,
				`resume ended in "resume": replayed after 0s`,
			},
		},
		{
			name:   "Resume looks up a key past its deadline",
			setup:  settle,
			faults: []psp.Fault{{Kind: "status", Status: 503, Target: "lookup"}},
			call:   resume(unknownKey, payment),
			want: []string{
				`resume started in ""`,
				`lookup started in "resume"`,
				`GET 1 started in "resume/lookup"`,
				`GET 1 ended in "resume/lookup/GET 1": 503 transient after 0s, wait 50ms, stop none`,
				`GET 2 started in "resume/lookup"`,
				`GET 2 ended in "resume/lookup/GET 2": 200 lookup_found after 0s, wait 0s, stop success`,
				`lookup ended in "resume/lookup": lookup_found after 50ms`,
				`resume ended in "resume": lookup_found after 50ms`,
			},
		},
		{
			name: "Resume proves nothing was paid",
			call: resume(unknownKey, payment),
			want: []string{
				`resume started in ""`,
				`lookup started in "resume"`,
				`GET 1 started in "resume/lookup"`,
				`GET 1 ended in "resume/lookup/GET 1": 404 lookup_none after 0s, wait 0s, stop permanent`,
				`lookup ended in "resume/lookup": lookup_none after 0s`,
				`resume ended in "resume": lookup_none after 0s`,
			},
		},
		{
			name:  "a rejection, replayed",
			setup: reject,
			call:  sendWithKey(payment),
			want: []string{
				`send_with_key started in ""`,
				`POST 1 started in "send_with_key"`,
				`POST 1 ended in "send_with_key/POST 1": 422 refused after 0s, wait 0s, stop permanent`,
				`send_with_key ended in "send_with_key": refused after 0s`,
			},
		},
		{
			name:  "Lookup finds a rejection",
			setup: reject,
			call: func(ctx context.Context, c *pix.Client) error {
				_, err := c.Lookup(ctx, "order-1")
				return err
			},
			want: []string{
				`lookup started in ""`,
				`GET 1 started in "lookup"`,
				`GET 1 ended in "lookup/GET 1": 200 refused after 0s, wait 0s, stop permanent`,
				`lookup ended in "lookup": refused after 0s`,
			},
		},
		{
			name:  "Lookup finds a settlement",
			setup: settle,
			call: func(ctx context.Context, c *pix.Client) error {
				_, err := c.Lookup(ctx, "order-1")
				return err
			},
			want: []string{
				`lookup started in ""`,
				`GET 1 started in "lookup"`,
				`GET 1 ended in "lookup/GET 1": 200 lookup_found after 0s, wait 0s, stop success`,
				`lookup ended in "lookup": lookup_found after 0s`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				o := &observed{}
				f, c := newFixtureWithClient(t, psp.Config{}, nil, quiet, tt.change, observedBy(o))
				if tt.setup != nil {
					tt.setup(t, f)
				}
				f.psp.Inject(tt.faults...) // after the setup's payment: the faults are the call's
				err := tt.call(t.Context(), c)
				if diff := cmp.Diff(tt.want, o.all()); diff != "" {
					t.Errorf("the Observer's lines (-want +got):\n%s", diff)
				}
				if last := o.calls[len(o.calls)-1]; last.Err != err {
					t.Errorf("CallEnded's Err = %v, want the call's error, %v", last.Err, err)
				}
			})
		})
	}
}

func send(p pix.Payment) func(context.Context, *pix.Client) error {
	return func(ctx context.Context, c *pix.Client) error {
		_, err := c.Send(ctx, p)
		return err
	}
}

func sendWithKey(p pix.Payment) func(context.Context, *pix.Client) error {
	return func(ctx context.Context, c *pix.Client) error {
		_, err := c.SendWithKey(ctx, "order-1", p)
		return err
	}
}

func resume(unknown *pix.OutcomeUnknownError, p pix.Payment) func(context.Context, *pix.Client) error {
	return func(ctx context.Context, c *pix.Client) error {
		_, err := c.Resume(ctx, unknown, p)
		return err
	}
}

func mustQuota(t *testing.T, ratio float64, burst int) *retry.Quota {
	t.Helper()
	q, err := retry.NewQuota(ratio, burst)
	if err != nil {
		t.Fatal(err)
	}
	return q
}
