package properties

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"pixretry/retry"
)

// TestQuotaBoundsRetries: calls to retry.Do one after the other, sharing a quota, with any
// ratio, burst, policy and outcomes. From creation, the retries made are at most burst + ratio
// × the first attempts, and in every stretch of the events the quota saw, at most capacity +
// ratio × the first attempts (capacity: burst, but at least one); every call makes its first
// attempt; a refused call ends at once with ErrQuotaExhausted and its last attempt's error.
func TestQuotaBoundsRetries(t *testing.T) {
	checkQuotaRuns(t, func(t *rapid.T, sc quotaScenario, trace []quotaEvent) {
		if err := sc.limits.checkQuotaBound(trace); err != nil {
			t.Fatalf("the quota's bound broken: %v\ntrace: %v", err, trace)
		}
	}, "quota: retry granted", "quota: retry refused", "quota: granted after a refusal")
}

// TestQuotaRefusesOnlyWhenItMust is the converse, over the same runs: a refused retry would
// have broken a clause of the bound, from creation or on a stretch ending with it. So when the
// retries the calls ask for keep the bound, none is refused and every call makes all its
// retries.
func TestQuotaRefusesOnlyWhenItMust(t *testing.T) {
	checkQuotaRuns(t, func(t *rapid.T, sc quotaScenario, trace []quotaEvent) {
		if err := sc.limits.checkQuotaRefusals(trace); err != nil {
			t.Fatalf("a refusal the bound did not call for: %v\ntrace: %v", err, trace)
		}
		if demand := sc.demand(); sc.limits.demandFits(demand) && fmt.Sprint(trace) != fmt.Sprint(demand) {
			t.Fatalf("the retries asked for fit the bound, yet the run differs from them\ngot:  %v\nwant: %v", trace, demand)
		}
	}, "quota: every retry asked for fits", "quota: retry refused", "quota: retry granted")
}

// checkQuotaRuns is a property over sequential runs: it draws a scenario, runs it, hands the
// trace to check, and requires that the runs reach events.
func checkQuotaRuns(t *testing.T, check func(*rapid.T, quotaScenario, []quotaEvent), events ...string) {
	var cov coverage
	rapid.Check(t, func(t *rapid.T) {
		sc := quotaScenarioGen().Draw(t, "scenario")
		rapid.SyncTest(t, func(t *rapid.T) { // a wait Do should never take passes in virtual time
			trace := runQuotaScenario(t, sc)
			cov.addSeen(quotaEvents(sc, trace))
			check(t, sc, trace)
		})
	})
	t.Log(&cov)
	cov.require(t, 100, events...)
}

// quotaOutcome is what one attempt of a call returns.
type quotaOutcome int

const (
	quotaSucceeds  quotaOutcome = iota
	quotaFails                  // 503: transient
	quotaWaitLong               // 503 with a Retry-After beyond any DelayMax: Do stops
	quotaIsRefused              // 422: permanent
)

// quotaFailure is a failed attempt's error, as an HTTP client would report it.
type quotaFailure struct {
	status int
	after  time.Duration
}

func (e *quotaFailure) Error() string             { return fmt.Sprintf("status %d", e.status) }
func (e *quotaFailure) StatusCode() int           { return e.status }
func (e *quotaFailure) RetryAfter() time.Duration { return e.after }

func (o quotaOutcome) err() error {
	switch o {
	case quotaFails:
		return &quotaFailure{status: 503}
	case quotaWaitLong:
		return &quotaFailure{status: 503, after: time.Hour}
	case quotaIsRefused:
		return &quotaFailure{status: 422}
	}
	return nil
}

// quotaScenario is calls sharing one quota: calls[i][n] is what attempt n+1 of call i returns.
type quotaScenario struct {
	limits quotaLimits
	policy retry.Policy
	calls  [][]quotaOutcome
}

