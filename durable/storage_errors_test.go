package durable

// What the Payer reports when the database fails it, and the texts a caller reads. The
// failures come from the real SQLite database (a trigger, a row it cannot read, an ended
// context) or, where none can be aimed at one call, from storageFaultEngine.

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"pixretry/durable/durabledriver"
	"pixretry/durable/durablesqlite"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// The sentinels' texts are what a caller logs or shows.
func TestSentinelErrorTexts(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err  error
		want string
	}{
		{durablesqlite.ErrBusy, "durablesqlite: another process is working this database"},
		{ErrInvalidConfig, "durable: invalid config"},
		{ErrIDReused, "durable: id already stored with another payment"},
		{ErrInvalidID, "durable: invalid id"},
		{ErrNotFound, "durable: no intent with this id"},
		{ErrNoClient, "durable: Config.Client is nil"},
		{errSchemaAhead, "durable: the database's schema is newer than this program's"},
	} {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

// The statuses' texts are stored in pix_intent and shown to operators.
func TestStatusTexts(t *testing.T) {
	t.Parallel()
	for status, want := range map[Status]string{StatusPending: "pending", StatusSettled: "settled",
		StatusRefused: "refused", StatusOverdue: "overdue"} {
		if string(status) != want {
			t.Errorf("Status %q, want %q", status, want)
		}
	}
}

// errStorageFault is the failure that storageFaultEngine injects.
var errStorageFault = errors.New("test: injected storage fault")

// storageFaultEngine is the SQLite engine, but the first call of method whose query holds
// match fails with errStorageFault instead of running. A failed commit rolls back, as SQLite
// does when it cannot commit.
type storageFaultEngine struct {
	*durablesqlite.Driver
	method, match string
	fired         bool
}

// fails reports whether the call of method with q is the one to fail.
func (e *storageFaultEngine) fails(method, q string) bool {
	if e.fired || method != e.method || !strings.Contains(q, e.match) {
		return false
	}
	e.fired = true
	return true
}

func (e *storageFaultEngine) Begin(ctx context.Context) (*sql.Tx, error) {
	if e.fails("begin", "") {
		return nil, errStorageFault
	}
	return e.Driver.Begin(ctx)
}

func (e *storageFaultEngine) Commit(ctx context.Context, tx *sql.Tx) error {
	if e.fails("commit", "") {
		return errors.Join(errStorageFault, e.Driver.Rollback(ctx, tx))
	}
	return e.Driver.Commit(ctx, tx)
}

func (e *storageFaultEngine) Exec(ctx context.Context, tx *sql.Tx, q string, args ...any) (int64, error) {
	if e.fails("exec", q) {
		return 0, errStorageFault
	}
	return e.Driver.Exec(ctx, tx, q, args...)
}

func (e *storageFaultEngine) ExecPool(ctx context.Context, q string, args ...any) (int64, error) {
	if e.fails("execPool", q) {
		return 0, errStorageFault
	}
	return e.Driver.ExecPool(ctx, q, args...)
}

func (e *storageFaultEngine) QueryRow(ctx context.Context, tx *sql.Tx, q string, args ...any) durabledriver.Row {
	if e.fails("queryRow", q) {
		return failedRow{errStorageFault}
	}
	return e.Driver.QueryRow(ctx, tx, q, args...)
}

// failedRow is a row whose query failed with err.
type failedRow struct{ err error }

func (r failedRow) Scan(...any) error { return r.err }

// Pay stores nothing and reports the database's failure at each of its steps.
func TestPayReportsEachStorageFailure(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, method, match string }{
		{"beginning", "begin", ""},
		{"storing the intent", "exec", "INSERT INTO pix_intent"},
		{"reading the intent stored under the id", "queryRow", "FROM pix_intent WHERE id"},
		{"committing", "commit", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db, _ := mustSQLite(t)
			p := mustPayer(t, db, Config{})
			stored := mustPay(t, p, "a", payment(100))
			p.db = &storageFaultEngine{Driver: p.db.(*durablesqlite.Driver), method: tt.method, match: tt.match}
			id := "b"
			if tt.method == "queryRow" {
				id = "a" // stored already: Pay reads it back
			}
			_, err := p.Pay(context.Background(), id, payment(100))
			if !errors.Is(err, errStorageFault) || !strings.HasPrefix(err.Error(), "durable: ") {
				t.Fatalf("Pay() error = %v, want a durable error wrapping the fault", err)
			}
			checkOnlyIntent(t, p, stored)
		})
	}
}

