package retry_test

// The tests of retrytest, the oracles and generators the property tests share, live here, with
// the tests that use them: the mutation pass runs retrytest's mutants against retry's tests.

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"pixretry/retry"
	"pixretry/retry/retrytest"
)

// examples is how many seeded examples the generator tests draw: enough for rapid, which favours
// the ends of a range, to reach each end the tests require.
const examples = 500

// TestRetrytestOraclesFollowTheContract grades the oracles on values worked out by hand from the
// contract. retry's property suite holds them against retry.Ceiling and retry.FullJitter over
// every input.
func TestRetrytestOraclesFollowTheContract(t *testing.T) {
	p := retry.Policy{AttemptsMax: 100, DelayBase: time.Nanosecond, DelayMax: time.Hour}
	policy := func(base, max time.Duration) retry.Policy {
		return retry.Policy{AttemptsMax: 1, DelayBase: base, DelayMax: max}
	}
	for _, tc := range []struct {
		name      string
		got, want time.Duration
	}{
		{"FullJitter(100, 0.5)", retrytest.FullJitter(100, 0.5), 50},
		{"FullJitter(100, 0)", retrytest.FullJitter(100, 0), 0},
		{"FullJitter(100, 0.999999999)", retrytest.FullJitter(100, 0.999999999), 100},
		{"FullJitter(100, 1)", retrytest.FullJitter(100, 1), 100},
		{"FullJitter(1<<62, 0.5)", retrytest.FullJitter(1<<62, 0.5), 1 << 61},
		{"Ceiling(1ns..1h, 1)", retrytest.Ceiling(p, 1), time.Nanosecond},
		{"Ceiling(1ns..1h, 11)", retrytest.Ceiling(p, 11), 1024 * time.Nanosecond},
		{"Ceiling(1ns..1h, 80)", retrytest.Ceiling(p, 80), time.Hour},
		// An odd DelayMax: 2·2 = 4 is below 5, though 2 is ⌊5/2⌋.
		{"Ceiling(2ns..5ns, 2)", retrytest.Ceiling(policy(2, 5), 2), 4},
		{"Ceiling(2ns..5ns, 3)", retrytest.Ceiling(policy(2, 5), 3), 5},
		// At the top of the range, doubling would overflow: the ceiling stops at DelayMax.
		{"Ceiling(max/2+1..max, 2)", retrytest.Ceiling(policy(math.MaxInt64/2+1, math.MaxInt64), 2), math.MaxInt64},
		{"Ceiling(1ns..max, 2)", retrytest.Ceiling(policy(1, math.MaxInt64), 2), 2},
		{"Ceiling(1ns..max, 63)", retrytest.Ceiling(policy(1, math.MaxInt64), 63), 1 << 62},
		{"Ceiling(1ns..max, 64)", retrytest.Ceiling(policy(1, math.MaxInt64), 64), math.MaxInt64},
		// A zero DelayBase doubles to nothing: the ceiling is 0 at once, whatever the attempt.
		{"Ceiling(0..1h, MaxInt)", retrytest.Ceiling(policy(0, time.Hour), math.MaxInt), 0},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	for code, want := range map[int]bool{409: true, 429: true, 500: true, 599: true, 501: false, 505: false,
		400: false, 422: false, 201: false, 600: false} {
		if got := retrytest.TransientStatus(code); got != want {
			t.Errorf("TransientStatus(%d) = %v, want %v", code, got, want)
		}
	}
}

func TestRetrytestCycleStartsAgainAndRemembers(t *testing.T) {
	c := &retrytest.Cycle{Draws: []float64{0.25, 0.5}}
	var got []float64
	for range 3 {
		got = append(got, c.Next())
	}
	if want := []float64{0.25, 0.5, 0.25}; !slices.Equal(got, want) || !slices.Equal(c.Taken(), want) {
		t.Errorf("Next() ×3 = %v, Taken() = %v, want %v", got, c.Taken(), want)
	}
}

// TestRetrytestCycleIsSafeForConcurrentUse takes draws from several goroutines, and reads Taken
// between them: the draws handed out, in the order handed out, still follow the cycle.
func TestRetrytestCycleIsSafeForConcurrentUse(t *testing.T) {
	const goroutines, each = 4, 50
	c := &retrytest.Cycle{Draws: []float64{0.125, 0.25, 0.5}}
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range each {
				c.Next()
				_ = c.Taken()
			}
		})
	}
	wg.Wait()
	want := make([]float64, goroutines*each)
	for i := range want {
		want[i] = c.Draws[i%len(c.Draws)]
	}
	if diff := cmp.Diff(want, c.Taken()); diff != "" {
		t.Errorf("Taken() after %d concurrent Next() (-want +got):\n%s", len(want), diff)
	}
}

