package retrytest

import (
	"slices"
	"testing"
	"time"

	"pixretry/retry"
)

// TestOraclesFollowTheContract grades the oracles on values worked out by hand from the
// contract. retry's property suite holds them against retry.Ceiling and retry.FullJitter over
// every input.
func TestOraclesFollowTheContract(t *testing.T) {
	p := retry.Policy{AttemptsMax: 100, DelayBase: time.Nanosecond, DelayMax: time.Hour}
	for _, tc := range []struct {
		name      string
		got, want time.Duration
	}{
		{"FullJitter(100, 0.5)", FullJitter(100, 0.5), 50},
		{"FullJitter(100, 0)", FullJitter(100, 0), 0},
		{"FullJitter(100, 0.999999999)", FullJitter(100, 0.999999999), 100},
		{"FullJitter(100, 1)", FullJitter(100, 1), 100},
		{"FullJitter(1<<62, 0.5)", FullJitter(1<<62, 0.5), 1 << 61},
		{"Ceiling(1ns..1h, 1)", Ceiling(p, 1), time.Nanosecond},
		{"Ceiling(1ns..1h, 11)", Ceiling(p, 11), 1024 * time.Nanosecond},
		{"Ceiling(1ns..1h, 80)", Ceiling(p, 80), time.Hour},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	for code, want := range map[int]bool{409: true, 429: true, 500: true, 599: true, 501: false, 505: false,
		400: false, 422: false, 201: false, 600: false} {
		if got := TransientStatus(code); got != want {
			t.Errorf("TransientStatus(%d) = %v, want %v", code, got, want)
		}
	}
}

func TestCycleStartsAgainAndRemembers(t *testing.T) {
	c := &Cycle{Draws: []float64{0.25, 0.5}}
	var got []float64
	for range 3 {
		got = append(got, c.Next())
	}
	if want := []float64{0.25, 0.5, 0.25}; !slices.Equal(got, want) || !slices.Equal(c.Taken(), want) {
		t.Errorf("Next() ×3 = %v, Taken() = %v, want %v", got, c.Taken(), want)
	}
}
