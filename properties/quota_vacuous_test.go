package properties

import (
	"math"
	"strings"
	"testing"
)

// The quota's checks, shown able to fail: each is handed traces that keep its property and
// traces that break it, some written by hand and some made by limiters that are broken on
// purpose.

// quotaTrace builds a trace: f a first attempt, r a granted retry, x a refused one.
func quotaTrace(s string) []quotaEvent {
	var trace []quotaEvent
	for _, c := range s {
		trace = append(trace, map[rune]quotaEvent{'f': quotaFirst, 'r': quotaRetry, 'x': quotaRefused}[c])
	}
	return trace
}

func TestQuotaChecksCatchViolations(t *testing.T) {
	tests := []struct {
		name   string
		limits quotaLimits
		trace  string
		check  func(quotaLimits, []quotaEvent) error
		want   string // in the violation; "" for a trace that keeps the property
	}{
		{"burst then ratio", quotaLimits{0.5, 1}, "frfxffrfx", quotaLimits.checkQuotaBound, ""},
		{"one retry beyond the burst", quotaLimits{0.5, 1}, "frr", quotaLimits.checkQuotaBound, "more than burst 1"},
		{"ten tenths make a retry", quotaLimits{0.1, 1}, "frffffffffffr", quotaLimits.checkQuotaBound, ""},
		{"nine tenths do not", quotaLimits{0.1, 1}, "frfffffffffr", quotaLimits.checkQuotaBound, "the 11 events up to 11"},
		{"burst 0: ratio earns a retry", quotaLimits{0.25, 0}, "ffffr", quotaLimits.checkQuotaBound, ""},
		{"burst 0: not before it is earned", quotaLimits{0.25, 0}, "fffr", quotaLimits.checkQuotaBound,
			"more than burst 0"},
		{"burst 0 holds one token", quotaLimits{2, 0}, "ffrr", quotaLimits.checkQuotaBound, "more than capacity 1"},
		{"ratio 0, burst 0 allows no retry", quotaLimits{0, 0}, "fr", quotaLimits.checkQuotaBound, "more than burst 0"},
		{"a stretch beyond the bound, the whole run within it", quotaLimits{1, 1}, "fffffrr", quotaLimits.checkQuotaBound,
			"the 2 events up to 6"},
		{"forced refusals", quotaLimits{0.5, 1}, "frfxffrfx", quotaLimits.checkQuotaRefusals, ""},
		{"a refusal with a token left", quotaLimits{0.5, 1}, "fx", quotaLimits.checkQuotaRefusals,
			"event 1: a retry refused"},
		{"a refusal after ten tenths", quotaLimits{0.1, 1}, "frffffffffffx", quotaLimits.checkQuotaRefusals,
			"event 12: a retry refused"},
		{"burst 0 refuses what is not earned", quotaLimits{0.5, 0}, "fx", quotaLimits.checkQuotaRefusals, ""},
		{"burst 0 refuses what is earned", quotaLimits{0.5, 0}, "ffx", quotaLimits.checkQuotaRefusals,
			"event 2: a retry refused"},
		{"burst 0 refuses past its one token", quotaLimits{2, 0}, "ffrx", quotaLimits.checkQuotaRefusals, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.check(tt.limits, quotaTrace(tt.trace))
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("check(%q) = %v, want a violation saying %q (none if empty)", tt.trace, err, tt.want)
			}
		})
	}
}

func TestQuotaTotalsCatchViolations(t *testing.T) {
	q := quotaLimits{0.1, 1}
	if err := q.checkQuotaTotals(10, 2); err != nil {
		t.Errorf("checkQuotaTotals(10, 2) = %v, want nil: 1 + 0.1 × 10 is 2 at least", err)
	}
	if err := q.checkQuotaTotals(9, 2); err == nil || !strings.Contains(err.Error(), "more than burst + ratio") {
		t.Errorf("checkQuotaTotals(9, 2) = %v, want a violation", err)
	}
}

