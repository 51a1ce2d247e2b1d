package durable

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"sync"
	"time"
)

// groupCommit commits the writes of many workers in one transaction, as a database's own
// group commit does. A write that arrives while no group is open leads one: it begins a
// transaction, which may wait for the database, then makes itself and every write that has
// arrived by then, then those that arrived while it made them, and commits. Writes that
// arrive during the commit wait, and the first of them leads the next group. One worker alone
// commits each write by itself; ten workers share commits. A write returns once its group
// has committed, so what it records is durable before the worker acts on it. One group is
// open at a time: four at once, measured, made more commits and no more payments.
//
// A group runs under the context of the write that leads it, without its cancellation, for
// at most timeout: it commits the writes of other workers too. A write whose context ends
// while it waits for a group leaves the queue, unmade. A write whose statement the
// database refuses is not another's failure: the group rolls back, and each of its writes is
// made again in a transaction of its own.
type groupCommit[TTx any] struct {
	timeout time.Duration

	mu      sync.Mutex
	queue   []*write // the writes waiting for the next group, in arrival order
	leading bool     // a group is open; once it commits, queue[0] leads the next
}

// write is one statement of a group. scan, when set, reads the row the statement returns; a
// statement that returns no row makes w.err a no-rows error. Otherwise n is the rows changed.
type write struct {
	q    string
	args []any
	scan func(row) error
	n    int64
	err  error
	turn chan bool // true: lead the next group; false: committed or failed, see err
}

// do makes w in a group, on db if it leads the group, and returns its error: ctx's if ctx
// has ended before w joins a group (see wait), else the statement's or the group's.
func (g *groupCommit[TTx]) do(ctx context.Context, db engine[TTx], w *write) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	w.turn = make(chan bool, 1)
	g.mu.Lock()
	lead := !g.leading
	if lead {
		g.leading = true
	} else {
		g.queue = append(g.queue, w)
	}
	g.mu.Unlock()
	if !lead {
		leads, err := g.wait(ctx, w)
		if !leads {
			return err
		}
	}
	group := g.commit(ctx, db, w)
	g.mu.Lock()
	if len(g.queue) > 0 {
		next := g.queue[0]
		g.queue = g.queue[1:]
		next.turn <- true
	} else {
		g.leading = false
	}
	g.mu.Unlock()
	for _, o := range group[1:] {
		o.turn <- false
	}
	return w.err
}

// wait waits for w's turn: true if w leads the next group, else w's error once its group has
// committed. A write whose ctx ends while it waits in the queue leaves it, and is never made:
// it returns ctx's error. One already taken into a group, or handed the lead, sees it through.
func (g *groupCommit[TTx]) wait(ctx context.Context, w *write) (bool, error) {
	select {
	case leads := <-w.turn:
		return leads, w.err
	case <-ctx.Done():
	}
	g.mu.Lock()
	i := slices.Index(g.queue, w)
	if i >= 0 {
		g.queue = slices.Delete(g.queue, i, i+1)
	}
	g.mu.Unlock()
	if i >= 0 {
		return false, ctx.Err()
	}
	leads := <-w.turn
	return leads, w.err
}

// commit makes the group that leader leads in one transaction or, if the database refuses
// it, each of its writes again in a transaction of its own. It returns the group, leader
// first.
func (g *groupCommit[TTx]) commit(ctx context.Context, db engine[TTx], leader *write) []*write {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), g.timeout)
	defer cancel()
	group, err := g.grouped(ctx, db, leader)
	if err == nil {
		return group
	}
	for _, w := range group {
		if err := g.alone(ctx, db, w); err != nil {
			w.err = err
		}
	}
	return group
}

// grouped makes leader and every write that arrives while it waits for the database, then
// while its writes are made, in one transaction (see inTx). It returns the writes it made,
// leader first, and the error that rolled the transaction back.
func (g *groupCommit[TTx]) grouped(ctx context.Context, db engine[TTx], leader *write) ([]*write, error) {
	first := true
	return db.groupTx(ctx, db, func() []*write {
		if first {
			first = false
			return append([]*write{leader}, g.take()...)
		}
		return g.take()
	})
}

// alone makes w in a transaction of its own.
func (g *groupCommit[TTx]) alone(ctx context.Context, db engine[TTx], w *write) error {
	ws := []*write{w}
	_, err := db.groupTx(ctx, db, func() []*write {
		taken := ws
		ws = nil
		return taken
	})
	return err
}

// inTx begins a transaction on db, which may wait for the database, makes in it the writes
// take returns, calls take again until it returns none, and commits. It returns the writes it
// made and the error that rolled the transaction back.
func inTx[TTx any](ctx context.Context, db engine[TTx], take func() []*write) ([]*write, error) {
	tx, err := db.begin(ctx)
	if err != nil {
		return take(), err
	}
	var made []*write
	for more := take(); len(more) > 0; more = take() {
		made = append(made, more...)
		for _, w := range more {
			err := w.set(func() (int64, error) { return db.exec(ctx, tx, w.q, w.args...) },
				func() row { return db.queryRow(ctx, tx, w.q, w.args...) })
			if err != nil {
				return made, errors.Join(err, db.rollback(ctx, tx))
			}
		}
	}
	return made, db.commit(ctx, tx)
}

// take empties the queue.
func (g *groupCommit[TTx]) take() []*write {
	g.mu.Lock()
	defer g.mu.Unlock()
	taken := g.queue
	g.queue = nil
	return taken
}

// set makes w's result that of its statement: exec runs it and returns the rows it changed,
// query runs it and returns its row. It returns an error that aborts the transaction. A
// write made again after its group failed gets the same result: no write makes a row pending
// again, so a statement that found no row finds none alone.
func (w *write) set(exec func() (int64, error), query func() row) error {
	if w.scan == nil {
		n, err := exec()
		w.n = n
		return err
	}
	if err := w.scan(query()); !isNoRows(err) {
		return err
	}
	w.err = sql.ErrNoRows
	return nil
}