// TestRetrytestDurationGeneratorsStayInRange draws Millis and Durations over bounds drawn by
// rapid: every draw lies within them, and Millis draws whole milliseconds.
func TestRetrytestDurationGeneratorsStayInRange(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lo := rapid.IntRange(-1000, 1000).Draw(t, "lo")
		hi := rapid.IntRange(lo, lo+1000).Draw(t, "hi")
		if d := retrytest.Millis(lo, hi).Draw(t, "Millis"); d%time.Millisecond != 0 ||
			d < time.Duration(lo)*time.Millisecond || d > time.Duration(hi)*time.Millisecond {
			t.Fatalf("Millis(%d, %d) drew %v, want whole milliseconds from %dms to %dms", lo, hi, d, lo, hi)
		}
		dlo := rapid.Int64Range(-int64(time.Hour), int64(time.Hour)).Draw(t, "Durations lo")
		dhi := rapid.Int64Range(dlo, dlo+int64(time.Hour)).Draw(t, "Durations hi")
		if d := retrytest.Durations(time.Duration(dlo), time.Duration(dhi)).Draw(t, "Durations"); int64(d) < dlo || int64(d) > dhi {
			t.Fatalf("Durations(%d, %d) drew %d, want it between them", dlo, dhi, d)
		}
	})
}

// TestRetrytestGeneratorsReachTheirEnds draws seeded examples from each generator: each draw lies
// in its range, and both ends of the range come up.
func TestRetrytestGeneratorsReachTheirEnds(t *testing.T) {
	for _, tc := range []struct {
		name    string
		gen     *rapid.Generator[time.Duration]
		lo, hi  time.Duration
		oneStep time.Duration // every draw is a whole number of steps
	}{
		{"Millis(0, 20)", retrytest.Millis(0, 20), 0, 20 * time.Millisecond, time.Millisecond},
		{"Millis(-5, 5)", retrytest.Millis(-5, 5), -5 * time.Millisecond, 5 * time.Millisecond, time.Millisecond},
		{"Durations(1, 1s)", retrytest.Durations(1, time.Second), 1, time.Second, 1},
		{"Durations(-1h, -1)", retrytest.Durations(-time.Hour, -1), -time.Hour, -1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := map[time.Duration]bool{}
			for i := range examples {
				d := tc.gen.Example(i)
				if d < tc.lo || d > tc.hi || d%tc.oneStep != 0 {
					t.Fatalf("Example(%d) = %v, want a multiple of %v from %v to %v", i, d, tc.oneStep, tc.lo, tc.hi)
				}
				got[d] = true
			}
			if !got[tc.lo] || !got[tc.hi] {
				t.Errorf("in %d examples, drew %v: %t, %v: %t, want both ends", examples, tc.lo, got[tc.lo], tc.hi, got[tc.hi])
			}
		})
	}
}

// TestRetrytestDrawsStayOnTheGrid draws seeded examples from Draws: 1 to 4 draws, each a whole
// multiple of 2⁻⁵³ in [0, 1), with 0, the largest draw below 1, 1 draw and 4 draws all reached.
func TestRetrytestDrawsStayOnTheGrid(t *testing.T) {
	const last = 1 - 1.0/(1<<53)
	got := map[string]bool{}
	for i := range examples {
		draws := retrytest.Draws().Example(i)
		if n := len(draws); n < 1 || n > 4 {
			t.Fatalf("Example(%d) = %v: %d draws, want 1 to 4", i, draws, n)
		}
		got[fmt.Sprintf("%d draws", len(draws))] = true
		for _, u := range draws {
			if k := u * (1 << 53); !(u >= 0 && u < 1) || k != math.Trunc(k) {
				t.Fatalf("Example(%d) = %v: draw %v, want a whole multiple of 2⁻⁵³ in [0, 1)", i, draws, u)
			}
			got["0"] = got["0"] || u == 0
			got["1-2⁻⁵³"] = got["1-2⁻⁵³"] || u == last
		}
	}
	want := map[string]bool{"0": true, "1-2⁻⁵³": true, "1 draws": true, "2 draws": true, "3 draws": true, "4 draws": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("in %d examples, reached (-want +got):\n%s", examples, diff)
	}
}

// TestRetrytestInvalidPolicyBreaksOneRule draws seeded examples from InvalidPolicy: each is
// invalid, has the shape of exactly one of the rules it may break, and every shape comes up, at
// its edge as well.
func TestRetrytestInvalidPolicyBreaksOneRule(t *testing.T) {
	shapes := []struct {
		name       string
		is, atEdge func(p retry.Policy) bool
	}{
		{"AttemptsMax below 1",
			func(p retry.Policy) bool {
				return p.AttemptsMax < 1 && p.DelayBase == time.Second && p.DelayMax == 2*time.Second
			},
			func(p retry.Policy) bool { return p.AttemptsMax == 0 }},
		{"negative DelayBase",
			func(p retry.Policy) bool {
				return p.AttemptsMax == 3 && -time.Hour <= p.DelayBase && p.DelayBase < 0 && p.DelayMax == 2*time.Second
			},
			func(p retry.Policy) bool { return p.DelayBase == -1 }},
		{"negative DelayMax",
			func(p retry.Policy) bool {
				return p.AttemptsMax == 3 && p.DelayBase == -2*time.Second && -time.Second <= p.DelayMax && p.DelayMax < 0
			},
			func(p retry.Policy) bool { return p.DelayMax == -1 }},
		{"DelayMax below DelayBase",
			func(p retry.Policy) bool {
				return p.AttemptsMax == 3 && p.DelayBase == time.Second && 0 <= p.DelayMax && p.DelayMax < time.Second
			},
			func(p retry.Policy) bool { return p.DelayMax == time.Second-1 }},
	}
	got := map[string]bool{}
	for i := range examples {
		p := retrytest.InvalidPolicy().Example(i)
		if err := p.Validate(); err == nil {
			t.Fatalf("Example(%d) = %+v: Validate() = nil, want an error", i, p)
		}
		var is []string
		for _, s := range shapes {
			if s.is(p) {
				is = append(is, s.name)
				got[s.name] = true
				got[s.name+", at its edge"] = got[s.name+", at its edge"] || s.atEdge(p)
			}
		}
		if len(is) != 1 {
			t.Fatalf("Example(%d) = %+v breaks %q, want exactly one rule", i, p, is)
		}
	}
	want := map[string]bool{}
	for _, s := range shapes {
		want[s.name], want[s.name+", at its edge"] = true, true
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("in %d examples, reached (-want +got):\n%s", examples, diff)
	}
}

