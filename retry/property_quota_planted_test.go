package retry_test

import (
	"math/big"
	"strings"
	"testing"
)

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
