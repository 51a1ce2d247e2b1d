package retry_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"pgregory.net/rapid"

	"pixretry/retry"
)

// TestCeilingAndFullJitterFollowTheirContract: Ceiling is min(DelayMax, DelayBase·2^(n−1)) for
// every n (below 1 counting as 1) and valid policy. FullJitter is ⌊u·(ceiling+1)⌋ for every
// draw (outside [0, 1), NaN included, the ceiling) and every ceiling (a negative one as 0).
func TestCeilingAndFullJitterFollowTheirContract(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := edgePolicyGen().Draw(t, "policy")
		n := rapid.OneOf(rapid.IntRange(math.MinInt, 1), rapid.IntRange(1, 200), rapid.IntRange(1, math.MaxInt)).Draw(t, "n")
		if got, want := retry.Ceiling(p, n), ceilingOf(p, max(n, 1)); got != want {
			t.Fatalf("Ceiling(%+v, %d) = %v, want %v", p, n, got, want)
		}
		ceiling := rapid.OneOf(durationGen(-time.Hour, 0), durationGen(0, 48*time.Hour),
			durationGen(0, math.MaxInt64-1)).Draw(t, "ceiling")
		u := rapid.OneOf(rapid.Float64Range(0, 1), rapid.Float64(), rapid.SampledFrom([]float64{0, 1,
			math.Nextafter(1, 0), math.Copysign(0, -1), math.NaN(), math.Inf(1)})).Draw(t, "u")
		if got, want := retry.FullJitter(ceiling, u), fullJitterOf(max(ceiling, 0), u); got != want {
			t.Fatalf("FullJitter(%v, %v) = %v, want %v", ceiling, u, got, want)
		}
	})
}

// TestStopNames: each reason reads as its documented name, and any other value as "Stop(n)".
func TestStopNames(t *testing.T) {
	names := []string{"none", "success", "permanent", "budget", "retry-after", "context", "quota"}
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.IntRange(-1000, 1000).Draw(t, "stop")
		want := fmt.Sprintf("Stop(%d)", s)
		if s >= 0 && s < len(names) {
			want = names[s]
		}
		if got := retry.Stop(s).String(); got != want {
			t.Fatalf("Stop(%d).String() = %q, want %q", s, got, want)
		}
	})
}
