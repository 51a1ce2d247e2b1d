package durable

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
)

// migrationLock is the key of the session advisory lock under which a process migrates, so
// that a fleet starting at once migrates once: "pixretry" in ASCII.
const migrationLock int64 = 0x7069787265747279

// NewPostgres returns a Payer whose intents and jobs live in the database of pool. It runs
// River's migrations and creates or upgrades the intent table if needed, under an advisory
// lock, so that processes starting at once do not race.
//
// Many processes may work one database. A job whose process died stays running until River's
// rescuer, run by the elected leader every 30 s, finds it older than Config.RescueAfter and
// hands it to a live process.
func NewPostgres(ctx context.Context, pool *pgxpool.Pool, cfg Config) (*Payer[pgx.Tx], error) {
	e := &pgEngine{pool: pool, driver: riverpgxv5.New(pool)}
	if err := e.migrate(ctx); err != nil {
		return nil, err
	}
	return newPayer(e, cfg)
}

// pgEngine is the engine of NewPostgres.
type pgEngine struct {
	pool   *pgxpool.Pool
	driver *riverpgxv5.Driver
}

// migrating serialises the migrations of one process: each holds a connection for the lock
// while River's migrator takes another, so several at once could take the whole pool.
var migrating sync.Mutex

func (e *pgEngine) migrate(ctx context.Context) (err error) {
	if n := e.pool.Config().MaxConns; n < 2 {
		return fmt.Errorf("%w: the pool has %d connection, and migrating takes 2", ErrInvalidConfig, n)
	}
	migrating.Lock()
	defer migrating.Unlock()
	conn, err := e.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("durable: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrationLock); err != nil {
		return fmt.Errorf("durable: migration lock: %w", err)
	}
	defer func() {
		_, uerr := conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", migrationLock)
		err = errors.Join(err, uerr)
	}()
	return migrate(ctx, e)
}

// now reads the database's clock, the one clock of every worker process, as of the start of
// the statement.
func (e *pgEngine) now() string {
	return "(EXTRACT(EPOCH FROM statement_timestamp()) * 1000000)::BIGINT"
}

func (e *pgEngine) begin(ctx context.Context) (pgx.Tx, error)     { return e.pool.Begin(ctx) }
func (e *pgEngine) commit(ctx context.Context, tx pgx.Tx) error   { return tx.Commit(ctx) }
func (e *pgEngine) rollback(ctx context.Context, tx pgx.Tx) error { return tx.Rollback(ctx) }

func (e *pgEngine) exec(ctx context.Context, tx pgx.Tx, q string, args ...any) (int64, error) {
	tag, err := tx.Exec(ctx, q, args...)
	return tag.RowsAffected(), err
}

// groupTx acquires a connection, then takes the writes and sends them in one round trip, a
// pipeline whose one Sync makes them one implicit transaction: all commit, or none.
func (e *pgEngine) groupTx(ctx context.Context, _ engine[pgx.Tx], take func() []*write) ([]*write, error) {
	conn, err := e.pool.Acquire(ctx)
	if err != nil {
		return take(), err
	}
	defer conn.Release()
	ws := take()
	var b pgx.Batch
	for _, w := range ws {
		b.Queue(w.q, w.args...)
	}
	br := conn.SendBatch(ctx, &b)
	for _, w := range ws {
		err := w.set(func() (int64, error) {
			tag, err := br.Exec()
			return tag.RowsAffected(), err
		}, func() row { return br.QueryRow() })
		if err != nil {
			return ws, errors.Join(err, br.Close())
		}
	}
	return ws, br.Close()
}

func (e *pgEngine) execPool(ctx context.Context, q string, args ...any) (int64, error) {
	tag, err := e.pool.Exec(ctx, q, args...)
	return tag.RowsAffected(), err
}

func (e *pgEngine) queryRow(ctx context.Context, tx pgx.Tx, q string, args ...any) row {
	if tx == nil {
		return e.pool.QueryRow(ctx, q, args...)
	}
	return tx.QueryRow(ctx, q, args...)
}

func (e *pgEngine) query(ctx context.Context, q string, each func(row) error, args ...any) error {
	rows, err := e.pool.Query(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return eachRow(rows, each)
}

func (e *pgEngine) riverDriver() riverdriver.Driver[pgx.Tx] { return e.driver }

// takeOver takes nothing over: a live process may be working any running job, so River's
// rescuer decides.
func (e *pgEngine) takeOver(context.Context) (int64, error) { return 0, nil }
func (e *pgEngine) release() error                          { return nil }
