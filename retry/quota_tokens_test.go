package retry_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/retry"
)

// TestQuotaTokens plays calls one after the other, as TestQuotaSteps does, and reads Tokens
// before the first and after each call: the burst of a new Quota, the ratio each first
// attempt adds up to the capacity, and the token each retry granted takes.
func TestQuotaTokens(t *testing.T) {
	tests := []struct {
		name     string
		quota    *retry.Quota
		failures []int
		want     []float64 // tokens before the first call, then after each
	}{
		{"the zero Quota holds none", &retry.Quota{}, []int{1}, []float64{0, 0}},
		{"burst 0 fills up to one token", mustQuota(t, 0.5, 0), []int{0, 0, 0, 1}, []float64{0, 0.5, 1, 1, 0}},
		{"a refused retry takes nothing", mustQuota(t, 0.1, 2), []int{1, 0, 3}, []float64{2, 1, 1.1, 0.2}},
		{"first attempts fill up to burst", mustQuota(t, 1, 3), []int{3, 0, 0, 0, 0}, []float64{3, 0, 1, 2, 3, 3}},
		{"ratio 0 never refills", mustQuota(t, 0, 2), []int{1, 0, 2}, []float64{2, 1, 1, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				got := []float64{tt.quota.Tokens()}
				for _, f := range tt.failures {
					attemptsPerCall(t, tt.quota, []int{f})
					got = append(got, tt.quota.Tokens())
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("Tokens() before and after each call (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestQuotaTokensIsSafeForConcurrentUse reads Tokens while calls retry against the same Quota
// (go test -race checks the reads), and every read is within [0, capacity].
func TestQuotaTokensIsSafeForConcurrentUse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const burst = 4
		q := mustQuota(t, 0.25, burst)
		p := retry.Policy{AttemptsMax: 3, DelayBase: time.Second, DelayMax: time.Second}
		var wg sync.WaitGroup
		for range 16 {
			wg.Go(func() {
				s := newScript(t, unavailable(), unavailable(), nil)
				retry.Do(context.Background(), p, s.op, retry.WithQuota(q))
			})
			wg.Go(func() {
				if got := q.Tokens(); got < 0 || got > burst {
					t.Errorf("Tokens() = %v, want within [0, %d]", got, burst)
				}
			})
		}
		wg.Wait()
	})
}
