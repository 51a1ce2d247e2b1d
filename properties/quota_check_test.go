package properties

import (
	"fmt"
	"math/big"
)

// quotaEvent is one event a retry.Quota sees: a first attempt, a retry granted or one refused.
type quotaEvent int

const (
	quotaFirst quotaEvent = iota
	quotaRetry
	quotaRefused
)

func (e quotaEvent) String() string { return [...]string{"first", "retry", "refused"}[e] }

// quotaLimits is a quota's ratio and burst.
type quotaLimits struct {
	ratio float64
	burst int
}

// capacity is the most tokens the quota holds: burst, but at least one.
func (q quotaLimits) capacity() int { return max(q.burst, 1) }

// The checks below follow V(k) = retries − ratio × firsts over the first k events, exactly:
// big.Rat holds the float64 ratio without rounding. From creation, the bound holds at event j
// while V(j) ≤ burst. A stretch (i, j] keeps it while V(j) − V(i) ≤ capacity, so keeping the
// least V seen checks every stretch that ends at j. Refused retries count for nothing.

// quotaSlack is V and its least value over the events seen. The stretch ending at the last
// event that holds the most retries beyond ratio × firsts starts at index from.
type quotaSlack struct {
	q               quotaLimits
	ratio, v, least *big.Rat
	from            int
}

func (q quotaLimits) slack() *quotaSlack {
	return &quotaSlack{q: q, ratio: new(big.Rat).SetFloat64(q.ratio), v: new(big.Rat), least: new(big.Rat)}
}

// add moves V over event j, a first attempt or a granted retry.
func (s *quotaSlack) add(e quotaEvent, j int) {
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

// sinceCreation and onStretch are V, and the most on a stretch ending here, with extra
// retries granted at the end.
func (s *quotaSlack) sinceCreation(extra int64) *big.Rat {
	return new(big.Rat).Add(s.v, big.NewRat(extra, 1))
}
func (s *quotaSlack) onStretch(extra int64) *big.Rat {
	return new(big.Rat).Sub(s.sinceCreation(extra), s.least)
}

// overBurst and overCapacity report whether those pass the burst and the capacity.
func (s *quotaSlack) overBurst(extra int64) bool {
	return s.sinceCreation(extra).Cmp(big.NewRat(int64(s.q.burst), 1)) > 0
}
func (s *quotaSlack) overCapacity(extra int64) bool {
	return s.onStretch(extra).Cmp(big.NewRat(int64(s.q.capacity()), 1)) > 0
}

// checkQuotaBound is the quota's guarantee: from creation, the retries granted are at most
// burst + ratio × the first attempts; in every stretch of consecutive events, at most
// capacity + ratio × the first attempts.
func (q quotaLimits) checkQuotaBound(trace []quotaEvent) error {
	s := q.slack()
	for j, e := range trace {
		if e == quotaRefused {
			continue
		}
		s.add(e, j)
		if s.overBurst(0) {
			return fmt.Errorf("the %d events up to %d (a %v) hold %s retries beyond ratio × first attempts, "+
				"more than burst %d", j+1, j, e, s.sinceCreation(0).RatString(), q.burst)
		}
		if s.overCapacity(0) {
			return fmt.Errorf("the %d events up to %d (a %v) hold %s retries beyond ratio × first attempts, "+
				"more than capacity %d", j-s.from+1, j, e, s.onStretch(0).RatString(), q.capacity())
		}
	}
	return nil
}

// checkQuotaRefusals is the converse: the quota refuses a retry only when granting it would
// break a clause of the bound, from creation or on a stretch that ends with it.
func (q quotaLimits) checkQuotaRefusals(trace []quotaEvent) error {
	s := q.slack()
	for j, e := range trace {
		if e != quotaRefused {
			s.add(e, j)
		} else if !s.overCapacity(1) && !s.overBurst(1) {
			return fmt.Errorf("event %d: a retry refused, but granting it kept the bound (%s beyond ratio × "+
				"first attempts since creation, burst %d; at most %s on a stretch, capacity %d)",
				j, s.sinceCreation(1).RatString(), q.burst, s.onStretch(1).RatString(), q.capacity())
		}
	}
	return nil
}

// checkQuotaTotals is the bound over a whole run whose order of events is not known
// (concurrent calls): retries ≤ burst + ratio × firsts, exactly.
func (q quotaLimits) checkQuotaTotals(trace []quotaEvent) error {
	firsts, retries := count(trace, quotaFirst), count(trace, quotaRetry)
	limit := new(big.Rat).SetFloat64(q.ratio)
	limit.Mul(limit, big.NewRat(int64(firsts), 1))
	limit.Add(limit, big.NewRat(int64(q.burst), 1))
	if big.NewRat(int64(retries), 1).Cmp(limit) > 0 {
		return fmt.Errorf("%d retries for %d first attempts, more than burst + ratio × firsts = %s",
			retries, firsts, limit.RatString())
	}
	return nil
}

// demandFits reports whether the retries asked for, none refused, keep the bound: then the
// converse says none is refused.
func (q quotaLimits) demandFits(demand []quotaEvent) bool { return q.checkQuotaBound(demand) == nil }
