package properties

import (
	"net/http"
	"testing"
	"time"

	"pixretry/retry"
)

// TestOraclesFollowTheContract grades the oracles the invariants grade with, on values worked
// out by hand from the contract. retry's own property suite holds the same rules against
// retry.Ceiling and retry.FullJitter over every input.
func TestOraclesFollowTheContract(t *testing.T) {
	at := time.Date(2026, 1, 2, 10, 0, 0, 5e8, time.UTC)
	for _, tc := range []struct {
		retryAfter string
		want       time.Duration
	}{
		{"7", 7 * time.Second}, {"0", 0}, {"-3", 0}, {"soon", 0}, {"", 0},
		{at.Add(30 * time.Second).Format(http.TimeFormat), 29500 * time.Millisecond},
		{at.Add(-time.Minute).Format(http.TimeFormat), 0},
	} {
		if got := hintOf(Trip{End: at, RetryAfter: tc.retryAfter}); got != tc.want {
			t.Errorf("hintOf(Retry-After %q) = %v, want %v", tc.retryAfter, got, tc.want)
		}
	}
	for _, tc := range []struct {
		ceiling time.Duration
		u       float64
		want    time.Duration
	}{
		{100, 0.5, 50}, {100, 0, 0}, {100, 0.999999999, 100}, {100, 1, 100}, {1 << 62, 0.5, 1 << 61},
	} {
		if got := fullJitterOf(tc.ceiling, tc.u); got != tc.want {
			t.Errorf("fullJitterOf(%d, %v) = %d, want %d", tc.ceiling, tc.u, got, tc.want)
		}
	}
	p := retry.Policy{AttemptsMax: 100, DelayBase: time.Nanosecond, DelayMax: time.Hour}
	for n, want := range map[int]time.Duration{1: time.Nanosecond, 11: 1024 * time.Nanosecond, 80: time.Hour} {
		if got := ceilingOf(p, n); got != want {
			t.Errorf("ceilingOf(%+v, %d) = %v, want %v", p, n, got, want)
		}
	}
}
