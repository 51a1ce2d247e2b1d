package retry_test

import (
	"fmt"
	"math/big"
	"strings"
)

// quotaEvent is one event a retry.Quota sees: a first attempt, a retry granted or one refused.
type quotaEvent int

const (
	quotaFirst quotaEvent = iota
	quotaRetry
	quotaRefused
)

func (e quotaEvent) String() string { return [...]string{"first", "retry", "refused"}[e] }

// quotaTrace builds a trace: f a first attempt, r a granted retry, x a refused one.
func quotaTrace(s string) []quotaEvent {
	var trace []quotaEvent
	for _, c := range s {
		trace = append(trace, quotaEvent(strings.IndexRune("frx", c)))
	}
	return trace
}

// quotaLimits is a quota's ratio and burst.
type quotaLimits struct {
	ratio float64
	burst int
}

// capacity is the most tokens the quota holds: burst, but at least one.
func (q quotaLimits) capacity() int { return max(q.burst, 1) }

// quotaBucket is the model of retry.Quota: its doc as a program, counted exactly in big.Rat,
// which holds the float64 ratio without rounding. A new bucket holds burst tokens. Every first
// attempt adds ratio tokens, up to the capacity. A retry takes a token, and is refused when the
// bucket holds less than one. The doc's bound follows: the tokens stay within [0, capacity], so
// from creation the retries granted are at most burst + ratio × the first attempts, and on any
// stretch at most capacity + ratio × the first attempts. Its converse follows too: a retry is
// refused only when the tokens, short of one, show that granting it would pass one of them.
//
// The other fields plant bugs (property_quota_planted_test.go): a bucket without a capacity
// never caps its tokens, rounded counts them in float64, and grants replaces the whole-token rule.
type quotaBucket struct {
	ratio, tokens, capacity *big.Rat
	rounded                 bool
	grants                  func(tokens *big.Rat) bool
}

// newQuotaBucket is the model of a new quota of limits l.
func newQuotaBucket(l quotaLimits) *quotaBucket {
	return &quotaBucket{ratio: new(big.Rat).SetFloat64(l.ratio), tokens: big.NewRat(int64(l.burst), 1),
		capacity: big.NewRat(int64(l.capacity()), 1), grants: wholeToken}
}

func wholeToken(tokens *big.Rat) bool { return tokens.Cmp(big.NewRat(1, 1)) >= 0 }

// add adds d tokens, up to the capacity.
func (b *quotaBucket) add(d *big.Rat) {
	b.tokens.Add(b.tokens, d)
	if b.rounded {
		f, _ := b.tokens.Float64()
		b.tokens.SetFloat64(f)
	}
	if b.capacity != nil && b.tokens.Cmp(b.capacity) > 0 {
		b.tokens.Set(b.capacity)
	}
}

// checkQuota reports the first event of trace that differs from what the model of a quota of
// limits l brings for the retries trace asked for, a refused one included.
func (l quotaLimits) checkQuota(trace []quotaEvent) error {
	return diffQuota(trace, newQuotaBucket(l).replay(trace))
}

// diffQuota reports the first event where got departs from want.
func diffQuota(got, want []quotaEvent) error {
	at := func(trace []quotaEvent, j int) string {
		if j < len(trace) {
			return trace[j].String()
		}
		return "none"
	}
	for j := range max(len(got), len(want)) {
		if at(got, j) != at(want, j) {
			return fmt.Errorf("event %d is %s, the model's is %s\ngot:  %v\nwant: %v", j, at(got, j), at(want, j), got, want)
		}
	}
	return nil
}

// replay is the trace that calls asking for the retries of demand, granted or refused there, bring
// through the bucket. A refused retry ends its call's retries, as it ends Do.
func (b *quotaBucket) replay(demand []quotaEvent) []quotaEvent {
	var trace []quotaEvent
	ended := false
	for _, e := range demand {
		switch {
		case e == quotaFirst:
			b.add(b.ratio)
			ended = false
		case ended:
			continue
		case b.grants(b.tokens):
			b.add(big.NewRat(-1, 1))
			e = quotaRetry
		default:
			e, ended = quotaRefused, true
		}
		trace = append(trace, e)
	}
	return trace
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
