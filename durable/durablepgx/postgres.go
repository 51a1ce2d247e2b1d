// Package durablepgx runs package durable on a Postgres database, through pgx and River's
// riverpgxv5 driver. Pass [New] of a pool to durable.New:
//
//	pool, err := pgxpool.New(ctx, url)
//	...
//	p, err := durable.New(ctx, durablepgx.New(pool), cfg)
//
// Many processes may work one database. A job whose process died stays running until River's
// rescuer, run by the elected leader every 30 s, finds it older than Config.RescueAfter and
// hands it to a live process.
package durablepgx

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"pixretry/durable/durabledriver"
)

// migrationLock is the key of the session advisory lock under which a process migrates, so
// that a fleet starting at once migrates once: "pixretry" in ASCII.
const migrationLock int64 = 0x7069787265747279

// New returns the Driver of pool for durable.New. The pool needs 2 connections at least, for
// the migrations: durable.New fails with an error wrapping durable.ErrInvalidConfig with
// fewer.
func New(pool *pgxpool.Pool) *Driver {
	return &Driver{pool: pool, river: riverpgxv5.New(pool)}
}

// Driver is durable's driver for a Postgres database. Its methods are for package durable.
type Driver struct {
	pool  *pgxpool.Pool
	river *riverpgxv5.Driver
}

// migrating serialises the migrations of one process: each holds a connection for the lock
// while River's migrator takes another, so several at once could take the whole pool.
var migrating sync.Mutex

// Migrate calls migrate under a session advisory lock, so that a fleet starting at once
// migrates once.
func (d *Driver) Migrate(ctx context.Context, migrate func(context.Context) error) (err error) {
	if n := d.pool.Config().MaxConns; n < 2 {
		return fmt.Errorf("%w: the pool has %d connection, and migrating takes 2", durabledriver.ErrInvalidConfig, n)
	}
	migrating.Lock()
	defer migrating.Unlock()
	conn, err := d.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("durablepgx: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrationLock); err != nil {
		return fmt.Errorf("durablepgx: migration lock: %w", err)
	}
	defer func() {
		_, uerr := conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", migrationLock)
		err = errors.Join(err, uerr)
	}()
	return migrate(ctx)
}

// Now reads the database's clock, the one clock of every worker process, as of the start of
// the statement.
func (d *Driver) Now() string {
	return "(EXTRACT(EPOCH FROM statement_timestamp()) * 1000000)::BIGINT"
}

func (d *Driver) Begin(ctx context.Context) (pgx.Tx, error)     { return d.pool.Begin(ctx) }
func (d *Driver) Commit(ctx context.Context, tx pgx.Tx) error   { return tx.Commit(ctx) }
func (d *Driver) Rollback(ctx context.Context, tx pgx.Tx) error { return tx.Rollback(ctx) }

func (d *Driver) Exec(ctx context.Context, tx pgx.Tx, q string, args ...any) (int64, error) {
	tag, err := tx.Exec(ctx, q, args...)
	return tag.RowsAffected(), err
}

// GroupTx acquires a connection, then takes the writes and sends them in one round trip, a
// pipeline whose one Sync makes them one implicit transaction: all commit, or none.
func (d *Driver) GroupTx(ctx context.Context, _ durabledriver.Driver[pgx.Tx], take func() []*durabledriver.Write) error {
	conn, err := d.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	ws := take()
	var b pgx.Batch
	for _, w := range ws {
		b.Queue(w.Query, w.Args...)
	}
	br := conn.SendBatch(ctx, &b)
	for _, w := range ws {
		err := w.Set(func() (int64, error) {
			tag, err := br.Exec()
			return tag.RowsAffected(), err
		}, func() durabledriver.Row { return br.QueryRow() })
		if err != nil {
			return errors.Join(err, br.Close())
		}
	}
	return br.Close()
}

func (d *Driver) ExecPool(ctx context.Context, q string, args ...any) (int64, error) {
	tag, err := d.pool.Exec(ctx, q, args...)
	return tag.RowsAffected(), err
}

func (d *Driver) QueryRow(ctx context.Context, tx pgx.Tx, q string, args ...any) durabledriver.Row {
	if tx == nil {
		return d.pool.QueryRow(ctx, q, args...)
	}
	return tx.QueryRow(ctx, q, args...)
}

func (d *Driver) Query(ctx context.Context, q string, each func(durabledriver.Row) error, args ...any) error {
	rows, err := d.pool.Query(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return durabledriver.EachRow(rows, each)
}

func (d *Driver) RiverDriver() riverdriver.Driver[pgx.Tx] { return d.river }

// TakeOver takes nothing over: a live process may be working any running job, so River's
// rescuer decides.
func (d *Driver) TakeOver(context.Context, string) (int64, error) { return 0, nil }

// Release does nothing: TakeOver holds nothing.
func (d *Driver) Release() error { return nil }
