package retry

import (
	"math/bits"
	"time"
)

// FullJitter maps a uniform draw u in [0, 1) to a wait in [0, ceiling], both ends included.
// It computes ⌊u·(ceiling+1)⌋ exactly in integers, so equal draws give equal waits. u counts in
// steps of 2^−53, the resolution of math/rand/v2's Float64. A draw just below 1 thus gives the
// ceiling itself whenever the ceiling is below 2^53 ns (about 104 days).
//
// A negative ceiling counts as 0. A draw outside [0, 1), NaN included, gives the ceiling. A
// broken source of draws can make retries slower, never a storm.
func FullJitter(ceiling time.Duration, u float64) time.Duration {
	ceiling = max(ceiling, 0)
	if !(u >= 0 && u < 1) {
		return ceiling
	}
	draw := uint64(u * (1 << 53)) // u in units of 2^−53, below 2^53
	// ceiling+1 <= 2^63 fits in a uint64, and the 128-bit product cannot
	// overflow; dividing it by 2^53 leaves a value <= ceiling.
	hi, lo := bits.Mul64(draw, uint64(ceiling)+1)
	return time.Duration(hi<<(64-53) | lo>>53)
}
