package durable

import (
	"context"

	"fmt"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivermigrate"
)

// engine is what the Payer needs from a database: transactions, its own SQL and River's
// driver. Queries use $1-style placeholders, which both engines read. What the engines share
// is written once below: their migrations and the reading of rows.
type engine[TTx any] interface {
	begin(ctx context.Context) (TTx, error)
	commit(ctx context.Context, tx TTx) error
	rollback(ctx context.Context, tx TTx) error
	// exec runs q in tx and returns the rows it changed.
	exec(ctx context.Context, tx TTx, q string, args ...any) (int64, error)
	// queryRow runs q in tx, or on the pool when tx is the zero value.
	queryRow(ctx context.Context, tx TTx, q string, args ...any) row
	// query runs q on the pool and calls each for every row.
	query(ctx context.Context, q string, each func(row) error, args ...any) error
	// groupTx makes the writes take returns in one transaction and returns them, with the
	// error that rolled the transaction back (see groupCommit). self is the engine as the
	// Payer holds it, which may wrap this one.
	groupTx(ctx context.Context, self engine[TTx], take func() []*write) ([]*write, error)
	// execPool runs q on the pool, in a transaction of its own.
	execPool(ctx context.Context, q string, args ...any) (int64, error)
	// now is an SQL expression of the database's clock in Unix microseconds, the same
	// throughout one statement.
	now() string
	// riverDriver is River's driver for the same database.
	riverDriver() riverdriver.Driver[TTx]
	// takeOver makes the jobs of a dead worker available again, when the engine can prove
	// that their worker is dead (see NewSQLite). It returns how many it took over.
	takeOver(ctx context.Context) (int64, error)
	// release gives back what takeOver held.
	release() error
}

// row is a result row, as *sql.Row and pgx.Row both are.
type row interface {
	Scan(dest ...any) error
}

// rows is a result set, as *sql.Rows and pgx.Rows both are.
type rows interface {
	row
	Next() bool
	Err() error
}

// eachRow calls each for every row of rs, and returns the first error of each or of rs.
func eachRow(rs rows, each func(row) error) error {
	for rs.Next() {
		if err := each(rs); err != nil {
			return err
		}
	}
	return rs.Err()
}

// migrate runs River's migrations, then the intent table's steps. The caller holds the
// engine's migration lock.
func migrate[TTx any](ctx context.Context, e engine[TTx]) error {
	m, err := rivermigrate.New(e.riverDriver(), nil)
	if err != nil {
		return fmt.Errorf("durable: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("durable: River's migrations: %w", err)
	}
	return migrateIntents(ctx, e)
}