// checkOnlyIntent holds p's database to holding want, and the job of want only.
func checkOnlyIntent(tb testing.TB, p *Payer[*sql.Tx], want Intent) {
	tb.Helper()
	all, err := collect(p.Intents(context.Background()))
	if err != nil || len(all) != 1 || all[0].ID != want.ID || all[0].Key != want.Key {
		tb.Errorf("Intents() = %+v, %v; want only %+v", all, err, want)
	}
	var jobs int
	err = p.db.QueryRow(context.Background(), nil, "SELECT count(*) FROM river_job").Scan(&jobs)
	if err != nil || jobs != 1 {
		tb.Errorf("river_job holds %d jobs (error %v), want 1", jobs, err)
	}
}

// A job the database refuses to store fails PayTx, and the caller's rollback leaves nothing.
func TestPayTxReportsAJobItCannotStore(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, Config{})
	stored := mustPay(t, p, "a", payment(100))
	q := "CREATE TRIGGER refuse_job BEFORE INSERT ON river_job BEGIN SELECT RAISE(ABORT, '" + refusal + "'); END"
	if _, err := db.Exec(q); err != nil {
		t.Fatal(err)
	}
	_, err := p.Pay(context.Background(), "b", payment(100))
	var e *sqlite.Error
	if !errors.As(err, &e) || e.Code() != sqlite3.SQLITE_CONSTRAINT_TRIGGER || !strings.HasPrefix(err.Error(), "durable: ") {
		t.Fatalf("Pay() error = %v, want a durable error wrapping the trigger's refusal", err)
	}
	checkOnlyIntent(t, p, stored)
}

// Reads on an ended context fail with its error, never with a zero intent or ErrNotFound.
func TestReadsReportAnEndedContext(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, Config{})
	mustPay(t, p, "a", payment(100))
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if in, err := p.Intent(ended, "a"); !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "durable: ") {
		t.Errorf("Intent(an ended context) = %+v, %v; want a durable error wrapping context.Canceled", in, err)
	}
	if all, err := collect(p.Intents(ended)); !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "durable: ") || all != nil {
		t.Errorf("Intents(an ended context) = %+v, %v; want a durable error wrapping context.Canceled", all, err)
	}
	if s, err := p.Stats(ended); !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "durable: count intents: ") || s.Intents != nil {
		t.Errorf("Stats(an ended context) = %+v, %v; want a durable error wrapping context.Canceled", s, err)
	}
}

// A stored row that cannot be read as an intent is reported: Intents lists nothing, Pay under
// its id does not claim ErrIDReused, and the database stays free for what follows.
func TestUnreadableIntentIsReported(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, Config{})
	mustPay(t, p, "b", payment(100))
	_, err := db.Exec(`INSERT INTO pix_intent (id, idempotency_key, amount_cents, pix_key, description, status,
		created_at, updated_at) VALUES ('a', 'key-a', 'lots', 'pix@example.com', '', 'pending', 0, 0)`)
	if err != nil {
		t.Fatal(err)
	}
	if all, err := collect(p.Intents(context.Background())); err == nil || all != nil {
		t.Errorf("Intents() = %+v, %v; want an error for intent a", all, err)
	}
	if _, err := p.Pay(context.Background(), "a", payment(100)); err == nil || errors.Is(err, ErrIDReused) {
		t.Errorf("Pay(a) error = %v, want the read's failure, not ErrIDReused", err)
	}
	// A listing that stopped early and kept its rows open would hold the one connection.
	ctx, cancel := context.WithTimeout(context.Background(), stallAfter())
	defer cancel()
	if in, err := p.Intent(ctx, "b"); err != nil || in.ID != "b" {
		t.Errorf("Intent(b) after the failures = %+v, %v; want intent b", in, err)
	}
}

// A failed step of the intent table's schema is reported, leaves the database at the version
// before it, and the next migration applies it.
func TestMigrateIntentsStopsAtAFailedStep(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, method, match string
		version             int // where the failure leaves the database
	}{
		{"creating the version table", "execPool", "pix_schema_version", 0},
		{"reading the version", "queryRow", "FROM pix_schema_version", 0},
		{"beginning step 1", "begin", "", 0},
		{"recording step 1", "exec", "INSERT INTO pix_schema_version", 0},
		{"a statement of step 2", "exec", "ADD COLUMN past_keys", 1},
		{"a statement of step 4", "exec", "DROP INDEX", 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db, _ := mustEmptySQLite(t)
			real := durablesqlite.New(db)
			faulty := &storageFaultEngine{Driver: real, method: tt.method, match: tt.match}
			err := migrateIntents(context.Background(), faulty)
			if !errors.Is(err, errStorageFault) || !strings.HasPrefix(err.Error(), "durable: ") {
				t.Fatalf("migrateIntents() error = %v, want a durable error wrapping the fault", err)
			}
			if got := schemaVersionOf(t, db); got != tt.version {
				t.Errorf("schema version after the failure = %d, want %d", got, tt.version)
			}
			if err := migrateIntents(context.Background(), real); err != nil {
				t.Fatalf("migrateIntents() again: error = %v", err)
			}
			if got := schemaVersionOf(t, db); got != len(schemaSteps) {
				t.Errorf("schema version after the next migration = %d, want %d", got, len(schemaSteps))
			}
		})
	}
}

