package pix_test

import (
	"math"
	"time"

	"pgregory.net/rapid"

	"pixretry/retry"
)

// The generators pix's properties share. Each shrinks toward the plainest case.

// msRange draws a duration from lo to hi milliseconds: counterexamples read in round numbers.
func msRange(lo, hi int) *rapid.Generator[time.Duration] {
	return rapid.Map(rapid.IntRange(lo, hi), func(n int) time.Duration { return time.Duration(n) * time.Millisecond })
}

// durationGen draws a duration from lo to hi.
func durationGen(lo, hi time.Duration) *rapid.Generator[time.Duration] {
	return rapid.Map(rapid.Int64Range(int64(lo), int64(hi)), func(n int64) time.Duration { return time.Duration(n) })
}

// invalidPolicyGen draws a policy that breaks one rule, at its edge or beyond: AttemptsMax
// below 1, a negative delay, DelayMax below DelayBase.
func invalidPolicyGen() *rapid.Generator[retry.Policy] {
	return rapid.Custom(func(t *rapid.T) retry.Policy {
		p := retry.Policy{AttemptsMax: 3, DelayBase: time.Second, DelayMax: 2 * time.Second}
		switch rapid.IntRange(0, 3).Draw(t, "rule broken") {
		case 0:
			p.AttemptsMax = rapid.OneOf(rapid.Just(0), rapid.IntRange(math.MinInt, 0)).Draw(t, "AttemptsMax")
		case 1:
			p.DelayBase = -durationGen(1, time.Hour).Draw(t, "-DelayBase")
		case 2:
			p.DelayBase, p.DelayMax = -2*time.Second, -durationGen(1, time.Second).Draw(t, "-DelayMax")
		case 3:
			p.DelayMax = p.DelayBase - durationGen(1, time.Second).Draw(t, "DelayBase-DelayMax")
		}
		return p
	})
}