// quotaScenarioGen draws a ratio (round and arbitrary ones), a burst of 0 to 6, AttemptsMax 1
// to 5 and 1 to 60 calls. Each run has its own share of failing attempts, which changes once
// at a drawn call (an outage that begins or ends), so that some runs stay within the ratio,
// others go far beyond it, and some exhaust the quota and then refill it.
func quotaScenarioGen() *rapid.Generator[quotaScenario] {
	return rapid.Custom(func(t *rapid.T) quotaScenario {
		ratio := rapid.OneOf(rapid.SampledFrom([]float64{0, 0.1, 0.25, 1.0 / 3, 0.5, 1, 2}),
			rapid.Float64Range(0, 3)).Draw(t, "ratio")
		sc := quotaScenario{
			limits: quotaLimits{ratio: ratio, burst: rapid.IntRange(0, 6).Draw(t, "burst")},
			policy: retry.Policy{AttemptsMax: rapid.IntRange(1, 5).Draw(t, "AttemptsMax")},
		}
		shares := rapid.SampledFrom([]int{0, 5, 10, 20, 40, 70, 100})
		before, after := shares.Draw(t, "percent failing"), shares.Draw(t, "percent failing after the change")
		sc.calls = make([][]quotaOutcome, rapid.IntRange(1, 60).Draw(t, "calls"))
		change := rapid.IntRange(0, len(sc.calls)).Draw(t, "call at which the share changes")
		for i := range sc.calls {
			failing := before
			if i >= change {
				failing = after
			}
			sc.calls[i] = rapid.SliceOfN(outcomeGen(failing), sc.policy.AttemptsMax, sc.policy.AttemptsMax).Draw(t,
				fmt.Sprintf("call %d", i))
		}
		return sc
	})
}

// outcomeGen draws an attempt's outcome, a failure in percent cases out of a hundred; most
// failures are transient.
func outcomeGen(percent int) *rapid.Generator[quotaOutcome] {
	return rapid.Custom(func(t *rapid.T) quotaOutcome {
		if rapid.IntRange(0, 99).Draw(t, "roll") >= percent {
			return quotaSucceeds
		}
		return rapid.SampledFrom([]quotaOutcome{quotaFails, quotaFails, quotaFails, quotaWaitLong, quotaIsRefused}).Draw(t,
			"failure")
	})
}

// demand is the run with no quota: the events the calls would bring, none refused.
func (sc quotaScenario) demand() []quotaEvent {
	var trace []quotaEvent
	for _, call := range sc.calls {
		trace = append(trace, quotaFirst)
		for _, o := range call[:len(call)-1] {
			if o != quotaFails {
				break
			}
			trace = append(trace, quotaRetry)
		}
	}
	return trace
}

// runQuotaScenario makes the calls one after the other and returns the events the quota saw,
// from what the observer saw. It fails t if a call skipped its first attempt or ended wrongly
// after a refusal.
func runQuotaScenario(t *rapid.T, sc quotaScenario) []quotaEvent {
	q, err := retry.NewQuota(sc.limits.ratio, sc.limits.burst)
	if err != nil {
		t.Fatalf("NewQuota(%v, %d) error = %v", sc.limits.ratio, sc.limits.burst, err)
	}
	var trace []quotaEvent
	for i, call := range sc.calls {
		var seen []retry.Attempt
		op := func(context.Context) (int, error) { return 0, call[len(seen)].err() }
		_, err := retry.Do(context.Background(), sc.policy, op, retry.WithQuota(q),
			retry.WithObserver(func(a retry.Attempt) { seen = append(seen, a) }))
		if len(seen) == 0 {
			t.Fatalf("call %d made no attempt", i)
		}
		trace = append(trace, quotaFirst)
		for _, a := range seen {
			trace = append(trace, quotaEventOf(a.Stop)...)
		}
		if last := seen[len(seen)-1]; last.Stop == retry.StopQuota && (!errors.Is(err,
			retry.ErrQuotaExhausted) || !errors.Is(err, last.Err)) {
			t.Fatalf("call %d: Do() error = %v after a refusal, want ErrQuotaExhausted and %v", i, err, last.Err)
		}
	}
	return trace
}

// quotaEventOf is the event an attempt's Stop says the quota saw after it: a granted retry, a
// refusal, or none.
func quotaEventOf(s retry.Stop) []quotaEvent {
	switch s {
	case retry.StopNone:
		return []quotaEvent{quotaRetry}
	case retry.StopQuota:
		return []quotaEvent{quotaRefused}
	}
	return nil
}