// schemaVersionOf is the last step recorded in db, 0 if none is. A transaction left open
// would hold the one connection: the read is bounded.
func schemaVersionOf(tb testing.TB, db *sql.DB) int {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), stallAfter())
	defer cancel()
	var tables int
	err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE name = 'pix_schema_version'").Scan(&tables)
	if err != nil || tables == 0 {
		if err != nil {
			tb.Fatal(err)
		}
		return 0
	}
	var v int
	if err := db.QueryRowContext(ctx, "SELECT COALESCE(MAX(version), 0) FROM pix_schema_version").Scan(&v); err != nil {
		tb.Fatal(err)
	}
	return v
}

// A job completes only once its intent's receipt has committed: the database refuses a
// completion that comes first, and this payment's job completes.
func TestSettlementCommitsBeforeTheJobsCompletion(t *testing.T) {
	t.Parallel()
	l := mustPSP(t)
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, l.config())
	mustPay(t, p, "a", payment(100))
	q := "CREATE TRIGGER completion_after_receipt BEFORE UPDATE ON river_job WHEN NEW.state = 'completed' " +
		"AND (SELECT status FROM pix_intent WHERE id = json_extract(NEW.args, '$.id')) IS NOT 'settled' " +
		"BEGIN SELECT RAISE(ABORT, '" + refusal + "'); END"
	if _, err := db.Exec(q); err != nil {
		t.Fatal(err)
	}
	mustStart(t, p)
	checkLedger(t, l, awaitDone(t, p))
	if err := p.Stop(context.Background()); err != nil { // River completes the jobs it worked
		t.Fatal(err)
	}
	if state, attempt := payJob(t, db); state != "completed" || attempt != 1 {
		t.Errorf("the job ended %s at attempt %d, want completed at attempt 1", state, attempt)
	}
}

// keptRecords is a slog.Handler that keeps the Payer's records, without the attributes
// added by With, and calls on, if set, for each.
type keptRecords struct {
	mu      sync.Mutex
	records []slog.Record
	on      func(slog.Record)
}

func (h *keptRecords) Enabled(context.Context, slog.Level) bool { return true }
func (h *keptRecords) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *keptRecords) WithGroup(string) slog.Handler            { return h }

func (h *keptRecords) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	h.records = append(h.records, r.Clone())
	h.mu.Unlock()
	if h.on != nil {
		h.on(r)
	}
	return nil
}

// find returns the level and attributes of the first record whose message holds msg, and
// whether there is one.
func (h *keptRecords) find(msg string) (slog.Level, map[string]slog.Value, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.records {
		if strings.Contains(r.Message, msg) {
			attrs := map[string]slog.Value{}
			r.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value; return true })
			return r.Level, attrs, true
		}
	}
	return 0, nil, false
}

// mustKeptRecordsPayer returns a PSP, a database and a Payer on them whose records logs keeps.
func mustKeptRecordsPayer(t *testing.T) (ledger, *sql.DB, *Payer[*sql.Tx], *keptRecords) {
	t.Helper()
	l := mustPSP(t)
	db, _ := mustSQLite(t)
	logs := &keptRecords{}
	cfg := l.config()
	cfg.Logger = slog.New(logs)
	return l, db, mustPayer(t, db, cfg), logs
}

// Start warns, for an operator, how many jobs of a dead run it made available.
func TestStartLogsTheJobsItTookOver(t *testing.T) {
	t.Parallel()
	l, db, p, logs := mustKeptRecordsPayer(t)
	mustPay(t, p, "a", payment(100))
	mustPay(t, p, "b", payment(101))
	if _, err := db.Exec("UPDATE river_job SET state = 'running', attempt = 1"); err != nil {
		t.Fatal(err)
	}
	mustStart(t, p)
	level, attrs, ok := logs.find("durable: started")
	if n := attrs["jobs_taken_over"]; !ok || level != slog.LevelWarn || n.Kind() != slog.KindInt64 || n.Int64() != 2 {
		t.Errorf("record %q: found %v, level %v, attributes %v; want a warning with jobs_taken_over=2",
			"durable: started", ok, level, attrs)
	}
	checkLedger(t, l, awaitDone(t, p))
}

