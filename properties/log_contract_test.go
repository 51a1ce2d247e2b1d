package properties

import (
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// logAttempt logs a "pix attempt" record by pix's log contract, through attrs given to With: a
// handler must keep those too.
func logAttempt(l *slog.Logger, n int, errText string) {
	attrs := []any{"attempt", n, "outcome", "timeout", "transient", true, "wait", 50 * time.Millisecond,
		"elapsed", time.Second}
	if errText != "" {
		attrs = append(attrs, "error", errText)
	}
	l.With("key", "k1").Warn(msgAttempt, attrs...)
}

func TestParseRecordsReadsTheLogContract(t *testing.T) {
	store := newLogStore()
	l := slog.New(store)
	logAttempt(l, 1, "pix: Post: EOF")
	l.Info(msgSettled, "key", "k1", "attempts", 2, "endToEndId", "E1", "replayed", true)
	records := store.recorded()
	pay, look, err := parseRecords(records)
	if err != nil {
		t.Fatalf("parseRecords() error = %v", err)
	}
	wantAttempts := []Attempt{{At: records[0].Time, Number: 1, Key: "k1", Outcome: "timeout",
		Error: "pix: Post: EOF", Transient: true, Wait: 50 * time.Millisecond, Elapsed: time.Second}}
	if diff := cmp.Diff(wantAttempts, pay.Attempts); diff != "" {
		t.Errorf("attempts (-want +got):\n%s", diff)
	}
	wantSummary := &Summary{At: records[1].Time, Message: msgSettled, Key: "k1", Attempts: 2,
		EndToEndID: "E1", Replayed: true}
	if diff := cmp.Diff(wantSummary, pay.Summary); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	if look.Attempts != nil || look.Summary != nil {
		t.Errorf("lookup = %+v, want none", look)
	}
}

// TestParseRecordsReadsAResume: a Resume's payment attempts, ended by the key deadline, then its
// lookup, are read as two phases.
func TestParseRecordsReadsAResume(t *testing.T) {
	store := newLogStore()
	l := slog.New(store)
	logAttempt(l, 1, "pix: Post: EOF")
	l.Error(msgFailed, "key", "k1", "attempts", 1, "outcome_unknown", true, "error", "pix: key expired")
	l.Info(msgLookupAttempt, "attempt", 1, "key", "k1", "outcome", "found", "transient", false,
		"wait", time.Duration(0), "elapsed", time.Duration(0))
	l.Info(msgFound, "key", "k1", "attempts", 1, "endToEndId", "E1")
	records := store.recorded()
	pay, look, err := parseRecords(records)
	if err != nil {
		t.Fatalf("parseRecords() error = %v", err)
	}
	if len(pay.Attempts) != 1 || pay.Summary == nil || !pay.Summary.OutcomeUnknown {
		t.Errorf("payment = %+v, want 1 attempt and an outcome-unknown closing record", pay)
	}
	wantLookup := logged{Attempts: []Attempt{{At: records[2].Time, Number: 1, Key: "k1", Outcome: "found"}},
		Summary: &Summary{At: records[3].Time, Message: msgFound, Key: "k1", Attempts: 1, EndToEndID: "E1"}}
	if diff := cmp.Diff(wantLookup, look); diff != "" {
		t.Errorf("lookup (-want +got):\n%s", diff)
	}
}

func TestParseRecordsRefusesBrokenContracts(t *testing.T) {
	attempt := func(attempt, wait any) func(*slog.Logger) {
		return func(l *slog.Logger) {
			l.Info(msgAttempt, "attempt", attempt, "key", "k", "outcome", "o", "transient", true, "wait", wait,
				"elapsed", time.Duration(0))
		}
	}
	failed := func(l *slog.Logger) {
		l.Error(msgFailed, "key", "k", "attempts", 1, "outcome_unknown", false, "error", "e")
	}
	nothing := func(l *slog.Logger) { l.Info(msgFoundNothing, "key", "k", "attempts", 1) }
	settled := func(l *slog.Logger) {
		l.Info(msgSettled, "key", "k", "attempts", 1, "endToEndId", "E1", "replayed", false)
	}
	for _, c := range []struct {
		name string
		log  func(*slog.Logger)
		want string
	}{
		{"missing attribute", func(l *slog.Logger) { l.Info(msgAttempt, "attempt", 1) }, `no "key" attribute`},
		{"attribute of another kind", attempt("1", time.Duration(0)), `attribute "attempt" is a String, want Int64`},
		{"wait in seconds, not a Duration", attempt(1, 0.5), `attribute "wait" is a Float64, want Duration`},
		{"a failure logged at Info", func(l *slog.Logger) {
			l.Info(msgFailed, "key", "k", "attempts", 1, "outcome_unknown", false, "error", "e")
		}, "want warning or error"},
		{"an attempt after the closing record", func(l *slog.Logger) { failed(l); logAttempt(l, 2, "e") },
			"after the closing record"},
		{"no closing record", func(l *slog.Logger) { logAttempt(l, 1, "e") }, "no closing record"},
		{"two closing records", func(l *slog.Logger) { settled(l); settled(l) }, "after the closing record"},
		{"a payment after a lookup", func(l *slog.Logger) { nothing(l); failed(l) }, "payment record"},
		{"a lookup attempt after its closing record", func(l *slog.Logger) {
			nothing(l)
			l.Warn(msgLookupAttempt, "attempt", 2, "key", "k", "outcome", "o", "transient", true, "wait", time.Duration(0),
				"elapsed", time.Duration(0))
		}, "after the closing record"},
		{"a payment attempt with no closing record before a lookup",
			func(l *slog.Logger) { logAttempt(l, 1, "e"); nothing(l) }, "no closing record"},
		{"a lookup failure logged at Info", func(l *slog.Logger) {
			l.Info(msgLookupFailed, "key", "k", "attempts", 1, "outcome_unknown", true, "error", "e")
		}, "want warning or error"},
	} {
		store := newLogStore()
		c.log(slog.New(store))
		if _, _, err := parseRecords(store.recorded()); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: parseRecords() error = %v, want one saying %q", c.name, err, c.want)
		}
	}
}

func TestLogStoreFlattensGroups(t *testing.T) {
	store := newLogStore()
	slog.New(store).WithGroup("pix").With("key", "k").Info("m", slog.Group("http", "status", 503),
		"err", errors.New("boom"))
	got := store.recorded()[0].Attrs
	if got["pix.key"].String() != "k" || got["pix.http.status"].Int64() != 503 || got["pix.err"].String() != "boom" {
		t.Fatalf("attrs = %v, want pix.key, pix.http.status and pix.err", got)
	}
}
