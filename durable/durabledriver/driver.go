// Package durabledriver is the seam between package durable and the databases it runs on, as
// riverdriver is River's. Package durable holds the payments' logic and no database driver.
// Each engine, durablesqlite or durablepgx, implements [Driver] in a package of its own, so
// that a program compiles only the database it uses. Programs pass a Driver to durable.New
// and call nothing here. Queries use $1-style placeholders, which both engines read.
package durabledriver

import (
	"context"
	"errors"

	"github.com/riverqueue/river/riverdriver"
)

// Driver is what a durable.Payer needs from a database: transactions, its own SQL and River's
// driver for the same database. TTx is the database's transaction type. A Payer calls a
// Driver from many goroutines at once.
type Driver[TTx any] interface {
	Begin(ctx context.Context) (TTx, error)
	Commit(ctx context.Context, tx TTx) error
	Rollback(ctx context.Context, tx TTx) error
	// Exec runs q in tx and returns the rows it changed.
	Exec(ctx context.Context, tx TTx, q string, args ...any) (int64, error)
	// ExecPool runs q outside any transaction of the caller, in one of its own.
	ExecPool(ctx context.Context, q string, args ...any) (int64, error)
	// QueryRow runs q in tx, or outside any transaction when tx is the zero value. A query
	// that finds no row makes Scan fail with an error wrapping sql.ErrNoRows.
	QueryRow(ctx context.Context, tx TTx, q string, args ...any) Row
	// Query runs q outside any transaction and calls each for every row, until each fails.
	Query(ctx context.Context, q string, each func(Row) error, args ...any) error
	// GroupTx makes the writes that take returns in one transaction: all commit, or none. It
	// may call take more than once, until take returns none, and must make every write take
	// returned (see Write.Set) unless the transaction fails. It returns the error that rolled
	// the transaction back. self is the Driver as the Payer holds it, which may wrap this one;
	// [InTx] makes the group through it.
	GroupTx(ctx context.Context, self Driver[TTx], take func() []*Write) error
	// Now is an SQL expression of the database's clock in Unix microseconds, the same
	// throughout one statement.
	Now() string
	// RiverDriver is River's driver for the same database.
	RiverDriver() riverdriver.Driver[TTx]
	// Migrate checks that the database can hold payments, then calls migrate while no other
	// process migrates the same database, and returns its error.
	Migrate(ctx context.Context, migrate func(context.Context) error) error
	// TakeOver makes the jobs of kind that a dead process left running available again, when
	// the engine can prove that their process is dead. It returns how many it took over.
	// Only one TakeOver at a time holds a database: another process's fails.
	TakeOver(ctx context.Context, kind string) (int64, error)
	// Release gives back what TakeOver holds. It does nothing if TakeOver holds nothing.
	Release() error
}

// ErrInvalidConfig reports a configuration that a Payer cannot run with: a Config's field, or
// a database handle set up too small. durable.ErrInvalidConfig is the same error.
var ErrInvalidConfig = errors.New("durable: invalid config")

// Row is a result row, as *sql.Row and pgx.Row both are.
type Row interface {
	Scan(dest ...any) error
}

// Rows is a result set, as *sql.Rows and pgx.Rows both are.
type Rows interface {
	Row
	Next() bool
	Err() error
}

// EachRow calls each for every row of rs, and returns the first error of each or of rs. The
// caller closes rs.
func EachRow(rs Rows, each func(Row) error) error {
	for rs.Next() {
		if err := each(rs); err != nil {
			return err
		}
	}
	return rs.Err()
}
