package pix_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

func TestRetryAfterIsHonoured(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy retry.Policy
		fault  psp.Fault
		wantAt []time.Duration // instants of the attempts
	}{
		{
			name:   "a hint longer than the jittered wait is the wait",
			policy: retry.Policy{AttemptsMax: 3, DelayBase: 100 * time.Millisecond, DelayMax: 5 * time.Second},
			fault:  psp.Fault{Kind: "status", Status: 503, RetryAfter: 2 * time.Second},
			wantAt: []time.Duration{0, 2 * time.Second},
		},
		{
			name:   "a hint shorter than the jittered wait changes nothing",
			policy: retry.Policy{AttemptsMax: 3, DelayBase: 4 * time.Second, DelayMax: 8 * time.Second},
			fault:  psp.Fault{Kind: "status", Status: 429, RetryAfter: time.Second},
			wantAt: []time.Duration{0, 2 * time.Second},
		},
		{
			name:   "a hint equal to DelayMax is honoured",
			policy: retry.Policy{AttemptsMax: 3, DelayBase: 100 * time.Millisecond, DelayMax: 3 * time.Second},
			fault:  psp.Fault{Kind: "status", Status: 503, RetryAfter: 3 * time.Second},
			wantAt: []time.Duration{0, 3 * time.Second},
		},
		{
			name:   "a hint beyond DelayMax stops at once",
			policy: retry.Policy{AttemptsMax: 3, DelayBase: 100 * time.Millisecond, DelayMax: time.Second},
			fault:  psp.Fault{Kind: "status", Status: 503, RetryAfter: 2 * time.Second},
			wantAt: []time.Duration{0},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t, psp.Config{})
				f.psp.Inject(tc.fault)
				start := time.Now()

				f.client(func(c *pix.Client) { c.Policy = tc.policy }).Send(t.Context(), payment)

				if diff := cmp.Diff(tc.wantAt, offsets(f.rec.requests(), start)); diff != "" {
					t.Errorf("attempt instants mismatch (-want +got):\n%s", diff)
				}
				if got, want := time.Since(start), tc.wantAt[len(tc.wantAt)-1]; got != want {
					t.Errorf("Send() returned after %v, want %v (the last attempt's instant)", got, want)
				}
			})
		})
	}
}
