package retry_test

import (
	"math/big"
	"net/http"
	"time"

	"pixretry/retry"
)

// The oracles restate retry's contracts as plain rules, computed another way, so that the
// property suite does not grade retry with its own answers.

// ceilingOf is the ceiling of the wait after attempt n: min(DelayMax, DelayBase·2^(n−1)). It
// doubles step by step and stops at DelayMax, so it cannot overflow.
func ceilingOf(p retry.Policy, n int) time.Duration {
	c := p.DelayBase
	for i := 1; i < n && 0 < c && c < p.DelayMax; i++ {
		if c > p.DelayMax/2 {
			return p.DelayMax
		}
		c *= 2
	}
	return min(c, p.DelayMax)
}

// fullJitterOf is retry.FullJitter's contract: ⌊u·(ceiling+1)⌋ with u counted in whole 2⁻⁵³,
// in big integers. A draw outside [0, 1) gives the ceiling.
func fullJitterOf(ceiling time.Duration, u float64) time.Duration {
	if !(u >= 0 && u < 1) {
		return ceiling
	}
	draw := new(big.Int).SetUint64(uint64(u * (1 << 53)))
	draw.Mul(draw, new(big.Int).Add(big.NewInt(int64(ceiling)), big.NewInt(1)))
	return time.Duration(draw.Rsh(draw, 53).Int64())
}

// transientStatusOf classifies an HTTP answer. A 5xx but 501 and 505, a 429 and a 409 are
// worth another attempt. Every other status is final.
func transientStatusOf(code int) bool {
	serverError := code >= 500 && code <= 599 && code != http.StatusNotImplemented &&
		code != http.StatusHTTPVersionNotSupported
	return serverError || code == http.StatusTooManyRequests || code == http.StatusConflict
}
