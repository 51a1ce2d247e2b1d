package durable

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	_ "modernc.org/sqlite" // the pure-Go driver "sqlite"
)

// OpenSQLite opens the SQLite database file at path, creating it if absent, as NewSQLite
// needs it: WAL, synchronous=FULL so that a commit survives a power loss, a busy timeout of
// 10 s for other processes on the file, and one connection, since SQLite runs one writer at
// a time. Close it after the Payer.
func OpenSQLite(path string) (*sql.DB, error) {
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("durable: SQLite path %q is empty or holds ? or #", path)
	}
	// No "file:" prefix: SQLite would read the path as a URI and decode %41 to A, while the
	// lock files below take the path as it is.
	dsn := path + "?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)" +
		"&_pragma=busy_timeout(10000)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("durable: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	// Switching a new file to WAL needs an exclusive lock, and SQLite may answer SQLITE_BUSY
	// at once rather than wait for it: processes that open the file at once take turns.
	lock, err := lockFile(path+".migrate.lock", true)
	if err != nil {
		db.Close()
		return nil, err
	}
	defer lock.unlock()
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("durable: open %s: %w", path, err)
	}
	return db, nil
}

// NewSQLite returns a Payer whose intents and jobs live in db, a database from OpenSQLite.
// It runs River's migrations and creates or upgrades the intent table if needed, under a lock
// file beside the database, so that processes starting at once do not race.
//
// One process at a time works a SQLite database: Start takes a lock file beside it, and a
// second Start elsewhere fails. Holding that lock proves that any job still marked running
// belongs to a dead process, so Start makes such jobs available at once rather than after
// River's rescue delay. Other processes may still call PayTx and Intents.
func NewSQLite(ctx context.Context, db *sql.DB, cfg Config) (*Payer[*sql.Tx], error) {
	var file string
	if err := db.QueryRowContext(ctx, "SELECT file FROM pragma_database_list WHERE name = 'main'").
		Scan(&file); err != nil {
		return nil, fmt.Errorf("durable: %w", err)
	}
	if file == "" {
		return nil, errors.New("durable: the SQLite database has no file; use OpenSQLite")
	}
	e := &sqliteEngine{db: db, driver: riversqlite.New(db), file: file}
	if err := e.migrate(ctx); err != nil {
		return nil, err
	}
	return newPayer(e, cfg)
}

// sqliteEngine is the engine of NewSQLite.
type sqliteEngine struct {
	db     *sql.DB
	driver *riversqlite.Driver
	file   string
	run    *fileLock // held from takeOver to release
}

func (e *sqliteEngine) migrate(ctx context.Context) error {
	lock, err := lockFile(e.file+".migrate.lock", true)
	if err != nil {
		return err
	}
	defer lock.unlock()
	return migrate(ctx, e)
}

// now reads SQLite's clock, which holds still within a statement. One process works a file,
// so its clock is every worker's.
func (e *sqliteEngine) now() string { return "CAST(unixepoch('subsec') * 1000000 AS INTEGER)" }

func (e *sqliteEngine) begin(ctx context.Context) (*sql.Tx, error) { return e.db.BeginTx(ctx, nil) }
func (e *sqliteEngine) commit(_ context.Context, tx *sql.Tx) error { return tx.Commit() }
func (e *sqliteEngine) rollback(_ context.Context, tx *sql.Tx) error {
	return tx.Rollback()
}

func (e *sqliteEngine) exec(ctx context.Context, tx *sql.Tx, q string, args ...any) (int64, error) {
	res, err := tx.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// groupTx begins a transaction, then takes the writes, so that those that arrive while it
// waits for the one connection join the group (see inTx).
func (e *sqliteEngine) groupTx(ctx context.Context, self engine[*sql.Tx], take func() []*write) ([]*write, error) {
	return inTx(ctx, self, take)
}

func (e *sqliteEngine) execPool(ctx context.Context, q string, args ...any) (int64, error) {
	res, err := e.db.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (e *sqliteEngine) queryRow(ctx context.Context, tx *sql.Tx, q string, args ...any) row {
	if tx == nil {
		return e.db.QueryRowContext(ctx, q, args...)
	}
	return tx.QueryRowContext(ctx, q, args...)
}

func (e *sqliteEngine) query(ctx context.Context, q string, each func(row) error, args ...any) error {
	rows, err := e.db.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return eachRow(rows, each)
}

func (e *sqliteEngine) riverDriver() riverdriver.Driver[*sql.Tx] { return e.driver }

// takeOver takes the run lock, then makes every payment job still marked running available:
// with the lock held, no live process can be working it.
func (e *sqliteEngine) takeOver(ctx context.Context) (int64, error) {
	lock, err := lockFile(e.file+".run.lock", false)
	if err != nil {
		return 0, err
	}
	n, err := e.execPool(ctx, `UPDATE river_job SET state = 'available' WHERE state = 'running' AND kind = $1`,
		payArgs{}.Kind())
	if err != nil {
		lock.unlock()
		return 0, fmt.Errorf("durable: take over the jobs of a dead run: %w", err)
	}
	e.run = lock
	return n, nil
}

func (e *sqliteEngine) release() error {
	if e.run == nil {
		return nil
	}
	err := e.run.unlock()
	e.run = nil
	return err
}
