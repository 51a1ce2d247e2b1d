package durable

// How Wait rides out a database that fails its looks for pending intents, and when it stops.

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"pixretry/durable/durabledriver"
	"pixretry/durable/durablesqlite"
)

// failedLooks is the SQLite engine, but the looks for pending intents for which fails
// returns true (given the look's number, 1 for the first) fail with errStorageFault. It counts
// the looks.
type failedLooks struct {
	*durablesqlite.Driver
	fails func(look int64) bool
	looks atomic.Int64
}

func (e *failedLooks) QueryRow(ctx context.Context, tx *sql.Tx, q string, args ...any) durabledriver.Row {
	if q == lookPending && e.fails(e.looks.Add(1)) {
		return failedRow{errStorageFault}
	}
	return e.Driver.QueryRow(ctx, tx, q, args...)
}

// lookWarnings counts the records of failed looks that logs kept.
func lookWarnings(logs *keptRecords) int {
	logs.mu.Lock()
	defer logs.mu.Unlock()
	n := 0
	for _, r := range logs.records {
		if r.Message == "durable: look for pending intents failed; looking again" && r.Level == slog.LevelWarn {
			n++
		}
	}
	return n
}

// Three failed looks are logged, looked at again, and forgotten once one succeeds.
func TestWaitLooksAgainAfterAFailedLook(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	logs := &keptRecords{}
	p := mustPayer(t, db, Config{PollInterval: 5 * time.Millisecond, Logger: slog.New(logs)})
	e := &failedLooks{Driver: p.db.(*durablesqlite.Driver), fails: func(look int64) bool { return look <= 3 }}
	p.db = e
	ctx, cancel := context.WithTimeout(context.Background(), stallAfter())
	defer cancel()
	if err := p.Wait(ctx); err != nil {
		t.Fatalf("Wait() after three failed looks: error = %v, want nil", err)
	}
	if got := e.looks.Load(); got != 4 {
		t.Errorf("Wait() looked %d times, want 4: three failed and one found nothing pending", got)
	}
	if got := lookWarnings(logs); got != 3 {
		t.Errorf("Wait() logged %d failed looks, want 3", got)
	}
	_, attrs, _ := logs.find("durable: look for pending intents failed")
	if got := attrs["error"].String(); !strings.Contains(got, errStorageFault.Error()) {
		t.Errorf("the first failed look's error attribute = %q, want the database's error", got)
	}
	if got, ok := attrs["failing_for"]; !ok || got.Duration() != 0 {
		t.Errorf("the first failed look's failing_for = %v (present %t), want 0: it starts the outage", got, ok)
	}
}

// A database that fails every look for OutageMax ends Wait with its error, measured on the
// Payer's clock from the first failed look of the outage; a look that succeeds ends the
// outage, and the next failure starts another.
func TestWaitReturnsTheErrorOfAnOutageLongerThanOutageMax(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name            string
		fails           func(look int64) bool
		looks, warnings int64
	}{
		// Each failed look reads the clock once, 10 s later than the last: the first starts
		// the outage, and the seventh finds it a minute old.
		{"every look fails", func(int64) bool { return true }, 7, 6},
		{"the fifth look succeeds", func(look int64) bool { return look != 5 }, 12, 10},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db, _ := mustSQLite(t)
			logs := &keptRecords{}
			p := mustPayer(t, db, Config{PollInterval: time.Millisecond, OutageMax: time.Minute, Logger: slog.New(logs)})
			mustPay(t, p, "a", payment(100)) // pending: looks that succeed keep Wait waiting
			clock := time.Unix(0, 0)
			p.now = func() time.Time { clock = clock.Add(10 * time.Second); return clock }
			e := &failedLooks{Driver: p.db.(*durablesqlite.Driver), fails: tt.fails}
			p.db = e
			ctx, cancel := context.WithTimeout(context.Background(), stallAfter())
			defer cancel()
			err := p.Wait(ctx)
			if !errors.Is(err, errStorageFault) {
				t.Fatalf("Wait() error = %v, want the database's", err)
			}
			if got := e.looks.Load(); got != tt.looks {
				t.Errorf("Wait() looked %d times before giving up, want %d", got, tt.looks)
			}
			if got := int64(lookWarnings(logs)); got != tt.warnings {
				t.Errorf("Wait() logged %d failed looks, want %d", got, tt.warnings)
			}
			if !strings.Contains(err.Error(), "every look failed for 1m0s") {
				t.Errorf("Wait() error = %q, want it to say for how long every look failed", err)
			}
		})
	}
}
