package durable

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"testing"
	"time"

	"pixretry/durable/durabledriver"
	"pixretry/durable/durablesqlite"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
)

// intentTableV1 is pix_intent as the first version of the package made it, before
// pix_schema_version existed: no first_sent, no past_keys.
const intentTableV1 = `CREATE TABLE IF NOT EXISTS pix_intent (
	id              TEXT PRIMARY KEY,
	idempotency_key TEXT NOT NULL UNIQUE,
	amount_cents    BIGINT NOT NULL,
	pix_key         TEXT NOT NULL,
	description     TEXT NOT NULL,
	status          TEXT NOT NULL,
	attempts        INTEGER NOT NULL DEFAULT 0,
	last_error      TEXT NOT NULL DEFAULT '',
	end_to_end_id   TEXT NOT NULL DEFAULT '',
	settled_at      BIGINT NOT NULL DEFAULT 0,
	created_at      BIGINT NOT NULL,
	updated_at      BIGINT NOT NULL
)`

// version1 is a database as version 1 of the package left it: its statements and the
// insertion of an intent's job.
type version1 struct {
	exec      func(q string, args ...any) error
	insertJob func(id string) error
}

// store stores, as version 1 did, an intent never sent, one sent a minute ago, one sent two
// days ago whose key the PSP never saw, and one settled through l. It returns them as the
// upgraded Payer must read them: first_sent is created_at once an attempt was recorded.
func (v version1) store(t *testing.T, l ledger) []Intent {
	t.Helper()
	now := time.UnixMicro(time.Now().UnixMicro())
	r, err := l.client().Send(context.Background(), payment(104))
	if err != nil {
		t.Fatal(err)
	}
	want := []Intent{
		{ID: "a-never-sent", Payment: payment(101), Status: StatusPending, CreatedAt: now},
		{ID: "b-sent", Payment: payment(102), Status: StatusPending, Attempts: 2, FirstSent: now.Add(-time.Minute),
			CreatedAt: now.Add(-time.Minute), Error: "pix: outcome unknown"},
		{ID: "c-sent-long-ago", Payment: payment(103), Status: StatusPending, Attempts: 1,
			FirstSent: now.Add(-48 * time.Hour), CreatedAt: now.Add(-48 * time.Hour)},
		{ID: "d-settled", Key: r.IdempotencyKey, Payment: payment(104), Status: StatusSettled, Attempts: 1, FirstSent: now,
			EndToEndID: r.EndToEndID, SettledAt: r.SettledAt, CreatedAt: now},
	}
	for i := range want {
		in := &want[i]
		if in.Key == "" {
			in.Key = uuid.NewString()
		}
		in.Keys = []string{in.Key}
		var settledAt int64
		if in.Status == StatusSettled {
			settledAt = in.SettledAt.UnixNano()
		}
		err := v.exec(`INSERT INTO pix_intent (id, idempotency_key, amount_cents, pix_key, description, status,
			attempts, last_error, end_to_end_id, settled_at, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)`,
			in.ID, in.Key, in.Payment.AmountCents, in.Payment.PixKey, in.Payment.Description, string(in.Status),
			in.Attempts, in.Error, in.EndToEndID, settledAt, in.CreatedAt.UnixMicro())
		if err == nil && in.Status == StatusPending {
			err = v.insertJob(in.ID)
		}
		if err != nil {
			t.Fatalf("store version 1's intent %s: %v", in.ID, err)
		}
	}
	want[2].Status = StatusOverdue // as read: pending for longer than MaxAge, 24 h
	return want
}

