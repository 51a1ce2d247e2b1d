package herd

import (
	"math/rand/v2"
	"testing"
)

// contentionSeeds are the seeds every contention test runs with.
var contentionSeeds = []uint64{1, 2, 3, 4, 5}

// TestExponentialNeedsTheMostCalls: without jitter, the clients that failed together back off
// by the same amount and collide again in the next cycle, the hops' spread (sd 2) being all
// that parts them; every jittered algorithm spreads them over a window that grows with the
// failures, so fewer writes meet a changed version. With 20 or more clients the gap is far
// wider than the spread of a mean over the runs.
func TestExponentialNeedsTheMostCalls(t *testing.T) {
	for _, seed := range contentionSeeds {
		for _, n := range []int{20, 40} {
			cells := SweepContention([]int{n}, 40, seed)
			exp := cells[Exponential]
			for _, c := range cells {
				if c.Algorithm == FullJitter || c.Algorithm == EqualJitter || c.Algorithm == Decorr {
					if c.MeanCalls >= exp.MeanCalls {
						t.Errorf("seed %d, %d clients: %v made %.1f calls, Exponential %.1f; want fewer", seed, n, c.Algorithm, c.MeanCalls, exp.MeanCalls)
					}
				}
			}
		}
	}
}

// TestExponentialIsTheSlowest: plain exponential backoff waits the whole ceiling, which the
// losers of every round reach together; each jittered algorithm waits on average at most that
// ceiling (full: half, equal: three quarters) and wastes fewer rounds.
func TestExponentialIsTheSlowest(t *testing.T) {
	for _, seed := range contentionSeeds {
		cells := SweepContention([]int{30}, 40, seed)
		for _, c := range cells {
			if c.Algorithm != Exponential && c.MeanTime >= cells[Exponential].MeanTime {
				t.Errorf("seed %d: %v took %.1f, Exponential %.1f; want less", seed, c.Algorithm, c.MeanTime, cells[Exponential].MeanTime)
			}
		}
	}
}

// TestFullJitterHalvesTheCallsOfExponential is the published headline at 100 clients: full
// jitter spreads the retries of a round over its whole window, so most writes find the
// version their read saw; without jitter the losers collide round after round.
func TestFullJitterHalvesTheCallsOfExponential(t *testing.T) {
	for _, seed := range contentionSeeds[:3] {
		cells := SweepContention([]int{100}, 30, seed)
		full, exp := cells[FullJitter].MeanCalls, cells[Exponential].MeanCalls
		if full >= exp/2 {
			t.Errorf("seed %d, 100 clients: FullJitter made %.1f calls, Exponential %.1f; want less than half", seed, full, exp)
		}
	}
}

func TestContentionWithOneClientIsOneCycle(t *testing.T) {
	for _, a := range Algorithms {
		got := Contend(1, a, rand.New(rand.NewPCG(1, 1)))
		// One read and one write, four hops of about 10 each.
		if got.Calls != 1 || got.Time < 20 || got.Time > 60 {
			t.Errorf("Contend(1, %v) = %+v, want 1 call in about 40", a, got)
		}
	}
}

func TestContentionIsReproducible(t *testing.T) {
	a := SweepContention([]int{10, 20}, 5, 9)
	b := SweepContention([]int{10, 20}, 5, 9)
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("cell %d = %+v, then %+v; want the same for the same seed", i, a[i], b[i])
		}
	}
}
