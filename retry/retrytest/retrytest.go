// Package retrytest holds what the property tests of retry and of its callers share: oracles
// that restate retry's contracts as plain rules, computed another way, so that no suite grades
// retry with its own answers; the generators of durations, draws and policies; Cycle, a jitter
// source that replays drawn draws; and Coverage, which shows what the generators reach.
package retrytest

import (
	"fmt"
	"maps"
	"math"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"pixretry/retry"
)

// Ceiling is the ceiling of the wait after attempt n: min(DelayMax, DelayBase·2^(n−1)). It
// doubles step by step and stops at DelayMax, so it cannot overflow.
func Ceiling(p retry.Policy, n int) time.Duration {
	c := p.DelayBase
	for i := 1; i < n && 0 < c && c < p.DelayMax; i++ {
		if c > p.DelayMax/2 {
			return p.DelayMax
		}
		c *= 2
	}
	return min(c, p.DelayMax)
}

// FullJitter is retry.FullJitter's contract: ⌊u·(ceiling+1)⌋ with u counted in whole 2⁻⁵³, in
// big integers. A draw outside [0, 1) gives the ceiling.
func FullJitter(ceiling time.Duration, u float64) time.Duration {
	if !(u >= 0 && u < 1) {
		return ceiling
	}
	draw := new(big.Int).SetUint64(uint64(u * (1 << 53)))
	draw.Mul(draw, new(big.Int).Add(big.NewInt(int64(ceiling)), big.NewInt(1)))
	return time.Duration(draw.Rsh(draw, 53).Int64())
}

// TransientStatus classifies an HTTP answer. A 5xx but 501 and 505, a 429 and a 409 are worth
// another attempt. Every other status is final.
func TransientStatus(code int) bool {
	serverError := code >= 500 && code <= 599 && code != http.StatusNotImplemented &&
		code != http.StatusHTTPVersionNotSupported
	return serverError || code == http.StatusTooManyRequests || code == http.StatusConflict
}

// The generators shrink toward the plainest case.

// Millis draws a whole number of milliseconds from lo to hi, both included: counterexamples
// read in round numbers.
func Millis(lo, hi int) *rapid.Generator[time.Duration] {
	return rapid.Map(rapid.IntRange(lo, hi), func(n int) time.Duration { return time.Duration(n) * time.Millisecond })
}

// Durations draws a duration from lo to hi, both included.
func Durations(lo, hi time.Duration) *rapid.Generator[time.Duration] {
	return rapid.Map(rapid.Int64Range(int64(lo), int64(hi)), func(n int64) time.Duration { return time.Duration(n) })
}

// Draws draws 1 to 4 jitter draws in [0, 1), on the 2⁻⁵³ grid of float64 draws.
func Draws() *rapid.Generator[[]float64] {
	u := rapid.Map(rapid.Uint64Range(0, 1<<53-1), func(k uint64) float64 { return float64(k) / (1 << 53) })
	return rapid.SliceOfN(u, 1, 4)
}

// Cycle is a jitter source (pix.Client.Jitter, retry.WithRand) that hands out Draws in order,
// starting again at the end, and remembers what it handed out. Draws must not be empty. It is
// safe for concurrent use.
type Cycle struct {
	Draws []float64

	mu    sync.Mutex
	taken []float64
}

// Next hands out the next draw.
func (c *Cycle) Next() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.taken = append(c.taken, c.Draws[len(c.taken)%len(c.Draws)])
	return c.taken[len(c.taken)-1]
}

// Taken returns the draws handed out so far.
func (c *Cycle) Taken() []float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.taken)
}

// InvalidPolicy draws a policy that breaks exactly one rule of retry.Policy, at its edge or
// beyond, its other fields as in {AttemptsMax: 3, DelayBase: 1s, DelayMax: 2s}: AttemptsMax 0 or
// below; DelayBase from −1ns to −1h; DelayMax from −1ns to −1s, DelayBase then −2s so that
// DelayMax stays at or above it; or DelayMax below DelayBase (1s) by 1ns to 1s.
func InvalidPolicy() *rapid.Generator[retry.Policy] {
	return rapid.Custom(func(t *rapid.T) retry.Policy {
		p := retry.Policy{AttemptsMax: 3, DelayBase: time.Second, DelayMax: 2 * time.Second}
		switch rapid.IntRange(0, 3).Draw(t, "rule broken") {
		case 0:
			p.AttemptsMax = rapid.OneOf(rapid.Just(0), rapid.IntRange(math.MinInt, 0)).Draw(t, "AttemptsMax")
		case 1:
			p.DelayBase = -Durations(1, time.Hour).Draw(t, "-DelayBase")
		case 2:
			p.DelayBase, p.DelayMax = -2*time.Second, -Durations(1, time.Second).Draw(t, "-DelayMax")
		case 3:
			p.DelayMax = p.DelayBase - Durations(1, time.Second).Draw(t, "DelayBase-DelayMax")
		}
		return p
	})
}

// Coverage counts, over the runs of a property, the runs in which each event happened. The test
// log then shows what the generators reach: a property whose runs never retry proves little.
// The zero Coverage counts no run. It is safe for concurrent use.
type Coverage struct {
	mu     sync.Mutex
	runs   int
	events map[string]int
}

// Add counts one run, in which the events set true in seen happened; an event set false did not.
func (cov *Coverage) Add(seen map[string]bool) {
	cov.mu.Lock()
	defer cov.mu.Unlock()
	if cov.events == nil {
		cov.events = map[string]int{}
	}
	cov.runs++
	for e, happened := range seen {
		if happened {
			cov.events[e]++
		}
	}
}

// Require logs the coverage and fails t if, over minRuns runs or more, one of events never
// happened. Give it events of a sixth of the runs or more: missing one in a hundred runs is then
// no accident (0.83^100 ≈ 10⁻⁸). Fewer runs (go test -short) prove nothing either way and pass.
func (cov *Coverage) Require(t testing.TB, minRuns int, events ...string) {
	t.Helper()
	t.Log(cov)
	cov.mu.Lock()
	defer cov.mu.Unlock()
	for _, e := range events {
		if cov.runs >= minRuns && cov.events[e] == 0 {
			t.Errorf("in %d runs, no %q: the generators no longer reach it", cov.runs, e)
		}
	}
}

// String is one line per event: in how many runs it happened.
func (cov *Coverage) String() string {
	cov.mu.Lock()
	defer cov.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "%d runs:", cov.runs)
	for _, e := range slices.Sorted(maps.Keys(cov.events)) {
		fmt.Fprintf(&b, "\n  %5d  %s", cov.events[e], e)
	}
	return b.String()
}
