package durable

import (
	"context"
	"database/sql"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pixretry/durable/durabledriver"
	"pixretry/durable/durablesqlite"
	"pixretry/pix"
)

// Five marks at once: those that arrive while the first waits for the database join its
// group, and those that arrive while a group commits make the next one. A mark that finds its
// intent settled is the answer of its statement, not a failure of the group.
func TestGroupCommitSharesCommitsAmongTheWritesThatWaited(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		hold    string // where the first group waits for the others
		commits int64
	}{{"begin", 1}, {"commit", 2}} {
		t.Run("held in "+tt.hold, func(t *testing.T) {
			t.Parallel()
			p, _, ids := mustGroupIntents(t)
			held := holdFirstGroup(p, tt.hold)
			for i, err := range markAll(t, p, ids, held) {
				if want := ids[i] == "settled"; errors.Is(err, errNotPending) != want || !want && err != nil {
					t.Errorf("mark(%q) error = %v; want errNotPending only for the settled intent", ids[i], err)
				}
			}
			if n := held.commits.Load(); n != tt.commits {
				t.Errorf("five marks, four waiting while the first was held in %s, took %d commits; want %d",
					tt.hold, n, tt.commits)
			}
			if n := held.statements.Load(); n != int64(len(ids)) {
				t.Errorf("five marks ran %d statements, want one each", n)
			}
			for _, id := range ids[:4] {
				if in := mustIntent(t, p, id); in.Attempts != 1 {
					t.Errorf("intent %s = %+v, want 1 attempt", id, in)
				}
			}
		})
	}
}

// A write that the database refuses fails alone: the others of its group are made again, each
// in a transaction of its own, with the answers they had in the group.
func TestGroupCommitKeepsARefusedWriteToItself(t *testing.T) {
	t.Parallel()
	p, db, ids := mustGroupIntents(t)
	failWrites(t, db, "NEW.id = 'c'")
	held := holdFirstGroup(p, "begin")
	errs := markAll(t, p, ids, held)
	for i, id := range ids {
		in := mustIntent(t, p, id)
		switch {
		case id == "settled":
			if !errors.Is(errs[i], errNotPending) {
				t.Errorf("mark(%q) of a settled intent beside a refused write: %v, want errNotPending", id, errs[i])
			}
		case id == "c" && (errs[i] == nil || !strings.Contains(errs[i].Error(), refusal) || in.Attempts != 0):
			t.Errorf("mark(%q) refused by the database: %v, intent %+v; want the refusal, no attempt", id, errs[i], in)
		case id != "c" && (errs[i] != nil || in.Attempts != 1):
			t.Errorf("mark(%q) beside a refused write: %v, intent %+v; want 1 attempt", id, errs[i], in)
		}
	}
}

// A write whose context ends while it waits for a group leaves the queue at once, and the
// group does not make it.
func TestGroupCommitDropsAWriteWhoseContextEndsInTheQueue(t *testing.T) {
	t.Parallel()
	p, _, _ := mustGroupIntents(t)
	held := holdFirstGroup(p, "begin")
	led := make(chan error, 1)
	go func() { _, _, err := p.mark(context.Background(), "a"); led <- err }()
	<-held.entered
	ctx, cancel := context.WithCancel(context.Background())
	queued := make(chan error, 1)
	go func() { _, _, err := p.mark(ctx, "b"); queued <- err }()
	awaitWaiting(t, p, 1)
	cancel()
	select {
	case err := <-queued:
		if !errors.Is(err, context.Canceled) || p.group.waiting() != 0 {
			t.Errorf("mark() whose context ended in the queue: %v, %d left waiting; want context.Canceled, none",
				err, p.group.waiting())
		}
	case <-time.After(stallAfter()):
		t.Fatalf("mark() whose context ended in the queue did not return in %v", stallAfter())
	}
	close(held.open)
	if err := <-led; err != nil {
		t.Errorf("the leader's mark() error = %v", err)
	}
	if a, b := mustIntent(t, p, "a"), mustIntent(t, p, "b"); a.Attempts != 1 || b.Attempts != 0 {
		t.Errorf("attempts of a and b = %d, %d; want 1 and 0, b never marked", a.Attempts, b.Attempts)
	}
}

