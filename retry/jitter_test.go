package retry_test

import (
	"math"
	"math/big"
	"testing"
	"time"

	"pgregory.net/rapid"

	"pixretry/retry"
)

func TestFullJitterExactWaits(t *testing.T) {
	const maxDuration = time.Duration(math.MaxInt64)
	tests := []struct {
		ceiling time.Duration
		u       float64
		want    time.Duration
	}{
		{10, 0, 0},
		{10, 0.5, 5},        // ⌊0.5·11⌋
		{10, almostOne, 10}, // the ceiling is reachable
		{10, 1e-300, 0},
		{2, 1.0 / 3, 0}, // float64(1/3) is just below a third: ⌊3u⌋ = 0
		{2, 2.0 / 3, 1}, // float64(2/3) is just below two thirds: ⌊3u⌋ = 1
		{time.Second, 0.25, 250 * time.Millisecond},
		{2 * time.Second, 0.75, 1500 * time.Millisecond},
		{0, 0, 0},
		{0, 0.5, 0},
		{0, almostOne, 0},
		{1<<53 - 1, almostOne, 1<<53 - 1},
		{1 << 53, almostOne, 1<<53 - 1}, // past 2^53 the draw's resolution shows
		{maxDuration, 0, 0},
		{maxDuration, 0.5, 1 << 62},
		{maxDuration, almostOne, maxDuration - 1023}, // (1−2^−53)·2^63, not wrapped
		// Draws outside [0, 1) give the ceiling.
		{10, 1, 10},
		{10, 2, 10},
		{10, -0.5, 10},
		{10, math.Inf(1), 10},
		{10, math.Inf(-1), 10},
		{10, math.NaN(), 10},
		{maxDuration, 1, maxDuration},
		// A negative ceiling counts as 0.
		{-5, 0.5, 0},
		{-5, math.NaN(), 0},
		{math.MinInt64, almostOne, 0},
	}
	for _, tt := range tests {
		if got := retry.FullJitter(tt.ceiling, tt.u); got != tt.want {
			t.Errorf("FullJitter(%d, %v) = %d, want %d", tt.ceiling, tt.u, got, tt.want)
		}
	}
}

// TestFullJitterIsUniform sweeps evenly spaced draws over [0, 1) and counts
// the waits: every wait in [0, ceiling] gets the same share, to within one.
func TestFullJitterIsUniform(t *testing.T) {
	const ceiling, steps = 9, 1 << 20
	var counts [ceiling + 1]int
	for i := range steps {
		counts[retry.FullJitter(ceiling, float64(i)/steps)]++
	}
	lo, hi := steps/(ceiling+1), steps/(ceiling+1)+1
	for wait, got := range counts {
		if got < lo || got > hi {
			t.Errorf("wait %d drawn %d times out of %d, want %d or %d", wait, got, steps, lo, hi)
		}
	}
}

// TestFullJitterMatchesExactArithmetic checks FullJitter against
// ⌊⌊u·2^53⌋·(ceiling+1)/2^53⌋ computed with unbounded integers.
func TestFullJitterMatchesExactArithmetic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ceiling := rapid.Int64Range(0, math.MaxInt64).Draw(t, "ceiling")
		u := rapid.Float64Range(0, almostOne).Draw(t, "u")

		draw, _ := new(big.Float).SetMantExp(big.NewFloat(u), 53).Int(nil) // ⌊u·2^53⌋, exact
		want := draw.Mul(draw, new(big.Int).Add(big.NewInt(ceiling), big.NewInt(1)))
		want.Rsh(want, 53)
		if got := retry.FullJitter(time.Duration(ceiling), u); int64(got) != want.Int64() {
			t.Fatalf("FullJitter(%d, %v) = %d, want %d", ceiling, u, got, want)
		}
	})
}

// TestFullJitterStaysInBounds feeds FullJitter any ceiling and any draw, NaN
// and infinities included: the wait is never negative and never above the
// ceiling.
func TestFullJitterStaysInBounds(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ceiling := time.Duration(rapid.Int64().Draw(t, "ceiling"))
		u := rapid.OneOf(rapid.Float64(), rapid.SampledFrom([]float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1)})).Draw(t, "u")
		if got := retry.FullJitter(ceiling, u); got < 0 || got > max(ceiling, 0) {
			t.Fatalf("FullJitter(%d, %v) = %d, outside [0, %d]", ceiling, u, got, max(ceiling, 0))
		}
	})
}
