package retry_test

import (
	"fmt"
	"math/big"
	"strings"
	"testing"
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
// The other fields plant bugs (below): a bucket without a capacity
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

// The quota's checks, shown able to fail: each is handed traces that keep its property and
// traces that break it, written by hand or made by buckets broken on purpose.

// floatSumBucket counts its tokens in float64, and 0.1 added ten times falls short of 1.
func floatSumBucket(l quotaLimits) *quotaBucket {
	b := newQuotaBucket(l)
	b.rounded = true
	return b
}

// anyFractionBucket grants a retry on any fraction of a token.
func anyFractionBucket(l quotaLimits) *quotaBucket {
	b := newQuotaBucket(l)
	b.grants = func(tokens *big.Rat) bool { return tokens.Sign() > 0 }
	return b
}

// burstCappedBucket holds at most burst tokens, as the quota once did: with burst 0 it never
// grants a retry, though its ratio earned one.
func burstCappedBucket(l quotaLimits) *quotaBucket {
	b := newQuotaBucket(l)
	b.capacity = big.NewRat(int64(l.burst), 1)
	return b
}

// uncappedBucket never caps its tokens: a long calm earns a burst of retries beyond capacity.
func uncappedBucket(l quotaLimits) *quotaBucket {
	b := newQuotaBucket(l)
	b.capacity = nil
	return b
}

// TestQuotaChecksCatchViolations: the model and the totals reject the traces that break them,
// hand-written or made by broken buckets, and pass the rest, the float bucket's where it is exact.
// The float-sum bucket refuses a retry the bound allows; the any-fraction bucket grants one more
// than it allows; the burst-capped bucket refuses at burst 0 the retries its ratio earned; the
// uncapped bucket grants more than capacity on a stretch after a calm.
func TestQuotaChecksCatchViolations(t *testing.T) {
	model, totals := quotaLimits.checkQuota, quotaLimits.checkQuotaTotals
	tenths, l1, l0 := quotaTrace("frffffffffffrfr"), quotaLimits{0.1, 1}, quotaLimits{0.25, 0}
	for _, tt := range []struct {
		name   string
		limits quotaLimits
		trace  []quotaEvent
		check  func(quotaLimits, []quotaEvent) error
		want   string // in the violation; "" for a trace that keeps the property
	}{
		{"burst then ratio, forced refusals", quotaLimits{0.5, 1}, quotaTrace("frfxffrfx"), model, ""},
		{"one retry beyond the burst", quotaLimits{0.5, 1}, quotaTrace("frr"), model, "event 2 is retry"},
		{"ten tenths make a retry", l1, quotaTrace("frffffffffffr"), model, ""},
		{"nine tenths do not", l1, quotaTrace("frfffffffffr"), model, "event 11 is retry"},
		{"burst 0: ratio earns a retry", l0, quotaTrace("ffffr"), model, ""},
		{"burst 0: not before it is earned", l0, quotaTrace("fffr"), model, "event 3 is retry"},
		{"burst 0 holds one token", quotaLimits{2, 0}, quotaTrace("ffrr"), model, "event 3 is retry"},
		{"ratio 0, burst 0 allows no retry", quotaLimits{0, 0}, quotaTrace("fr"), model, "event 1 is retry"},
		{"a stretch beyond the bound, the whole run within it", quotaLimits{1, 1}, quotaTrace("fffffrr"), model,
			"event 6 is retry"},
		{"a refusal with a token left", quotaLimits{0.5, 1}, quotaTrace("fx"), model, "event 1 is refused"},
		{"a refusal after ten tenths", l1, quotaTrace("frffffffffffx"), model, "event 12 is refused"},
		{"burst 0 refuses what is not earned", quotaLimits{0.5, 0}, quotaTrace("fx"), model, ""},
		{"burst 0 refuses what is earned", quotaLimits{0.5, 0}, quotaTrace("ffx"), model, "event 2 is refused"},
		{"burst 0 refuses past its one token", quotaLimits{2, 0}, quotaTrace("ffrx"), model, ""},
		{"float-sum bucket", l1, floatSumBucket(l1).replay(tenths), model, "event 12 is refused"},
		{"any-fraction bucket", l1, anyFractionBucket(l1).replay(tenths), model, "event 14 is retry"},
		{"burst-capped bucket", l0, burstCappedBucket(l0).replay(quotaTrace("ffffr")), model, "event 4 is refused"},
		{"uncapped bucket", quotaLimits{1, 0}, uncappedBucket(quotaLimits{1, 0}).replay(quotaTrace("ffffrr")), model,
			"event 5 is retry"},
		{"float bucket, exact ratio", quotaLimits{0.5, 1}, floatSumBucket(quotaLimits{0.5, 1}).replay(tenths), model, ""},
		{"float bucket, exact at burst 0", l0, floatSumBucket(l0).replay(quotaTrace("ffffrffffrr")), model, ""},
		{"totals: 1 + 0.1 × 10 allows 2 retries", l1, quotaTrace("rrffffffffff"), totals, ""},
		{"totals: 1 + 0.1 × 9 does not", l1, quotaTrace("rrfffffffff"), totals, "more than burst + ratio"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.check(tt.limits, tt.trace)
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("check(%v) = %v, want a violation saying %q (none if empty)", tt.trace, err, tt.want)
			}
		})
	}
}