// floatBucket is a token bucket in plain float64 arithmetic: tokens start at burst, a first
// attempt adds ratio up to capacity, and grants says whether a retry may take a token.
type floatBucket struct {
	limits   quotaLimits
	capacity float64
	grants   func(tokens float64) bool
}

// wholeTokenBucket grants a retry on a whole token, and holds the quota's capacity.
func wholeTokenBucket(limits quotaLimits) floatBucket {
	return floatBucket{limits, float64(limits.capacity()), func(tokens float64) bool { return tokens >= 1 }}
}

// anyFractionBucket grants a retry on any fraction of a token.
func anyFractionBucket(limits quotaLimits) floatBucket {
	return floatBucket{limits, float64(limits.capacity()), func(tokens float64) bool { return tokens > 0 }}
}

// burstCappedBucket holds at most burst tokens, as the quota did before a ratio earned retries
// whatever the burst: with burst 0 it never grants one.
func burstCappedBucket(limits quotaLimits) floatBucket {
	return floatBucket{limits, float64(limits.burst), func(tokens float64) bool { return tokens >= 1 }}
}

// uncappedBucket never caps its tokens: a long calm earns a burst of retries beyond capacity.
func uncappedBucket(limits quotaLimits) floatBucket {
	return floatBucket{limits, math.Inf(1), func(tokens float64) bool { return tokens >= 1 }}
}

// replay plays the retries of demand through the bucket: a refused retry ends its call's
// retries, as it ends Do.
func (b floatBucket) replay(demand []quotaEvent) []quotaEvent {
	tokens := float64(b.limits.burst)
	var trace []quotaEvent
	ended := false
	for _, e := range demand {
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

// TestQuotaChecksCatchBrokenLimiters: the checks of the properties reject limiters that look
// right. One sums ratio in float64, and 0.1 added ten times falls short of 1, so it refuses a
// retry the bound allows. One grants a retry on any fraction of a token, one more than the
// bound allows. One caps its tokens at burst, so with burst 0 it refuses the retries its ratio
// earned. One never caps them, so after a calm it grants more than capacity on a stretch. The
// correct float bucket passes both checks.
func TestQuotaChecksCatchBrokenLimiters(t *testing.T) {
	limits := quotaLimits{0.1, 1}
	demand := quotaTrace("fr" + strings.Repeat("f", 10) + "r" + "fr")
	tests := []struct {
		name   string
		limits quotaLimits
		bucket func(quotaLimits) floatBucket
		demand string
		check  func(quotaLimits, []quotaEvent) error
		want   string // "" for a limiter that keeps the property
	}{
		{"float sum", limits, wholeTokenBucket, "", quotaLimits.checkQuotaRefusals, "event 12: a retry refused"},
		{"any fraction", limits, anyFractionBucket, "", quotaLimits.checkQuotaBound, "more than burst 1"},
		{"capped at burst 0", quotaLimits{0.25, 0}, burstCappedBucket, "ffffr", quotaLimits.checkQuotaRefusals,
			"event 4: a retry refused"},
		{"never capped", quotaLimits{1, 0}, uncappedBucket, "ffffrr", quotaLimits.checkQuotaBound,
			"more than capacity 1"},
		{"exact bound", quotaLimits{0.5, 1}, wholeTokenBucket, "", quotaLimits.checkQuotaBound, ""},
		{"exact refusals", quotaLimits{0.5, 1}, wholeTokenBucket, "", quotaLimits.checkQuotaRefusals, ""},
		{"exact at burst 0", quotaLimits{0.25, 0}, wholeTokenBucket, "ffffrffffrr", quotaLimits.checkQuotaRefusals, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := demand
			if tt.demand != "" {
				d = quotaTrace(tt.demand)
			}
			err := tt.check(tt.limits, tt.bucket(tt.limits).replay(d))
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("check(%s) = %v, want a violation saying %q (none if empty)", tt.name, err, tt.want)
			}
		})
	}
}