// quotaEvents names what happened in a run, for coverage.
func quotaEvents(sc quotaScenario, trace []quotaEvent) map[string]bool {
	seen := map[string]bool{}
	refused := false
	for _, e := range trace {
		switch e {
		case quotaRetry:
			seen["quota: retry granted"] = true
			seen["quota: granted after a refusal"] = seen["quota: granted after a refusal"] || refused
		case quotaRefused:
			seen["quota: retry refused"], refused = true, true
		}
	}
	demand := sc.demand()
	if sc.limits.demandFits(demand) && len(demand) > len(sc.calls) {
		seen["quota: every retry asked for fits"] = true
	}
	return seen
}

// TestConcurrentCallsShareTheQuota: 2 to 8 goroutines make calls at once, in virtual time,
// with jittered waits that interleave their attempts, all sharing one quota. The order in
// which the quota sees their events is the scheduler's, so the checks are those that hold in
// every order: every call makes its first attempt, the retries are at most burst + ratio ×
// the first attempts, and when all the calls together ask for no more than burst retries
// none is refused.
func TestConcurrentCallsShareTheQuota(t *testing.T) {
	var cov coverage
	rapid.Check(t, func(t *rapid.T) {
		sc := quotaScenarioGen().Draw(t, "scenario")
		sc.policy.DelayBase = msRange(0, 100).Draw(t, "DelayBase")
		sc.policy.DelayMax = sc.policy.DelayBase + msRange(0, 400).Draw(t, "DelayMax-DelayBase")
		goroutines := rapid.IntRange(2, 8).Draw(t, "goroutines")
		seed := rapid.Uint64().Draw(t, "jitter seed")
		rapid.SyncTest(t, func(t *rapid.T) {
			firsts, retries, refused := runConcurrently(t, sc, goroutines, seed)
			cov.addSeen(map[string]bool{"quota: retry granted": retries > 0, "quota: retry refused": refused > 0})
			if firsts != len(sc.calls) {
				t.Fatalf("%d first attempts for %d calls", firsts, len(sc.calls))
			}
			if err := sc.limits.checkQuotaTotals(firsts, retries); err != nil {
				t.Fatalf("%v", err)
			}
			if asked := len(sc.demand()) - len(sc.calls); asked <= sc.limits.burst && refused > 0 {
				t.Fatalf("%d retries refused, yet the calls asked for %d in all, within burst %d", refused, asked, sc.limits.burst)
			}
		})
	})
	t.Log(&cov)
	cov.require(t, 100, "quota: retry granted", "quota: retry refused")
}

// runConcurrently deals the calls to goroutines in turn and runs them all at once; it returns
// the first attempts and the retries made, and the retries refused.
func runConcurrently(t *rapid.T, sc quotaScenario, goroutines int, seed uint64) (firsts, retries, refused int) {
	q, err := retry.NewQuota(sc.limits.ratio, sc.limits.burst)
	if err != nil {
		t.Fatalf("NewQuota(%v, %d) error = %v", sc.limits.ratio, sc.limits.burst, err)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := range goroutines {
		jitter := rand.New(rand.NewPCG(seed, uint64(g))).Float64
		wg.Go(func() {
			for i := g; i < len(sc.calls); i += goroutines {
				made := 0
				op := func(context.Context) (int, error) { made++; return 0, sc.calls[i][made-1].err() }
				var last retry.Attempt
				retry.Do(context.Background(), sc.policy, op, retry.WithQuota(q), retry.WithRand(jitter),
					retry.WithObserver(func(a retry.Attempt) { last = a }))
				mu.Lock()
				firsts, retries = firsts+min(made, 1), retries+max(made-1, 0)
				if last.Stop == retry.StopQuota {
					refused++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return firsts, retries, refused
}

// TestNewQuotaChecksItsLimits: NewQuota accepts exactly a finite ratio of at least 0 and a burst
// of at least 0, the largest float64 included, and refuses the rest with ErrInvalidPolicy. The
// edges are checked on every run, then random values.
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
	switch {
	case valid && (err != nil || q == nil):
		return fmt.Errorf("NewQuota(%v, %d) = %v, %v; want a quota", ratio, burst, q, err)
	case !valid && (!errors.Is(err, retry.ErrInvalidPolicy) || q != nil):
		return fmt.Errorf("NewQuota(%v, %d) = %v, %v; want nil and ErrInvalidPolicy", ratio, burst, q, err)
	}
	return nil
}