// Stop on a live context lets the attempts in flight end: it never asks River for the hard
// stop that cancels them, which River would log.
func TestStopOnALiveContextIsNoHardStop(t *testing.T) {
	t.Parallel()
	_, _, p, logs := mustKeptRecordsPayer(t)
	if err := p.Start(context.Background()); err != nil {
		t.Fatalf("Start() error = %v", err)
	}
	if err := p.Stop(context.Background()); err != nil {
		t.Fatalf("Stop() error = %v", err)
	}
	if _, _, ok := logs.find("Hard stop"); ok {
		t.Error("Stop(a live context) made a hard stop, cancelling the attempts in flight")
	}
}

// A Start that River refuses fails with River's error and gives back the run lock.
func TestStartThatRiverRefusesReleasesTheRunLock(t *testing.T) {
	t.Parallel()
	l := mustPSP(t)
	db, _ := mustSQLite(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := l.config()
	// River's Start checks the database on ctx: ending it once the jobs are taken over makes
	// River refuse.
	cfg.Logger = slog.New(&keptRecords{on: func(r slog.Record) {
		if r.Message == "durable: started" {
			cancel()
		}
	}})
	p := mustPayer(t, db, cfg)
	if err := p.Start(ctx); !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "durable: ") {
		t.Fatalf("Start() error = %v, want a durable error wrapping River's context.Canceled", err)
	}
	mustStart(t, mustPayer(t, db, l.config()))
}

// A Start that cannot make the jobs of a dead run available fails with the database's error
// and gives back the run lock.
func TestStartThatCannotTakeOverReleasesTheRunLock(t *testing.T) {
	t.Parallel()
	l := mustPSP(t)
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, l.config())
	mustPay(t, p, "a", payment(100))
	if _, err := db.Exec("UPDATE river_job SET state = 'running', attempt = 1"); err != nil {
		t.Fatal(err)
	}
	q := "CREATE TRIGGER refuse_takeover BEFORE UPDATE ON river_job WHEN NEW.state = 'available' " +
		"BEGIN SELECT RAISE(ABORT, '" + refusal + "'); END"
	if _, err := db.Exec(q); err != nil {
		t.Fatal(err)
	}
	err := p.Start(context.Background())
	var e *sqlite.Error
	if !errors.As(err, &e) || e.Code() != sqlite3.SQLITE_CONSTRAINT_TRIGGER || !strings.HasPrefix(err.Error(), "durablesqlite: ") {
		t.Fatalf("Start() error = %v, want a durablesqlite error wrapping the trigger's refusal", err)
	}
	if _, err := db.Exec("DROP TRIGGER refuse_takeover"); err != nil {
		t.Fatal(err)
	}
	mustStart(t, p)
	checkLedger(t, l, awaitDone(t, p))
}

// countProbe is the engine of a Payer, but calls counted after each count of pending intents
// that Wait reads.
type countProbe struct {
	durabledriver.Driver[*sql.Tx]
	counted func()
}

func (e countProbe) QueryRow(ctx context.Context, tx *sql.Tx, q string, args ...any) durabledriver.Row {
	r := e.Driver.QueryRow(ctx, tx, q, args...)
	if q != lookPending {
		return r
	}
	return scannedThen{r, e.counted}
}

// scannedThen is a row that calls then once scanned.
type scannedThen struct {
	durabledriver.Row
	then func()
}

func (r scannedThen) Scan(dest ...any) error {
	err := r.Row.Scan(dest...)
	r.then()
	return err
}

// Wait looks again when a job of this process ends an attempt, without waiting for the
// PollInterval.
func TestWaitWakesWhenAJobEnds(t *testing.T) {
	l := mustPSP(t)
	db, _ := mustSQLite(t)
	cfg := l.config()
	cfg.PollInterval = time.Hour // River fetches once at Start, then polls hourly
	p := mustPayer(t, db, cfg)
	mustPay(t, p, "a", payment(100))
	// The attempt waits for Wait's first count, so that Wait finds the intent pending.
	counted := make(chan struct{})
	p.db = countProbe{p.db, sync.OnceFunc(func() { close(counted) })}
	onCrashPoint(p, func(point string) {
		if point == "before-attempt" {
			<-counted
		}
	})
	mustStart(t, p)
	ctx, cancel := context.WithTimeout(context.Background(), stallAfter())
	defer cancel()
	if err := p.Wait(ctx); err != nil {
		t.Fatalf("Wait() error = %v, want nil once the job settled", err)
	}
	checkLedger(t, l, awaitDone(t, p))
}

// Wait returns ctx's error itself once ctx ends while it waits, not a failed count.
func TestWaitReturnsTheErrorOfAContextEndedWhileWaiting(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, Config{PollInterval: time.Hour})
	mustPay(t, p, "a", payment(100))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p.db = countProbe{p.db, cancel}
	if err := p.Wait(ctx); err != ctx.Err() { // the doc promises ctx's error itself
		t.Errorf("Wait() error = %v, want ctx.Err() = %v", err, ctx.Err())
	}
}