// A group whose transaction the database could not begin is made again, alone.
func TestGroupCommitMakesAgainAGroupItCouldNotBegin(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, Config{})
	mustPay(t, p, "a", payment(100))
	p.db = &storageFaultEngine{Driver: p.db.(*durablesqlite.Driver), method: "begin"}
	if _, _, err := p.mark(context.Background(), "a"); err != nil {
		t.Errorf("mark() after a failed begin: error = %v, want nil", err)
	}
	if in := mustIntent(t, p, "a"); in.Attempts != 1 {
		t.Errorf("intent = %+v, want 1 attempt", in)
	}
}

// mustGroupIntents stores five intents, a to d pending and the last settled, on a payer of
// its own, and returns their ids.
func mustGroupIntents(t *testing.T) (*Payer[*sql.Tx], *sql.DB, []string) {
	t.Helper()
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, Config{})
	ids := []string{"a", "b", "c", "d", "settled"}
	for _, id := range ids {
		mustPay(t, p, id, payment(100))
	}
	mustSettle(t, p, "settled")
	return p, db, ids
}

// mustSettle records a receipt for the intent id.
func mustSettle[TTx any](tb testing.TB, p *Payer[TTx], id string) {
	tb.Helper()
	if err := p.settle(context.Background(), id, pix.Receipt{EndToEndID: "E1", SettledAt: time.Now()}); err != nil {
		tb.Fatal(err)
	}
}

// mark finds no pending intent to mark in one settled, refused or never stored.
func TestMarkFindsNoPendingIntent(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, Config{})
	ctx := context.Background()
	mustPay(t, p, "settled", payment(100))
	in := mustPay(t, p, "refused", payment(100))
	mustSettle(t, p, "settled")
	if err := p.record(ctx, in, "status = $4", StatusRefused); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"settled", "refused", "absent"} {
		if got, _, err := p.mark(ctx, id); !errors.Is(err, errNotPending) || got.ID != "" {
			t.Errorf("mark(%q) = %+v, %v; want errNotPending", id, got, err)
		}
	}
	if got := mustIntent(t, p, "settled"); got.Attempts != 0 {
		t.Errorf("settled intent after mark() = %+v, want no attempt", got)
	}
}

// markAll marks ids at once: the first leads a group that held keeps in its transaction until
// every other mark waits for the next group.
func markAll(t *testing.T, p *Payer[*sql.Tx], ids []string, held *heldEngine) []error {
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	wg.Go(func() { _, _, errs[0] = p.mark(context.Background(), ids[0]) })
	<-held.entered
	for i := 1; i < len(ids); i++ {
		wg.Go(func() { _, _, errs[i] = p.mark(context.Background(), ids[i]) })
	}
	awaitWaiting(t, p, len(ids)-1)
	close(held.open)
	wg.Wait()
	return errs
}

// awaitWaiting returns once n writes wait for p's next group, and fails the test if they do
// not within stallAfter.
func awaitWaiting(t *testing.T, p *Payer[*sql.Tx], n int) {
	t.Helper()
	deadline := time.Now().Add(stallAfter())
	for p.group.waiting() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d writes wait for the next group after %v, want %d", p.group.waiting(), stallAfter(), n)
		}
		runtime.Gosched()
	}
}

// waiting is how many writes wait for the next group.
func (g *groupCommit[TTx]) waiting() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.queue)
}

// holdFirstGroup makes p's first group wait in its transaction's begin or commit until open
// closes, and counts the commits of every group.
func holdFirstGroup(p *Payer[*sql.Tx], at string) *heldEngine {
	e := &heldEngine{Driver: p.db, at: at, entered: make(chan struct{}), open: make(chan struct{})}
	p.db = e
	return e
}

type heldEngine struct {
	durabledriver.Driver[*sql.Tx]
	at            string // "begin" or "commit"
	entered, open chan struct{}
	once          sync.Once
	commits       atomic.Int64
	statements    atomic.Int64 // run in a transaction
}

// hold waits for open the first time it is called at e.at.
func (e *heldEngine) hold(at string) {
	if at == e.at {
		e.once.Do(func() {
			close(e.entered)
			<-e.open
		})
	}
}

func (e *heldEngine) Begin(ctx context.Context) (*sql.Tx, error) {
	e.hold("begin")
	return e.Driver.Begin(ctx)
}

func (e *heldEngine) Commit(ctx context.Context, tx *sql.Tx) error {
	e.hold("commit")
	e.commits.Add(1)
	return e.Driver.Commit(ctx, tx)
}

func (e *heldEngine) QueryRow(ctx context.Context, tx *sql.Tx, q string, args ...any) durabledriver.Row {
	if tx != nil {
		e.statements.Add(1)
	}
	return e.Driver.QueryRow(ctx, tx, q, args...)
}
