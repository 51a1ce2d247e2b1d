package properties

import (
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
		{"burst 0 allows no retry", quotaLimits{2, 0}, "fr", quotaLimits.checkQuotaBound, "more than burst 0"},
		{"a stretch beyond the bound, the whole run within it", quotaLimits{1, 1}, "fffffrr", quotaLimits.checkQuotaBound,
			"the 2 events up to 6"},
		{"forced refusals", quotaLimits{0.5, 1}, "frfxffrfx", quotaLimits.checkQuotaRefusals, ""},
		{"a refusal with a token left", quotaLimits{0.5, 1}, "fx", quotaLimits.checkQuotaRefusals,
			"event 1: a retry refused"},
		{"a refusal after ten tenths", quotaLimits{0.1, 1}, "frffffffffffx", quotaLimits.checkQuotaRefusals,
			"event 12: a retry refused"},
		{"burst 0 refuses", quotaLimits{2, 0}, "fx", quotaLimits.checkQuotaRefusals, ""},
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
// attempt adds ratio up to burst, and grants says whether a retry may take a token.
type floatBucket struct {
	limits quotaLimits
	grants func(tokens float64) bool
}

// replay plays the retries of demand through the bucket: a refused retry ends its call's
// retries, as it ends Do.
func (b floatBucket) replay(demand []quotaEvent) []quotaEvent {
	tokens, burst := float64(b.limits.burst), float64(b.limits.burst)
	var trace []quotaEvent
	ended := false
	for _, e := range demand {
		switch {
		case e == quotaFirst:
			tokens, ended = min(burst, tokens+b.limits.ratio), false
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

// TestQuotaChecksCatchBrokenLimiters: the checks of the properties reject two limiters that
// look right. One sums ratio in float64, and 0.1 added ten times falls short of 1, so it
// refuses a retry the bound allows. The other grants a retry on any fraction of a token, and
// so grants one more than the bound allows. The correct float bucket passes both checks.
func TestQuotaChecksCatchBrokenLimiters(t *testing.T) {
	limits := quotaLimits{0.1, 1}
	demand := quotaTrace("fr" + strings.Repeat("f", 10) + "r" + "fr")
	whole := floatBucket{limits, func(tokens float64) bool { return tokens >= 1 }}
	fraction := floatBucket{limits, func(tokens float64) bool { return tokens > 0 }}

	if err := limits.checkQuotaRefusals(whole.replay(demand)); err == nil || !strings.Contains(err.Error(),
		"event 12: a retry refused") {
		t.Errorf("checkQuotaRefusals(float sum) = %v, want the refusal at event 12", err)
	}
	if err := limits.checkQuotaBound(fraction.replay(demand)); err == nil || !strings.Contains(err.Error(),
		"more than burst 1") {
		t.Errorf("checkQuotaBound(any fraction) = %v, want a violation", err)
	}
	exact := quotaLimits{0.5, 1}
	half := floatBucket{exact, func(tokens float64) bool { return tokens >= 1 }}.replay(demand)
	if err := exact.checkQuotaBound(half); err != nil {
		t.Errorf("checkQuotaBound(exact float bucket) = %v, want nil", err)
	}
	if err := exact.checkQuotaRefusals(half); err != nil {
		t.Errorf("checkQuotaRefusals(exact float bucket) = %v, want nil", err)
	}
}
