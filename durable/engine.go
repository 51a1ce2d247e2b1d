package durable

import (
	"context"

	"github.com/riverqueue/river"
)

// engine is what the Payer needs from a database beyond River: transactions, its own SQL and
// the completion of a job inside a transaction. Queries use $1-style placeholders, which both
// engines read.
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
	// execPool runs q on the pool, in a transaction of its own.
	execPool(ctx context.Context, q string, args ...any) (int64, error)
	// now is an SQL expression of the database's clock in Unix microseconds, the same
	// throughout one statement.
	now() string
	complete(ctx context.Context, tx TTx, job *river.Job[payArgs]) error
	client(cfg *river.Config) (*river.Client[TTx], error)
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
