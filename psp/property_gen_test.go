package psp_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// msRange draws a duration of lo to hi whole milliseconds.
func msRange(lo, hi int) *rapid.Generator[time.Duration] {
	return rapid.Map(rapid.IntRange(lo, hi), func(n int) time.Duration { return time.Duration(n) * time.Millisecond })
}

// amountGen draws an amount in cents: affordable from balance, at its edge, or beyond it.
func amountGen(balance int64) *rapid.Generator[int64] {
	return rapid.OneOf(
		rapid.Int64Range(1, max(balance, 1)),
		rapid.Int64Range(max(balance-2, 1), balance+2),
		rapid.Int64Range(1, 2*balance+2),
	)
}

// coverage counts, over the runs of a property, the runs in which each event happened, so that
// the test log shows what the generators reach. It is not safe for concurrent use.
type coverage struct {
	runs   int
	events map[string]int
}

// addSeen counts one run, in which the events set true in seen happened.
func (cov *coverage) addSeen(seen map[string]bool) {
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

// require fails t if, over minRuns runs or more, one of events never happened. Give it events of
// a sixth of the runs or more: missing one in a hundred runs is then no accident (0.83^100 ≈
// 10⁻⁸). Fewer runs (go test -short) prove nothing either way and pass.
func (cov *coverage) require(t *testing.T, minRuns int, events ...string) {
	t.Helper()
	for _, e := range events {
		if cov.runs >= minRuns && cov.events[e] == 0 {
			t.Errorf("in %d runs, no %q: the generators no longer reach it", cov.runs, e)
		}
	}
}

// String is one line per event: in how many runs it happened.
func (cov *coverage) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d runs:", cov.runs)
	for _, e := range slices.Sorted(maps.Keys(cov.events)) {
		fmt.Fprintf(&b, "\n  %5d  %s", cov.events[e], e)
	}
	return b.String()
}
