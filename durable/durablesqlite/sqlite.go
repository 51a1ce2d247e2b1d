// Package durablesqlite runs package durable on one SQLite database file, through River's
// riversqlite driver and the pure-Go modernc.org/sqlite. Open the file with [Open], and pass
// [New] of it to durable.New:
//
//	db, err := durablesqlite.Open("pay.db")
//	...
//	p, err := durable.New(ctx, durablesqlite.New(db), cfg)
//
// One process at a time works a database: Payer.Start takes a lock file beside it, and a
// second Start elsewhere fails with [ErrBusy]. Holding that lock proves that any job still
// marked running belongs to a dead process, so Start makes such jobs available at once rather
// than after River's rescue delay. Other processes may still store and read intents.
package durablesqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	_ "modernc.org/sqlite" // the pure-Go driver "sqlite"

	"pixretry/durable/durabledriver"
)

// Open opens the SQLite database file at path, creating it if absent, as New needs it: WAL, synchronous=FULL so that a commit survives a power loss, a busy timeout of
// 10 s for other processes on the file, and one connection, since SQLite runs one writer at
// a time. Close it after the Payer.
func Open(path string) (*sql.DB, error) {
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("durablesqlite: path %q is empty or holds ? or #", path)
	}
	// No "file:" prefix: SQLite would read the path as a URI and decode %41 to A, while the
	// lock files below take the path as it is.
	dsn := path + "?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)" +
		"&_pragma=busy_timeout(10000)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("durablesqlite: open %s: %w", path, err)
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
		return nil, fmt.Errorf("durablesqlite: open %s: %w", path, err)
	}
	return db, nil
}

// New returns the Driver of db, a database from Open, for durable.New. durable.New fails
// if db has no file, as an in-memory database has none.
func New(db *sql.DB) *Driver {
	return &Driver{db: db, river: riversqlite.New(db)}
}

// Driver is durable's driver for a SQLite database. Its methods are for package durable.
type Driver struct {
	db    *sql.DB
	river *riversqlite.Driver
	file  string    // set by Migrate
	run   *fileLock // held from TakeOver to Release
}

// Migrate finds the database's file, then calls migrate under a lock file beside it.
func (d *Driver) Migrate(ctx context.Context, migrate func(context.Context) error) error {
	if err := d.db.QueryRowContext(ctx, "SELECT file FROM pragma_database_list WHERE name = 'main'").
		Scan(&d.file); err != nil {
		return fmt.Errorf("durablesqlite: %w", err)
	}
	if d.file == "" {
		return errors.New("durablesqlite: the database has no file; use Open")
	}
	lock, err := lockFile(d.file+".migrate.lock", true)
	if err != nil {
		return err
	}
	defer lock.unlock()
	return migrate(ctx)
}

// Now reads SQLite's clock, which holds still within a statement. One process works a file,
// so its clock is every worker's.
func (d *Driver) Now() string { return "CAST(unixepoch('subsec') * 1000000 AS INTEGER)" }

func (d *Driver) Begin(ctx context.Context) (*sql.Tx, error) { return d.db.BeginTx(ctx, nil) }
func (d *Driver) Commit(_ context.Context, tx *sql.Tx) error { return tx.Commit() }
func (d *Driver) Rollback(_ context.Context, tx *sql.Tx) error {
	return tx.Rollback()
}

func (d *Driver) Exec(ctx context.Context, tx *sql.Tx, q string, args ...any) (int64, error) {
	res, err := tx.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// GroupTx begins a transaction, then takes the writes, so that those that arrive while it
// waits for the one connection join the group (see durabledriver.InTx).
func (d *Driver) GroupTx(ctx context.Context, self durabledriver.Driver[*sql.Tx], take func() []*durabledriver.Write) error {
	return durabledriver.InTx(ctx, self, take)
}

func (d *Driver) ExecPool(ctx context.Context, q string, args ...any) (int64, error) {
	res, err := d.db.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (d *Driver) QueryRow(ctx context.Context, tx *sql.Tx, q string, args ...any) durabledriver.Row {
	if tx == nil {
		return d.db.QueryRowContext(ctx, q, args...)
	}
	return tx.QueryRowContext(ctx, q, args...)
}

func (d *Driver) Query(ctx context.Context, q string, each func(durabledriver.Row) error, args ...any) error {
	rows, err := d.db.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return durabledriver.EachRow(rows, each)
}

func (d *Driver) RiverDriver() riverdriver.Driver[*sql.Tx] { return d.river }

// TakeOver takes the run lock, then makes every job of kind still marked running available:
// with the lock held, no live process can be working it. Another process holding the lock
// makes it fail with ErrBusy.
func (d *Driver) TakeOver(ctx context.Context, kind string) (int64, error) {
	lock, err := lockFile(d.file+".run.lock", false)
	if err != nil {
		return 0, err
	}
	n, err := d.ExecPool(ctx, `UPDATE river_job SET state = 'available' WHERE state = 'running' AND kind = $1`,
		kind)
	if err != nil {
		lock.unlock()
		return 0, fmt.Errorf("durablesqlite: take over the jobs of a dead run: %w", err)
	}
	d.run = lock
	return n, nil
}

// Release gives the run lock back.
func (d *Driver) Release() error {
	if d.run == nil {
		return nil
	}
	err := d.run.unlock()
	d.run = nil
	return err
}
