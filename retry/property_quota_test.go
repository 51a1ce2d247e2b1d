package retry_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"pixretry/retry"
	"pixretry/retry/retrytest"
)

// TestQuotaKeepsItsBound: calls to retry.Do share a quota, with any ratio, burst, policy and
// outcomes. Made one after the other, the retries the quota grants and refuses are those of its
// model (quotaBucket), which keeps the bound of its doc and refuses only what would break it: the
// run brings exactly the events the model gives for the retries the calls ask for. The same calls
// made at once by 2 to 8 goroutines, with jittered waits that interleave their attempts, keep the
// bound over the whole run in whatever order the scheduler gives (checkQuotaTotals), and refuse
// nothing when they ask for no more than burst retries. Every call makes its first attempt. A
// refused call ends at once with ErrQuotaExhausted and its last attempt's error.
func TestQuotaKeepsItsBound(t *testing.T) {
	var cov retrytest.Coverage
	rapid.Check(t, func(t *rapid.T) {
		sc := quotaScenarioGen().Draw(t, "scenario")
		goroutines, seed := rapid.IntRange(2, 8).Draw(t, "goroutines"), rapid.Uint64().Draw(t, "jitter seed")
		rapid.SyncTest(t, func(t *rapid.T) {
			trace, concurrent := runQuotaCalls(t, sc, 1, seed), runQuotaCalls(t, sc, goroutines, seed)
			cov.Add(quotaEvents(sc, trace, concurrent))
			if err := diffQuota(trace, newQuotaBucket(sc.limits).replay(sc.demand())); err != nil {
				t.Fatalf("one call after the other: %v", err)
			}
			if err := sc.limits.checkQuotaTotals(concurrent); err != nil {
				t.Fatalf("%d calls at once: %v", goroutines, err)
			}
			asked := len(sc.demand()) - len(sc.calls)
			if refusals := count(concurrent, quotaRefused); asked <= sc.limits.burst && refusals > 0 {
				t.Fatalf("%d retries refused, yet the calls asked for %d, within burst %d", refusals, asked, sc.limits.burst)
			}
		})
	})
	cov.Require(t, 100, "quota: retry granted", "quota: retry refused", "quota: granted after a refusal",
		"quota: every retry asked for granted", "quota: at once, retry granted", "quota: at once, retry refused")
}

// quotaOutcome is what an attempt returns: a success, a 503 (transient), a 503 whose
// Retry-After passes any DelayMax (Do stops), or a 422 (permanent).
type quotaOutcome int

const (
	quotaSucceeds quotaOutcome = iota
	quotaFails
	quotaWaitLong
	quotaIsRefused
)

func (o quotaOutcome) err() error {
	return [...]error{nil, &statusError{code: 503}, &statusError{code: 503, after: time.Hour},
		&statusError{code: 422}}[o]
}

// quotaScenario is calls sharing one quota: calls[i][n] is what attempt n+1 of call i returns.
type quotaScenario struct {
	limits quotaLimits
	policy retry.Policy
	calls  [][]quotaOutcome
}

// quotaScenarioGen draws a ratio (round and arbitrary ones), a burst of 0 to 6, AttemptsMax 1
// to 5, delays up to half a second and 1 to 60 calls. The share of failing attempts changes once,
// at a drawn call: some runs stay within the ratio, others go far beyond it, some exhaust the
// quota and then refill it.
func quotaScenarioGen() *rapid.Generator[quotaScenario] {
	return rapid.Custom(func(t *rapid.T) quotaScenario {
		ratio := rapid.OneOf(rapid.SampledFrom([]float64{0, 0.1, 0.25, 1.0 / 3, 0.5, 1, 2}),
			rapid.Float64Range(0, 3)).Draw(t, "ratio")
		sc := quotaScenario{limits: quotaLimits{ratio: ratio, burst: rapid.IntRange(0, 6).Draw(t, "burst")},
			policy: retry.Policy{AttemptsMax: rapid.IntRange(1, 5).Draw(t, "AttemptsMax"),
				DelayBase: retrytest.Millis(0, 100).Draw(t, "DelayBase")}}
		sc.policy.DelayMax = sc.policy.DelayBase + retrytest.Millis(0, 400).Draw(t, "DelayMax-DelayBase")
		shares := rapid.SampledFrom([]int{0, 5, 10, 20, 40, 70, 100})
		before, after := shares.Draw(t, "percent failing"), shares.Draw(t, "percent failing after the change")
		sc.calls = make([][]quotaOutcome, rapid.IntRange(1, 60).Draw(t, "calls"))
		change := rapid.IntRange(0, len(sc.calls)).Draw(t, "call at which the share changes")
		failure := rapid.SampledFrom([]quotaOutcome{quotaFails, quotaFails, quotaFails, quotaWaitLong, quotaIsRefused})
		for i := range sc.calls {
			failing := before
			if i >= change {
				failing = after
			}
			outcome := rapid.Custom(func(t *rapid.T) quotaOutcome {
				if rapid.IntRange(0, 99).Draw(t, "roll") >= failing {
					return quotaSucceeds
				}
				return failure.Draw(t, "failure")
			})
			sc.calls[i] = rapid.SliceOfN(outcome, sc.policy.AttemptsMax, sc.policy.AttemptsMax).Draw(t, fmt.Sprint("call ", i))
		}
		return sc
	})
}

