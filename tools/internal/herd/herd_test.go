package herd

import (
	"errors"
	"math/rand/v2"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

// small is a herd small enough to run in a fraction of a second under -race: 40 payers, a
// PSP down for half a second that then takes 4 payments at once, 50 ms each.
func small(st Strategy, shared bool, seed uint64) Scenario {
	return Scenario{Name: Recovery, Payers: 40, Shared: shared, Strategy: st,
		Policy: retry.Policy{AttemptsMax: 6, DelayBase: 100 * time.Millisecond, DelayMax: 2 * time.Second},
		Outage: 500 * time.Millisecond, Capacity: 4, ServiceTime: 50 * time.Millisecond, Seed: seed}
}

var herdSeeds = []uint64{1, 2, 3, 4, 5}

// runInBubble runs sc in a synctest bubble of its own.
func runInBubble(t *testing.T, sc Scenario) Result {
	t.Helper()
	var r Result
	synctest.Test(t, func(t *testing.T) { r = mustRun(t, sc) })
	return r
}

// TestFullJitterShedsLessThanExponential: without jitter the payers that failed together wait
// the same ceiling and come back in the same instant, so the PSP admits its capacity and sheds
// the rest, round after round; full jitter spreads each round over its whole window, in which
// the PSP frees its slots every 50 ms.
func TestFullJitterShedsLessThanExponential(t *testing.T) {
	for _, seed := range herdSeeds {
		full := runInBubble(t, small(FullJitterOurs, false, seed))
		exp := runInBubble(t, small(ExponentialNoJitter, false, seed))
		if full.Shed >= exp.Shed || full.Settled <= exp.Settled {
			t.Errorf("seed %d: full jitter shed %d and settled %d, exponential shed %d and settled %d; want less shed and more settled",
				seed, full.Shed, full.Settled, exp.Shed, exp.Settled)
		}
	}
}

// TestEveryStrategyKeepsTheOutcomeSound runs every strategy with own and shared Clients;
// mustRun fails the test on a broken outcome rule.
func TestEveryStrategyKeepsTheOutcomeSound(t *testing.T) {
	for _, st := range Strategies {
		for _, shared := range []bool{false, true} {
			if shared && st.perPayment {
				continue
			}
			r := runInBubble(t, small(st, shared, 1))
			if r.Settled+r.Failed != r.Scenario.Payers {
				t.Errorf("%s, shared %v: %d settled and %d failed, want %d payments in all", st.Name, shared, r.Settled, r.Failed, r.Scenario.Payers)
			}
			if total := sum(r.PerBucket); int64(total) != r.Requests {
				t.Errorf("%s, shared %v: %d requests in the buckets, the PSP counted %d", st.Name, shared, total, r.Requests)
			}
		}
	}
}

func sum(ns []int) int {
	total := 0
	for _, n := range ns {
		total += n
	}
	return total
}

// TestRunIsReproducible: a run is a function of its seed, with own Clients and with a shared
// one (whose draws are taken in the order of virtual time), with a quota too (whose verdicts
// depend on the order in which it sees first attempts and retries, fixed by the payers' start
// times), and with a breaker (whose verdicts depend on that order and on virtual time).
func TestRunIsReproducible(t *testing.T) {
	for _, st := range []Strategy{FullJitterOurs, FullJitterQuota} {
		for _, shared := range []bool{false, true} {
			assertReproducible(t, small(st, shared, 3))
		}
	}
	assertReproducible(t, smallSteady(FullJitterQuotaBreaker, 3))
}

// assertReproducible runs sc twice and compares the results.
func assertReproducible(t *testing.T, sc Scenario) {
	t.Helper()
	a, b := runInBubble(t, sc), runInBubble(t, sc)
	if diff := cmp.Diff(a, b, cmp.Comparer(func(x, y Strategy) bool { return x.Name == y.Name })); diff != "" {
		t.Errorf("%s, %s, shared %v: two runs with one seed differ (-first +second):\n%s", sc.Name, sc.Strategy.Name, sc.Shared, diff)
	}
}

// TestNoBackoffSpendsTheBudgetInTheOutage: with no wait every attempt falls in the outage, at
// the instant its payer starts.
func TestNoBackoffSpendsTheBudgetInTheOutage(t *testing.T) {
	r := runInBubble(t, small(NoBackoff, false, 1))
	last := time.Duration(r.Scenario.Payers - 1) // the last payer's start
	if r.Settled != 0 || r.RequestsPerPayment() != 6 || r.End != last {
		t.Errorf("no backoff: %d settled, %.2f requests per payment, last end %v; want 0, 6 (the budget), %v (no wait)",
			r.Settled, r.RequestsPerPayment(), r.End, last)
	}
}

// TestStrategiesWaitWhatTheyName follows each strategy's draws through retry.FullJitter, as
// retry.Do does, and compares the waits with the backoff the strategy names.
func TestStrategiesWaitWhatTheyName(t *testing.T) {
	p := retry.Policy{AttemptsMax: 8, DelayBase: 100 * time.Millisecond, DelayMax: 4 * time.Second}
	waits := func(st Strategy, r func() float64) []time.Duration {
		sp, draws := st.policy(p), st.draws(p, r)
		var ws []time.Duration
		for n := 1; n < p.AttemptsMax; n++ {
			ws = append(ws, retry.FullJitter(retry.Ceiling(sp, n), draws()))
		}
		return ws
	}
	for n, w := range waits(NoBackoff, payerSource(1, 0)) {
		if w != 0 {
			t.Errorf("none: wait %d = %v, want 0", n+1, w)
		}
	}
	for n, w := range waits(ExponentialNoJitter, payerSource(1, 0)) {
		if want := retry.Ceiling(p, n+1); w != want {
			t.Errorf("exponential: wait %d = %v, want the ceiling %v", n+1, w, want)
		}
	}
	for n, w := range waits(EqualJitterStrategy, payerSource(1, 0)) {
		if c := retry.Ceiling(p, n+1); w < c/2 || w > c {
			t.Errorf("equal jitter: wait %d = %v, want in [%v, %v]", n+1, w, c/2, c)
		}
	}
	ref := rand.New(rand.NewPCG(1, 0))
	s := float64(p.DelayBase)
	for n, w := range waits(DecorrelatedJitter, payerSource(1, 0)) {
		s = min(float64(p.DelayMax), float64(p.DelayBase)+(3*s-float64(p.DelayBase))*ref.Float64())
		if d := w - time.Duration(s); d < -1 || d > 1 {
			t.Errorf("decorrelated: wait %d = %v, want %v to the nanosecond", n+1, w, time.Duration(s))
		}
	}
}

// TestCheckCatchesBrokenOutcomes plants one broken rule at a time in a sound outcome of two
// payments (0 settled, 1 failed before anything could settle).
func TestCheckCatchesBrokenOutcomes(t *testing.T) {
	refused := &pix.Error{Status: 422, Code: "insufficient_funds"}
	settled := psp.Settlement{EndToEndID: "E1", AmountCents: firstAmount}
	sound := func() ([]ending, []psp.Settlement, int64) {
		return []ending{{receipt: pix.Receipt{EndToEndID: "E1"}}, {err: refused}},
			[]psp.Settlement{settled}, startBalance - firstAmount
	}
	if bad := check(sound()); len(bad) != 0 {
		t.Fatalf("check(sound outcome) = %v, want nothing broken", bad)
	}
	tests := map[string]func(e []ending, l []psp.Settlement, b int64) ([]ending, []psp.Settlement, int64){
		"paid twice": func(e []ending, l []psp.Settlement, b int64) ([]ending, []psp.Settlement, int64) {
			return e, append(l, settled), b - firstAmount
		},
		"receipt not in the ledger": func(e []ending, _ []psp.Settlement, _ int64) ([]ending, []psp.Settlement, int64) {
			return e, nil, startBalance
		},
		"another endToEndId": func(e []ending, l []psp.Settlement, b int64) ([]ending, []psp.Settlement, int64) {
			e[0].receipt.EndToEndID = "E2"
			return e, l, b
		},
		"a definite failure that settled": func(e []ending, l []psp.Settlement, b int64) ([]ending, []psp.Settlement, int64) {
			return e, append(l, psp.Settlement{AmountCents: firstAmount + 1}), b - firstAmount - 1
		},
		"a settlement of no payment": func(e []ending, l []psp.Settlement, b int64) ([]ending, []psp.Settlement, int64) {
			return e, append(l, psp.Settlement{AmountCents: 7}), b - 7
		},
		"balance off": func(e []ending, l []psp.Settlement, b int64) ([]ending, []psp.Settlement, int64) {
			return e, l, b + 1
		},
	}
	for name, breakIt := range tests {
		if bad := check(breakIt(sound())); len(bad) == 0 {
			t.Errorf("check(%s) found nothing broken", name)
		}
	}
	unknown := &pix.OutcomeUnknownError{Key: "k", Attempts: 2, Err: errors.New("connection closed")}
	e, l, b := sound()
	e[1].err = unknown
	if bad := check(e, append(l, psp.Settlement{AmountCents: firstAmount + 1}), b-firstAmount-1); len(bad) != 0 {
		t.Errorf("check(an unknown outcome that settled) = %v, want nothing broken: pix did not deny it", bad)
	}
}

// TestQuotaBoundsTheRequestsOfAnOutage: in a total outage every payment fails every attempt,
// so without a quota each makes AttemptsMax requests. A quota shared by the herd allows at
// most QuotaBurst + QuotaRatio × (first attempts) retries in all, so the requests per payment
// are at most 1 + QuotaRatio + QuotaBurst/payers, with own Clients or a shared one.
func TestQuotaBoundsTheRequestsOfAnOutage(t *testing.T) {
	for _, seed := range herdSeeds[:3] {
		for _, shared := range []bool{false, true} {
			sc := small(FullJitterQuota, shared, seed)
			sc.Outage = time.Hour
			r := runInBubble(t, sc)
			bound := 1 + QuotaRatio + float64(QuotaBurst)/float64(sc.Payers)
			if got := r.RequestsPerPayment(); got > bound {
				t.Errorf("seed %d, shared %v: %.3f requests per payment in an outage, want at most %.3f", seed, shared, got, bound)
			}
			sc.Strategy = FullJitterOurs
			if got, want := runInBubble(t, sc).RequestsPerPayment(), float64(sc.Policy.AttemptsMax); got != want {
				t.Errorf("seed %d, shared %v: %.3f requests per payment without a quota, want AttemptsMax %v", seed, shared, got, want)
			}
		}
	}
}
