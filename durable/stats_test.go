package durable

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"
	"time"

	"pixretry/durable/durabledriver"

	"github.com/google/go-cmp/cmp"
)

// statsOf is a Stats whose counts are counts, every status absent from it 0.
func statsOf(counts map[Status]int64, oldestPending time.Time) Stats {
	s := Stats{Intents: map[Status]int64{StatusPending: 0, StatusOverdue: 0, StatusSettled: 0, StatusRefused: 0},
		OldestPending: oldestPending}
	for status, n := range counts {
		s.Intents[status] = n
	}
	return s
}

func TestStatsCountsIntentsByStatus(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	checkStats(t, mustPayer(t, db, Config{MaxAge: time.Hour}))
}

func TestPostgresStatsCountsIntentsByStatus(t *testing.T) {
	t.Parallel()
	checkStats(t, mustPostgresPayer(t, mustPostgresURL(t), Config{MaxAge: time.Hour}))
}

// checkStats holds p, a Payer with a MaxAge of an hour on an empty database, to counting
// each status apart: a pending intent past MaxAge counts as overdue only, and the oldest
// pending one is the oldest of those pending or overdue, though settled and refused ones are
// older.
func checkStats[TTx any](t *testing.T, p *Payer[TTx]) {
	t.Helper()
	ctx := context.Background()
	got, err := p.Stats(ctx)
	if diff := cmp.Diff(statsOf(nil, time.Time{}), got); err != nil || diff != "" {
		t.Errorf("Stats() of no intent: error %v, mismatch (-want +got):\n%s", err, diff)
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	stored := map[string]Intent{}
	for _, in := range []struct {
		id string
		at time.Time
	}{{"refused", t0.Add(-2 * time.Hour)}, {"settled", t0.Add(-time.Hour)}, {"overdue", t0}, {"pending", t0.Add(30 * time.Minute)}} {
		p.now = func() time.Time { return in.at }
		stored[in.id] = mustPay(t, p, in.id, payment(100))
	}
	mustSettle(t, p, "settled")
	if err := p.record(ctx, stored["refused"], "status = $4, last_error = $5", StatusRefused, "refused"); err != nil {
		t.Fatal(err)
	}
	p.now = func() time.Time { return t0.Add(time.Hour + time.Microsecond) }
	got, err = p.Stats(ctx)
	want := statsOf(map[Status]int64{StatusPending: 1, StatusOverdue: 1, StatusSettled: 1, StatusRefused: 1}, t0)
	if diff := cmp.Diff(want, got); err != nil || diff != "" {
		t.Errorf("Stats() error %v, mismatch (-want +got):\n%s", err, diff)
	}
}

// Stats counts an intent as overdue exactly when Intent reports it so, to the nanosecond of
// the Payer's clock, though created_at counts microseconds.
func TestStatsJudgesOverdueAsIntentDoes(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, Config{MaxAge: time.Hour})
	stored := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p.now = func() time.Time { return stored }
	mustPay(t, p, "a", payment(100))
	for _, tt := range []struct {
		age  time.Duration
		want Status
	}{
		{time.Hour, StatusPending},
		{time.Hour + time.Nanosecond, StatusOverdue},
		{time.Hour + time.Microsecond, StatusOverdue},
	} {
		p.now = func() time.Time { return stored.Add(tt.age) }
		in, err := p.Intent(context.Background(), "a")
		if err != nil || in.Status != tt.want {
			t.Errorf("Intent() at age %v = %+v, %v; want status %s", tt.age, in, err, tt.want)
		}
		got, err := p.Stats(context.Background())
		if diff := cmp.Diff(statsOf(map[Status]int64{tt.want: 1}, stored), got); err != nil || diff != "" {
			t.Errorf("Stats() at age %v: error %v, mismatch (-want +got):\n%s", tt.age, err, diff)
		}
	}
}

// Stats and Wait read the index on status and created_at alone, the one index of pix_intent
// but its keys'.
func TestStatsReadsTheIndexAlone(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	checkIndexOnly(t, db)
}

// checkIndexOnly holds SQLite's plans of Stats's and Wait's queries on db to reading the
// covering index pix_intent_status_created, and pix_intent to that index beside those SQLite
// makes for its keys.
func checkIndexOnly(t *testing.T, db *sql.DB) {
	t.Helper()
	for _, q := range []struct {
		query string
		arg   any
	}{{countIntents, int64(0)}, {lookPending, StatusPending}} {
		var plan []string
		rows, err := db.Query("EXPLAIN QUERY PLAN "+q.query, q.arg)
		if err != nil {
			t.Fatal(err)
		}
		err = durabledriver.EachRow(rows, func(r durabledriver.Row) error {
			var id, parent, unused int
			var detail string
			err := r.Scan(&id, &parent, &unused, &detail)
			plan = append(plan, detail)
			return err
		})
		rows.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(plan, func(d string) bool {
			return strings.Contains(d, "USING COVERING INDEX pix_intent_status_created")
		}) {
			t.Errorf("plan of %q = %q, want it to read the covering index pix_intent_status_created", q.query, plan)
		}
	}
	var indexes []string
	rows, err := db.Query("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'pix_intent' AND sql IS NOT NULL")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	err = durabledriver.EachRow(rows, func(r durabledriver.Row) error {
		var name string
		err := r.Scan(&name)
		indexes = append(indexes, name)
		return err
	})
	if err != nil || !slices.Equal(indexes, []string{"pix_intent_status_created"}) {
		t.Errorf("indexes of pix_intent = %q (error %v), want pix_intent_status_created alone", indexes, err)
	}
}

// A row that Stats cannot read fails it, with the database's error.
func TestStatsReportsAnUnreadableRow(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, Config{})
	_, err := db.Exec(`INSERT INTO pix_intent (id, idempotency_key, amount_cents, pix_key, description, status,
		created_at, updated_at) VALUES ('a', 'key-a', 100, 'pix@example.com', '', 'pending', 'soon', 0)`)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := p.Stats(context.Background()); err == nil || !strings.HasPrefix(err.Error(), "durable: count intents: ") || s.Intents != nil {
		t.Errorf("Stats() = %+v, %v; want a durable error for the created_at it cannot read", s, err)
	}
}
