package durable

import (
	"context"
	"slices"
	"sync"
	"time"

	"pixretry/durable/durabledriver"
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
	queue   []*queued // the writes waiting for the next group, in arrival order
	leading bool      // a group is open; once it commits, queue[0] leads the next
}

// queued is a write in a group commit: waiting in its queue, then in a group.
type queued struct {
	w    *durabledriver.Write
	turn chan bool // true: lead the next group; false: committed or failed, see w.Err
}

// do makes w in a group, on db if it leads the group, and returns its error: ctx's if ctx
// has ended before w joins a group (see wait), else the statement's or the group's.
func (g *groupCommit[TTx]) do(ctx context.Context, db durabledriver.Driver[TTx], w *durabledriver.Write) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	q := &queued{w: w, turn: make(chan bool, 1)}
	g.mu.Lock()
	lead := !g.leading
	if lead {
		g.leading = true
	} else {
		g.queue = append(g.queue, q)
	}
	g.mu.Unlock()
	if !lead {
		leads, err := g.wait(ctx, q)
		if !leads {
			return err
		}
	}
	group := g.commit(ctx, db, q)
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
	return w.Err
}

// wait waits for q's turn: true if q leads the next group, else its error once its group has
// committed. A write whose ctx ends while it waits in the queue leaves it, and is never made:
// it returns ctx's error. One already taken into a group, or handed the lead, sees it through.
func (g *groupCommit[TTx]) wait(ctx context.Context, q *queued) (bool, error) {
	select {
	case leads := <-q.turn:
		return leads, q.w.Err
	case <-ctx.Done():
	}
	g.mu.Lock()
	i := slices.Index(g.queue, q)
	if i >= 0 {
		g.queue = slices.Delete(g.queue, i, i+1)
	}
	g.mu.Unlock()
	if i >= 0 {
		return false, ctx.Err()
	}
	leads := <-q.turn
	return leads, q.w.Err
}

// commit makes the group that leader leads in one transaction or, if the database refuses
// it, each of its writes again in a transaction of its own. It returns the group, leader
// first.
func (g *groupCommit[TTx]) commit(ctx context.Context, db durabledriver.Driver[TTx], leader *queued) []*queued {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), g.timeout)
	defer cancel()
	group, err := g.grouped(ctx, db, leader)
	if err == nil {
		return group
	}
	for _, q := range group {
		w := q.w
		if err := g.alone(ctx, db, w); err != nil {
			w.Err = err
		}
	}
	return group
}

// grouped makes leader and every write that arrives while it waits for the database, then
// while its writes are made, in one transaction (see Driver.GroupTx). It returns the writes
// it took, leader first, and the error that rolled the transaction back.
func (g *groupCommit[TTx]) grouped(ctx context.Context, db durabledriver.Driver[TTx], leader *queued) ([]*queued, error) {
	group := []*queued{leader}
	first := true
	err := db.GroupTx(ctx, db, func() []*durabledriver.Write {
		taken := g.take()
		group = append(group, taken...)
		if first {
			first = false
			taken = append([]*queued{leader}, taken...)
		}
		ws := make([]*durabledriver.Write, len(taken))
		for i, q := range taken {
			ws[i] = q.w
		}
		return ws
	})
	return group, err
}

// alone makes w in a transaction of its own.
func (g *groupCommit[TTx]) alone(ctx context.Context, db durabledriver.Driver[TTx], w *durabledriver.Write) error {
	ws := []*durabledriver.Write{w}
	return db.GroupTx(ctx, db, func() []*durabledriver.Write {
		taken := ws
		ws = nil
		return taken
	})
}

// take empties the queue.
func (g *groupCommit[TTx]) take() []*queued {
	g.mu.Lock()
	defer g.mu.Unlock()
	taken := g.queue
	g.queue = nil
	return taken
}