// demand is the run with no quota: the events the calls would bring, none refused.
func (sc quotaScenario) demand() []quotaEvent {
	var trace []quotaEvent
	for _, call := range sc.calls {
		trace = append(trace, quotaFirst)
		for i := 0; i < len(call)-1 && call[i] == quotaFails; i++ {
			trace = append(trace, quotaRetry)
		}
	}
	return trace
}

// runQuotaCalls deals sc's calls in turn to goroutines that make them at once, through one quota.
// It returns the events the quota saw, a call's together, in the order the calls ended: the
// quota's own order when there is one goroutine. It fails t if a call skipped its first attempt or
// ended wrongly after a refusal.
func runQuotaCalls(t *rapid.T, sc quotaScenario, goroutines int, seed uint64) []quotaEvent {
	q, err := retry.NewQuota(sc.limits.ratio, sc.limits.burst)
	if err != nil {
		t.Fatalf("NewQuota(%v, %d) error = %v", sc.limits.ratio, sc.limits.burst, err)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	var trace []quotaEvent
	var v violations
	for g := range goroutines {
		jitter := rand.New(rand.NewPCG(seed, uint64(g))).Float64
		wg.Go(func() {
			for i := g; i < len(sc.calls); i += goroutines {
				var observed recorder
				op := func(context.Context) (int, error) { return 0, sc.calls[i][len(observed.seen)].err() }
				_, err := retry.Do(context.Background(), sc.policy, op, retry.WithQuota(q), retry.WithRand(jitter),
					observed.option())
				mu.Lock()
				trace = append(trace, callEvents(&v, i, observed.seen, err)...)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := v.err(); err != nil {
		t.Fatal(err)
	}
	return trace
}

// callEvents are the events the quota saw in call i, from the attempts the observer saw and the
// error Do returned.
func callEvents(v *violations, i int, seen []retry.Attempt, err error) []quotaEvent {
	if len(seen) == 0 {
		v.addf("call %d made no attempt", i)
		return nil
	}
	last := seen[len(seen)-1]
	if last.Stop == retry.StopQuota && (!errors.Is(err, retry.ErrQuotaExhausted) || !errors.Is(err, last.Err)) {
		v.addf("call %d: Do() error = %v after a refusal, want ErrQuotaExhausted and %v", i, err, last.Err)
	}
	events := []quotaEvent{quotaFirst}
	for _, a := range seen {
		if e, ok := map[retry.Stop]quotaEvent{retry.StopNone: quotaRetry, retry.StopQuota: quotaRefused}[a.Stop]; ok {
			events = append(events, e)
		}
	}
	return events
}

// quotaEvents names what happened in a run, for coverage.
func quotaEvents(sc quotaScenario, trace, concurrent []quotaEvent) map[string]bool {
	firstRefusal := slices.Index(trace, quotaRefused)
	asked := len(sc.demand()) - len(sc.calls)
	return map[string]bool{
		"quota: retry granted":                 count(trace, quotaRetry) > 0,
		"quota: retry refused":                 firstRefusal >= 0,
		"quota: granted after a refusal":       firstRefusal >= 0 && slices.Contains(trace[firstRefusal:], quotaRetry),
		"quota: every retry asked for granted": asked > 0 && count(trace, quotaRetry) == asked,
		"quota: at once, retry granted":        count(concurrent, quotaRetry) > 0,
		"quota: at once, retry refused":        count(concurrent, quotaRefused) > 0,
	}
}

// count is how many times e occurs in trace.
func count(trace []quotaEvent, e quotaEvent) int {
	n := 0
	for _, got := range trace {
		if got == e {
			n++
		}
	}
	return n
}

// TestNewQuotaChecksItsLimits: NewQuota accepts exactly a finite ratio ≥ 0 and a burst ≥ 0, the
// largest float64 included, and refuses the rest with ErrInvalidPolicy. The edges are checked
// on every run, then random values.
func TestNewQuotaChecksItsLimits(t *testing.T) {
	edges := []float64{0, math.Copysign(0, -1), -math.SmallestNonzeroFloat64, -1, math.MaxFloat64, -math.MaxFloat64,
		math.Inf(1), math.Inf(-1), math.NaN()}
	for _, ratio := range edges {
		for _, burst := range []int{math.MinInt, -1, 0, 1, math.MaxInt} {
			if err := checkNewQuota(ratio, burst); err != nil {
				t.Fatal(err)
			}
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		ratio := rapid.OneOf(rapid.Float64(), rapid.SampledFrom(edges)).Draw(t, "ratio")
		if err := checkNewQuota(ratio, rapid.Int().Draw(t, "burst")); err != nil {
			t.Fatal(err)
		}
	})
}

// checkNewQuota checks NewQuota(ratio, burst) against its contract.
func checkNewQuota(ratio float64, burst int) error {
	valid := !math.IsNaN(ratio) && !math.IsInf(ratio, 0) && ratio >= 0 && burst >= 0
	q, err := retry.NewQuota(ratio, burst)
	if valid && (err != nil || q == nil) || !valid && (!errors.Is(err, retry.ErrInvalidPolicy) || q != nil) {
		return fmt.Errorf("NewQuota(%v, %d) = %v, %v; want a quota if valid (%v), else nil and ErrInvalidPolicy",
			ratio, burst, q, err, valid)
	}
	return nil
}
