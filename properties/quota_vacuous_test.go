package properties

import (
	"math"
	"strings"
	"testing"
)

// The quota's checks, shown able to fail: each is handed traces that keep its property and
// traces that break it, written by hand or made by limiters broken on purpose.

// quotaTrace builds a trace: f a first attempt, r a granted retry, x a refused one.
func quotaTrace(s string) []quotaEvent {
	var trace []quotaEvent
	for _, c := range s {
		trace = append(trace, quotaEvent(strings.IndexRune("frx", c)))
	}
	return trace
}

// floatBucket is a token bucket in plain float64: tokens start at burst, a first attempt adds
// ratio up to capacity, and grants says whether a retry may take a token.
type floatBucket struct {
	limits   quotaLimits
	capacity float64
	grants   func(tokens float64) bool
}

func wholeToken(tokens float64) bool { return tokens >= 1 }

// wholeTokenBucket grants a retry on a whole token and holds the quota's capacity. It sums
// ratio in float64, and 0.1 added ten times falls short of 1.
func wholeTokenBucket(l quotaLimits) floatBucket {
	return floatBucket{l, float64(l.capacity()), wholeToken}
}

// anyFractionBucket grants a retry on any fraction of a token.
func anyFractionBucket(l quotaLimits) floatBucket {
	return floatBucket{l, float64(l.capacity()), func(tokens float64) bool { return tokens > 0 }}
}

// burstCappedBucket holds at most burst tokens, as the quota once did: with burst 0 it never
// grants a retry, though its ratio earned one.
func burstCappedBucket(l quotaLimits) floatBucket {
	return floatBucket{l, float64(l.burst), wholeToken}
}

// uncappedBucket never caps its tokens: a long calm earns a burst of retries beyond capacity.
func uncappedBucket(l quotaLimits) floatBucket { return floatBucket{l, math.Inf(1), wholeToken} }

// replay plays the retries of demand (a quotaTrace) through the bucket. A refused retry ends
// its call's retries, as it ends Do.
func (b floatBucket) replay(demand string) []quotaEvent {
	tokens, ended := float64(b.limits.burst), false
	var trace []quotaEvent
	for _, e := range quotaTrace(demand) {
		switch {
		case e == quotaFirst:
			tokens, ended = min(b.capacity, tokens+b.limits.ratio), false
			trace = append(trace, quotaFirst)
		case ended:
		case b.grants(tokens):
			tokens--
			trace = append(trace, quotaRetry)
		default:
			ended = true
			trace = append(trace, quotaRefused)
		}
	}
	return trace
}

// TestQuotaChecksCatchViolations: the bound, the converse and the totals reject the traces that break them,
// hand-written or made by broken limiters, and pass the rest, the correct float bucket's
// included. The float-sum bucket refuses a retry the bound allows; the any-fraction bucket
// grants one more than it allows; the burst-capped bucket refuses at burst 0 the retries its
// ratio earned; the uncapped bucket grants more than capacity on a stretch after a calm.
func TestQuotaChecksCatchViolations(t *testing.T) {
	bound, refusals, totals := quotaLimits.checkQuotaBound, quotaLimits.checkQuotaRefusals, quotaLimits.checkQuotaTotals
	tenths, l1, l0 := "frffffffffffrfr", quotaLimits{0.1, 1}, quotaLimits{0.25, 0}
	for _, tt := range []struct {
		name   string
		limits quotaLimits
		trace  []quotaEvent
		check  func(quotaLimits, []quotaEvent) error
		want   string // in the violation; "" for a trace that keeps the property
	}{
		{"burst then ratio", quotaLimits{0.5, 1}, quotaTrace("frfxffrfx"), bound, ""},
		{"one retry beyond the burst", quotaLimits{0.5, 1}, quotaTrace("frr"), bound, "more than burst 1"},
		{"ten tenths make a retry", l1, quotaTrace("frffffffffffr"), bound, ""},
		{"nine tenths do not", l1, quotaTrace("frfffffffffr"), bound, "the 11 events up to 11"},
		{"burst 0: ratio earns a retry", l0, quotaTrace("ffffr"), bound, ""},
		{"burst 0: not before it is earned", l0, quotaTrace("fffr"), bound, "more than burst 0"},
		{"burst 0 holds one token", quotaLimits{2, 0}, quotaTrace("ffrr"), bound, "more than capacity 1"},
		{"ratio 0, burst 0 allows no retry", quotaLimits{0, 0}, quotaTrace("fr"), bound, "more than burst 0"},
		{"a stretch beyond the bound, the whole run within it", quotaLimits{1, 1}, quotaTrace("fffffrr"), bound,
			"the 2 events up to 6"},
		{"forced refusals", quotaLimits{0.5, 1}, quotaTrace("frfxffrfx"), refusals, ""},
		{"a refusal with a token left", quotaLimits{0.5, 1}, quotaTrace("fx"), refusals, "event 1: a retry refused"},
		{"a refusal after ten tenths", l1, quotaTrace("frffffffffffx"), refusals, "event 12: a retry refused"},
		{"burst 0 refuses what is not earned", quotaLimits{0.5, 0}, quotaTrace("fx"), refusals, ""},
		{"burst 0 refuses what is earned", quotaLimits{0.5, 0}, quotaTrace("ffx"), refusals, "event 2: a retry refused"},
		{"burst 0 refuses past its one token", quotaLimits{2, 0}, quotaTrace("ffrx"), refusals, ""},
		{"float-sum bucket", l1, wholeTokenBucket(l1).replay(tenths), refusals, "event 12: a retry refused"},
		{"any-fraction bucket", l1, anyFractionBucket(l1).replay(tenths), bound, "more than burst 1"},
		{"burst-capped bucket", l0, burstCappedBucket(l0).replay("ffffr"), refusals, "event 4: a retry refused"},
		{"uncapped bucket", quotaLimits{1, 0}, uncappedBucket(quotaLimits{1, 0}).replay("ffffrr"), bound,
			"more than capacity 1"},
		{"float bucket, exact bound", quotaLimits{0.5, 1}, wholeTokenBucket(quotaLimits{0.5, 1}).replay(tenths), bound, ""},
		{"float bucket, exact refusals", quotaLimits{0.5, 1}, wholeTokenBucket(quotaLimits{0.5, 1}).replay(tenths),
			refusals, ""},
		{"float bucket, exact at burst 0", l0, wholeTokenBucket(l0).replay("ffffrffffrr"), refusals, ""},
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
