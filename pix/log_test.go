package pix_test

import (
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/pix"
	"pixretry/psp"
)

// errorSet stands for the "error" attribute in the wanted records: its text is net/http's or
// the PSP's; the final record's is compared with the error Send returned.
const errorSet = "(set)"

func TestLogRecords(t *testing.T) {
	tooMuch := pix.Payment{AmountCents: startBalance + 1, PixKey: "pix@example.com"}
	for _, tc := range []struct {
		name    string
		faults  []psp.Fault
		payment pix.Payment
		change  func(*pix.Client)
		want    func(e2e string) []record
	}{
		{
			name:   "a 503, then settled",
			faults: []psp.Fault{psp.Status(503)},
			want: func(e2e string) []record {
				return []record{
					attemptRecord(slog.LevelWarn, 1, "status 503 injected_fault", true, 50*time.Millisecond, 0),
					attemptRecord(slog.LevelInfo, 2, "settled", false, 0, 50*time.Millisecond),
					{slog.LevelInfo, "pix payment settled", map[string]any{
						"key": "k", "attempts": int64(2), "endToEndId": e2e, "replayed": false}},
				}
			},
		},
		{
			name:   "dropped, then replayed",
			faults: []psp.Fault{psp.Drop()},
			want: func(e2e string) []record {
				return []record{
					attemptRecord(slog.LevelWarn, 1, "connection closed", true, 50*time.Millisecond, 0),
					attemptRecord(slog.LevelInfo, 2, "replayed", false, 0, 50*time.Millisecond),
					{slog.LevelInfo, "pix payment settled", map[string]any{
						"key": "k", "attempts": int64(2), "endToEndId": e2e, "replayed": true}},
				}
			},
		},
		{
			name:   "timeouts until the budget is spent",
			faults: []psp.Fault{psp.Late(time.Hour), psp.Late(time.Hour)},
			change: func(c *pix.Client) { c.Policy.AttemptsMax = 2 },
			want: func(string) []record {
				return []record{
					attemptRecord(slog.LevelWarn, 1, "timeout", true, 50*time.Millisecond, time.Second),
					attemptRecord(slog.LevelWarn, 2, "timeout", true, 0, 2050*time.Millisecond),
					failedRecord(2, true),
				}
			},
		},
		{
			name:    "a refusal",
			payment: tooMuch,
			want: func(string) []record {
				return []record{
					attemptRecord(slog.LevelWarn, 1, "status 422 insufficient_funds", false, 0, 0),
					failedRecord(1, false),
				}
			},
		},
		{
			name:   "a Retry-After beyond DelayMax: no wait follows",
			faults: []psp.Fault{{Kind: "status", Status: 503, RetryAfter: time.Minute}},
			want: func(string) []record {
				return []record{
					attemptRecord(slog.LevelWarn, 1, "status 503 injected_fault", true, 0, 0),
					failedRecord(1, true),
				}
			},
		},
		{
			name:    "an invalid payment",
			payment: pix.Payment{AmountCents: -1, PixKey: "pix@example.com"},
			want:    func(string) []record { return []record{failedRecord(0, false)} },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t, psp.Config{})
				f.psp.Inject(tc.faults...)
				r, err := f.client(tc.change).SendWithKey(t.Context(), "k", orDefault(tc.payment))

				got := f.log.all()
				if err != nil && len(got) > 0 {
					last := got[len(got)-1]
					if last.Attrs["error"] != err.Error() {
						t.Errorf("final record error = %q, want Send's error %q", last.Attrs["error"], err.Error())
					}
				}
				for _, rec := range got {
					if _, ok := rec.Attrs["error"]; ok {
						rec.Attrs["error"] = errorSet
					}
				}
				if diff := cmp.Diff(tc.want(r.EndToEndID), got); diff != "" {
					t.Errorf("log records mismatch (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// attemptRecord is the record of one attempt; a failed one (level Warn) has an error.
func attemptRecord(level slog.Level, n int, outcome string, transient bool, wait, elapsed time.Duration) record {
	attrs := map[string]any{
		"attempt": int64(n), "key": "k", "outcome": outcome,
		"transient": transient, "wait": wait, "elapsed": elapsed,
	}
	if level == slog.LevelWarn {
		attrs["error"] = errorSet
	}
	return record{level, "pix attempt", attrs}
}

func failedRecord(attempts int, unknown bool) record {
	return record{slog.LevelError, "pix payment failed", map[string]any{
		"key": "k", "attempts": int64(attempts), "outcome_unknown": unknown, "error": errorSet}}
}
