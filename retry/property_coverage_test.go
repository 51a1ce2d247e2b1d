package retry_test

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// coverage counts, over the runs of a property, the runs in which each event happened. The test
// log then shows what the generators reach: a property whose runs never retry proves little.
// It is not safe for concurrent use.
type coverage struct {
	runs   int
	events map[string]int
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

// String is one line per event: in how many runs it happened.
func (cov *coverage) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d runs:", cov.runs)
	for _, e := range slices.Sorted(maps.Keys(cov.events)) {
		fmt.Fprintf(&b, "\n  %5d  %s", cov.events[e], e)
	}
	return b.String()
}

// violations collects the violations of one check.
type violations []error

func (v *violations) addf(format string, args ...any) { *v = append(*v, fmt.Errorf(format, args...)) }

// err joins the violations, nil when there are none.
func (v violations) err() error { return errors.Join(v...) }