// checkUpgraded holds the Payer p, opened on a database that version 1 left with want, to
// reading want, with the schema at its last version, and then to working the intents: each is
// settled once, the one whose key was sent two days ago under a new key, since its own is
// past the TTL and the PSP never saw it.
func checkUpgraded[TTx any](t *testing.T, l ledger, p *Payer[TTx], want []Intent) {
	t.Helper()
	got, err := collect(p.Intents(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Intents() after the upgrade: mismatch (-want +got):\n%s", diff)
	}
	var versions []int
	err = p.db.Query(context.Background(), "SELECT version FROM pix_schema_version ORDER BY version", func(r durabledriver.Row) error {
		var v int
		err := r.Scan(&v)
		versions = append(versions, v)
		return err
	})
	if err != nil || !slices.Equal(versions, []int{1, 2, 3, 4, 5}) {
		t.Errorf("pix_schema_version holds %v (error %v), want versions 1 to 5", versions, err)
	}
	stats, err := p.Stats(context.Background())
	want0 := statsOf(map[Status]int64{StatusPending: 2, StatusOverdue: 1, StatusSettled: 1}, want[2].CreatedAt)
	if diff := cmp.Diff(want0, stats); err != nil || diff != "" {
		t.Errorf("Stats() after the upgrade: error %v, mismatch (-want +got):\n%s", err, diff)
	}
	mustStart(t, p)
	all := awaitDone(t, p)
	checkLedger(t, l, all)
	stats, err = p.Stats(context.Background())
	if diff := cmp.Diff(statsOf(map[Status]int64{StatusSettled: 4}, time.Time{}), stats); err != nil || diff != "" {
		t.Errorf("Stats() once worked: error %v, mismatch (-want +got):\n%s", err, diff)
	}
	for i, in := range all {
		keys := 1
		if in.ID == "c-sent-long-ago" {
			keys = 2
		}
		if in.Status != StatusSettled || in.Keys[0] != want[i].Key || len(in.Keys) != keys {
			t.Errorf("intent %s after the upgrade = %+v, want settled, with %d keys from %s", in.ID, in, keys, want[i].Key)
		}
	}
}

func TestSQLiteUpgradesVersion1(t *testing.T) {
	t.Parallel()
	l := mustPSP(t)
	db, path := mustEmptySQLite(t)
	ctx := context.Background()
	v1 := sqliteVersion1(t, db)
	want := v1.store(t, l)
	p := mustPayer(t, db, l.config())
	// A second process opening the file finds it at the last version and changes nothing.
	other, err := durablesqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := New(ctx, durablesqlite.New(other), Config{}); err != nil {
		t.Fatalf("New() on an upgraded database: error = %v", err)
	}
	checkIndexOnly(t, db)
	checkUpgraded(t, l, p, want)
}

// sqliteVersion1 makes db as version 1 of the package made a new one.
func sqliteVersion1(t *testing.T, db *sql.DB) version1 {
	t.Helper()
	ctx := context.Background()
	driver := riversqlite.New(db)
	m, err := rivermigrate.New(driver, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(intentTableV1); err != nil {
		t.Fatal(err)
	}
	jobs, err := river.NewClient(driver, &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return version1{
		exec: func(q string, args ...any) error { _, err := db.Exec(q, args...); return err },
		insertJob: func(id string) error {
			_, err := jobs.Insert(ctx, payArgs{ID: id}, &river.InsertOpts{MaxAttempts: maxJobAttempts})
			return err
		},
	}
}

func TestPostgresUpgradesVersion1(t *testing.T) {
	t.Parallel()
	l := mustPSP(t)
	dsn := mustPostgresURL(t)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	driver := riverpgxv5.New(pool)
	m, err := rivermigrate.New(driver, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, intentTableV1); err != nil {
		t.Fatal(err)
	}
	jobs, err := river.NewClient(driver, &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	want := version1{
		exec: func(q string, args ...any) error { _, err := pool.Exec(ctx, q, args...); return err },
		insertJob: func(id string) error {
			_, err := jobs.Insert(ctx, payArgs{ID: id}, &river.InsertOpts{MaxAttempts: maxJobAttempts})
			return err
		},
	}.store(t, l)
	checkUpgraded[pgx.Tx](t, l, mustPostgresPayer(t, dsn, l.config()), want)
}

// A program older than the database's schema refuses it rather than misread it.
func TestNewOnSQLiteRefusesANewerSchema(t *testing.T) {
	t.Parallel()
	db, _ := mustEmptySQLite(t)
	mustPayer(t, db, Config{})
	if _, err := db.Exec("INSERT INTO pix_schema_version (version, applied_at) VALUES ($1, 0)", len(schemaSteps)+1); err != nil {
		t.Fatal(err)
	}
	_, err := New(context.Background(), durablesqlite.New(db), Config{})
	if !errors.Is(err, errSchemaAhead) {
		t.Errorf("New() on a schema at version %d: error = %v, want errSchemaAhead", len(schemaSteps)+1, err)
	}
}

// A failed step leaves the database at the version before it, and the next start applies it.
func TestMigrationStepIsAllOrNothing(t *testing.T) {
	t.Parallel()
	db, _ := mustEmptySQLite(t)
	sqliteVersion1(t, db)
	// pix_intent already has past_keys: step 2 adds first_sent, then fails to add past_keys.
	if _, err := db.Exec("ALTER TABLE pix_intent ADD COLUMN past_keys TEXT NOT NULL DEFAULT ''"); err != nil {
		t.Fatal(err)
	}
	if _, err := New(context.Background(), durablesqlite.New(db), Config{}); err == nil {
		t.Fatal("New() with step 2 failing: error = nil, want one")
	}
	// A step that left its transaction open would hold SQLite's one connection: bound the wait.
	ctx, cancel := context.WithTimeout(context.Background(), stallAfter())
	defer cancel()
	var version int
	err := db.QueryRowContext(ctx, "SELECT MAX(version) FROM pix_schema_version").Scan(&version)
	if err != nil || version != 1 {
		t.Errorf("schema version after a failed step 2 = %d (error %v), want 1", version, err)
	}
	if _, err := db.ExecContext(ctx, "ALTER TABLE pix_intent DROP COLUMN past_keys"); err != nil {
		t.Fatal(err)
	}
	mustPay(t, mustPayer(t, db, Config{}), "a", payment(100)) // first_sent was rolled back with the step
}

// New on SQLite waits for the migration lock that another process holds, rather than fail, and
// migrates once it is free.
func TestNewOnSQLiteWaitsForAnotherProcessMigrating(t *testing.T) {
	t.Parallel()
	db, path := mustSQLite(t)
	release := mustHoldLock(t, path+".migrate.lock") // as another process migrating would
	done := make(chan error, 1)
	go func() {
		_, err := New(context.Background(), durablesqlite.New(db), Config{})
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("New() returned %v while another process held the migration lock, want it to wait", err)
	case <-time.After(200 * time.Millisecond):
	}
	release()
	if err := <-done; err != nil {
		t.Errorf("New() once the lock was free: error = %v", err)
	}
}
