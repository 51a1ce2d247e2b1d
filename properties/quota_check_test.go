package properties

import (
	"fmt"
	"math/big"
)

// quotaEvent is one event a retry.Quota sees, in the order it sees them: a first attempt, a
// retry it granted, or a retry it refused.
type quotaEvent int

const (
	quotaFirst quotaEvent = iota
	quotaRetry
	quotaRefused
)

func (e quotaEvent) String() string { return [...]string{"first", "retry", "refused"}[e] }

// quotaLimits is the ratio and the burst of a quota, and the checks of its properties.
type quotaLimits struct {
	ratio float64
	burst int
}

// capacity is the most tokens the quota holds: burst, but at least one, so that a ratio earns
// retries whatever the burst.
func (q quotaLimits) capacity() int { return max(q.burst, 1) }

// checkQuotaBound is the quota's guarantee, in two clauses. From creation, the retries granted
// are at most burst + ratio × the first attempts. In every stretch of consecutive events, they
// are at most capacity + ratio × the first attempts. Refusals count for nothing.
//
// With V(k) = retries − ratio × firsts over the first k events, the first clause breaks when
// V(j) > burst, and a stretch (i, j] breaks the second exactly when V(j) − V(i) > capacity, so
// the check keeps the least V seen so far. The arithmetic is exact: big.Rat holds the float64
// ratio without rounding.
func (q quotaLimits) checkQuotaBound(trace []quotaEvent) error {
	s := q.newStretches()
	for j, e := range trace {
		if e == quotaRefused {
			continue
		}
		s.add(e, j)
		if s.overBurst(0) {
			return fmt.Errorf("the %d events up to %d (a %v) hold %s retries beyond ratio × first attempts, "+
				"more than burst %d", j+1, j, e, s.fromStart(0).RatString(), q.burst)
		}
		if s.over(0) {
			return fmt.Errorf("the %d events up to %d (a %v) hold %s retries beyond ratio × first attempts, "+
				"more than capacity %d", j-s.from+1, j, e, s.excess(0).RatString(), q.capacity())
		}
	}
	return nil
}

// checkQuotaRefusals is the converse: the quota refuses a retry only when granting it would
// break a clause of the bound, from creation or on some stretch that ends with it.
func (q quotaLimits) checkQuotaRefusals(trace []quotaEvent) error {
	s := q.newStretches()
	for j, e := range trace {
		if e != quotaRefused {
			s.add(e, j)
			continue
		}
		if !s.over(1) && !s.overBurst(1) {
			return fmt.Errorf("event %d: a retry refused, but granting it kept the bound "+
				"(%s beyond ratio × first attempts since creation, burst %d; at most %s on a stretch, capacity %d)",
				j, s.fromStart(1).RatString(), q.burst, s.excess(1).RatString(), q.capacity())
		}
	}
	return nil
}

// stretches follows V and its least value over the events seen, exactly. The stretch that
// holds the most retries beyond ratio × first attempts, among those ending at the last event,
// starts at index from of the trace.
type stretches struct {
	ratio, v, least, burst, capacity *big.Rat
	from                             int
}

func (q quotaLimits) newStretches() *stretches {
	return &stretches{ratio: new(big.Rat).SetFloat64(q.ratio), v: new(big.Rat), least: new(big.Rat),
		burst: big.NewRat(int64(q.burst), 1), capacity: big.NewRat(int64(q.capacity()), 1)}
}

// add moves V over event j of the trace, a first attempt or a granted retry.
func (s *stretches) add(e quotaEvent, j int) {
	if e == quotaRetry {
		s.v.Add(s.v, big.NewRat(1, 1))
	} else {
		s.v.Sub(s.v, s.ratio)
	}
	if s.v.Cmp(s.least) < 0 {
		s.least.Set(s.v)
		s.from = j + 1
	}
}

// excess is the most any stretch ending here holds beyond ratio × first attempts, with extra
// more retries granted at its end.
func (s *stretches) excess(extra int64) *big.Rat {
	d := new(big.Rat).Sub(s.v, s.least)
	return d.Add(d, big.NewRat(extra, 1))
}

// fromStart is what the events since creation hold beyond ratio × first attempts, with extra
// more retries granted at their end.
func (s *stretches) fromStart(extra int64) *big.Rat {
	return new(big.Rat).Add(s.v, big.NewRat(extra, 1))
}

// over reports whether excess(extra) passes the capacity.
func (s *stretches) over(extra int64) bool { return s.excess(extra).Cmp(s.capacity) > 0 }

// overBurst reports whether fromStart(extra) passes the burst.
func (s *stretches) overBurst(extra int64) bool { return s.fromStart(extra).Cmp(s.burst) > 0 }

// checkQuotaTotals is the guarantee over a whole run, for runs whose order of events is not
// known (concurrent calls): retries <= burst + ratio × firsts, exactly.
func (q quotaLimits) checkQuotaTotals(firsts, retries int) error {
	limit := new(big.Rat).SetFloat64(q.ratio)
	limit.Mul(limit, big.NewRat(int64(firsts), 1))
	limit.Add(limit, big.NewRat(int64(q.burst), 1))
	if big.NewRat(int64(retries), 1).Cmp(limit) > 0 {
		return fmt.Errorf("%d retries for %d first attempts, more than burst + ratio × firsts = %s",
			retries, firsts, limit.RatString())
	}
	return nil
}

// demandFits reports whether the retries the calls ask for, with nothing refused, keep the
// bound on every stretch: the condition under which the converse says no retry is refused.
func (q quotaLimits) demandFits(demand []quotaEvent) bool {
	return q.checkQuotaBound(demand) == nil
}
