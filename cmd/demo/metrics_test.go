package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// The metric lines agree with the summary table above them, though read from the client's
// MeterProvider: pix.payments counts its rows by outcome, pix.attempts adds up its attempts
// column, and pix.retry.wait counts a wait before every attempt but the first of each payment.
func TestMetricLinesAgreeWithTheSummary(t *testing.T) {
	out := demoOutput(t, 1)
	rows := linesWithPrefix(out, "1 ", "2 ", "3 ", "4 ", "5 ")
	// The summary's outcome and replayed columns, as pix names the outcome of a call.
	outcomes := map[string]string{
		"settled no": "settled", "settled yes": "replayed",
		"refused: insufficient funds -": "refused", "failed: outcome unknown -": "unknown",
	}
	attempts, byOutcome := 0, map[string]int{}
	for _, row := range rows {
		f := strings.Fields(row) // scenario, attempts, the outcome's words, key, replayed
		n, err := strconv.Atoi(f[1])
		if err != nil {
			t.Fatalf("summary row %q: attempts %q: %v", row, f[1], err)
		}
		attempts += n
		outcome := strings.Join(f[2:len(f)-2], " ") + " " + f[len(f)-1]
		if outcomes[outcome] == "" {
			t.Fatalf("summary row %q: outcome %q, want one of %v", row, outcome, outcomes)
		}
		byOutcome[outcomes[outcome]]++
	}
	payments, got := metricLine(t, out, "pix.payments")
	if diff := cmp.Diff(byOutcome, got); diff != "" || payments != len(rows) {
		t.Errorf("pix.payments = %d, the summary has %d rows; by outcome (-summary +metrics):\n%s\noutput:\n%s", payments, len(rows), diff, out)
	}
	if got, _ := metricLine(t, out, "pix.attempts"); got != attempts {
		t.Errorf("pix.attempts = %d, the summary's attempts add up to %d\noutput:\n%s", got, attempts, out)
	}
	if got, _ := metricLine(t, out, "pix.retry.wait"); got != attempts-len(rows) {
		t.Errorf("pix.retry.wait = %d retries, want %d: every attempt but each payment's first\noutput:\n%s", got, attempts-len(rows), out)
	}
}

// metricLine reads the demo's line "metrics: NAME TOTAL (OUTCOME N, ...)" or "metrics: NAME
// TOTAL retries": the total and, if given, the count of each outcome.
func metricLine(t *testing.T, out, name string) (int, map[string]int) {
	t.Helper()
	lines := linesWithPrefix(out, "metrics: "+name+" ")
	if len(lines) != 1 {
		t.Fatalf("the output has %d lines for %s, want 1:\n%s", len(lines), name, out)
	}
	rest := strings.TrimPrefix(lines[0], "metrics: "+name+" ")
	totalText, parts, _ := strings.Cut(rest, " ")
	total, err := strconv.Atoi(totalText)
	if err != nil {
		t.Fatalf("line %q: total %q: %v", lines[0], totalText, err)
	}
	by := map[string]int{}
	if inner, ok := strings.CutPrefix(parts, "("); ok {
		for part := range strings.SplitSeq(strings.TrimSuffix(inner, ")"), ", ") {
			i := strings.LastIndexByte(part, ' ')
			n, err := strconv.Atoi(part[i+1:])
			if i < 0 || err != nil {
				t.Fatalf("line %q: outcome %q: want a name and a count", lines[0], part)
			}
			by[part[:i]] = n
		}
	}
	return total, by
}

func TestByOutcome(t *testing.T) {
	tests := []struct {
		counts map[string]int64
		want   string
	}{
		{map[string]int64{"settled": 3, "connection closed": 4, "timeout": 1, "replayed": 1}, "9 (connection closed 4, settled 3, replayed 1, timeout 1)"},
		{map[string]int64{"settled": 1}, "1 (settled 1)"},
		{map[string]int64{}, "0"},
	}
	for _, tt := range tests {
		if got := byOutcome(tt.counts); got != tt.want {
			t.Errorf("byOutcome(%v) = %q, want %q", tt.counts, got, tt.want)
		}
	}
}

// A point without an outcome attribute is counted as noOutcome, beside those with one.
func TestAddByOutcomeCountsPointsWithoutOne(t *testing.T) {
	counts := map[string]int64{}
	addByOutcome(counts, metricdata.Sum[int64]{DataPoints: []metricdata.DataPoint[int64]{
		{Attributes: attribute.NewSet(attribute.String("outcome", "settled")), Value: 2},
		{Attributes: attribute.NewSet(attribute.String("http.request.method", "PUT")), Value: 3},
		{Value: 4},
	}})
	if diff := cmp.Diff(map[string]int64{"settled": 2, noOutcome: 7}, counts); diff != "" {
		t.Errorf("addByOutcome() counts mismatch (-want +got):\n%s", diff)
	}
}