// fakeTB is the testing.TB that Coverage.Require is handed: it records what Require reports.
// The methods it leaves to the nil TB inside panic, so Require may call no other.
type fakeTB struct {
	testing.TB
	helper, failedNow   bool
	logs, errors, fatal []string
}

func (f *fakeTB) Helper()         { f.helper = true }
func (f *fakeTB) Log(args ...any) { f.logs = append(f.logs, fmt.Sprint(args...)) }
func (f *fakeTB) FailNow()        { f.failedNow = true }
func (f *fakeTB) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.fatal = append(f.fatal, fmt.Sprintf(format, args...))
}

// TestRetrytestCoverageRequire counts runs with Add, then asks Require for events: it fails the
// test for each event that never happened in minRuns runs or more, and never over fewer runs.
func TestRetrytestCoverageRequire(t *testing.T) {
	for _, tc := range []struct {
		name       string
		runs       []map[string]bool
		minRuns    int
		events     []string
		wantLog    string
		wantErrors []string
	}{
		{"no run, none needed", nil, 0, []string{"retry"},
			"0 runs:", []string{`in 0 runs, no "retry": the generators no longer reach it`}},
		{"no run, one needed", nil, 1, []string{"retry"}, "0 runs:", nil},
		{"every event seen", []map[string]bool{{"retry": true}, {"stop": true, "retry": true}}, 2,
			[]string{"retry", "stop"}, "2 runs:\n      2  retry\n      1  stop", nil},
		{"an event missing at minRuns", []map[string]bool{{"retry": true}, {"retry": true}}, 2,
			[]string{"retry", "stop"}, "2 runs:\n      2  retry",
			[]string{`in 2 runs, no "stop": the generators no longer reach it`}},
		{"an event missing over fewer runs", []map[string]bool{{"retry": true}, {"retry": true}}, 3,
			[]string{"retry", "stop"}, "2 runs:\n      2  retry", nil},
		{"an event set false never happened", []map[string]bool{{"retry": true, "stop": false}, {"stop": false}}, 2,
			[]string{"stop", "retry"}, "2 runs:\n      1  retry",
			[]string{`in 2 runs, no "stop": the generators no longer reach it`}},
		{"every event missing", []map[string]bool{{}, {}, {}}, 1,
			[]string{"retry", "stop"}, "3 runs:", []string{
				`in 3 runs, no "retry": the generators no longer reach it`,
				`in 3 runs, no "stop": the generators no longer reach it`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cov retrytest.Coverage
			for _, seen := range tc.runs {
				cov.Add(seen)
			}
			tb := &fakeTB{}
			cov.Require(tb, tc.minRuns, tc.events...)
			if !tb.helper {
				t.Errorf("Require did not call t.Helper: its failures would point into retrytest")
			}
			if diff := cmp.Diff([]string{tc.wantLog}, tb.logs); diff != "" {
				t.Errorf("Require logged (-want +got):\n%s", diff)
			}
			if len(tb.fatal) > 0 || tb.failedNow {
				t.Errorf("Require stopped the test (%q): it must report every event missing", tb.fatal)
			}
			if diff := cmp.Diff(tc.wantErrors, tb.errors); diff != "" {
				t.Errorf("Require reported (-want +got):\n%s", diff)
			}
			// Require lets go of the Coverage: it can be read and counted again.
			if got, want := cov.String(), tc.wantLog; got != want {
				t.Errorf("String() after Require = %q, want %q", got, want)
			}
		})
	}
}

// TestRetrytestCoverageCountsConcurrentRuns adds runs from several goroutines, as a parallel
// property does.
func TestRetrytestCoverageCountsConcurrentRuns(t *testing.T) {
	const goroutines, each = 4, 25
	var cov retrytest.Coverage
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for range each {
				cov.Add(map[string]bool{"retry": true, "stop": g == 0})
			}
		})
	}
	wg.Wait()
	if got, want := cov.String(), "100 runs:\n    100  retry\n     25  stop"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
