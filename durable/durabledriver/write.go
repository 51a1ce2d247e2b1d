package durabledriver

import (
	"context"
	"database/sql"
	"errors"
)

// Write is one statement of a group commit: a Payer's worker writes through one, and a
// Driver's GroupTx makes many in one transaction.
type Write struct {
	Query string
	Args  []any
	// Scan, when set, reads the row the statement returns. Nil means the statement returns
	// no row, and N counts the rows it changed.
	Scan func(Row) error
	// N is the rows the statement changed, once made without Scan.
	N int64
	// Err is the write's own result: sql.ErrNoRows for a statement whose row Scan found
	// missing, or the error of the group that failed it.
	Err error
}

// Set makes w's result that of its statement: exec runs it and returns the rows it changed,
// query runs it and returns its row. It returns an error that aborts the transaction. A
// statement with Scan that returns no row does not abort it: Err becomes sql.ErrNoRows. A
// write made again after its group failed gets the same result, since no write makes a row
// pending again: a statement that found no row finds none alone.
func (w *Write) Set(exec func() (int64, error), query func() Row) error {
	if w.Scan == nil {
		n, err := exec()
		w.N = n
		return err
	}
	if err := w.Scan(query()); !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	w.Err = sql.ErrNoRows
	return nil
}

// InTx is GroupTx for an engine without a cheaper way: it begins a transaction on d, which
// may wait for the database, makes in it the writes take returns, calls take again until it
// returns none, and commits. A write taken after Begin waited joins the group. It returns the
// error that rolled the transaction back.
func InTx[TTx any](ctx context.Context, d Driver[TTx], take func() []*Write) error {
	tx, err := d.Begin(ctx)
	if err != nil {
		return err
	}
	for more := take(); len(more) > 0; more = take() {
		for _, w := range more {
			err := w.Set(func() (int64, error) { return d.Exec(ctx, tx, w.Query, w.Args...) },
				func() Row { return d.QueryRow(ctx, tx, w.Query, w.Args...) })
			if err != nil {
				return errors.Join(err, d.Rollback(ctx, tx))
			}
		}
	}
	return d.Commit(ctx, tx)
}
