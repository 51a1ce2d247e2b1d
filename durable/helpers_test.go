package durable

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"go.uber.org/goleak"

	"pixretry/durable/durablesqlite"
	"pixretry/pix"
	"pixretry/retry"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(crashChild())
	}
	goleak.VerifyTestMain(m)
}

// testClient sends to the PSP at url with short waits, so that faults resolve quickly.
func testClient(url string) *pix.Client {
	return &pix.Client{BaseURL: url, Token: pspToken, AttemptTimeout: 200 * time.Millisecond,
		Policy: retry.Policy{AttemptsMax: 2, DelayBase: time.Millisecond, DelayMax: 5 * time.Millisecond}}
}

// testConfig works intents quickly: waits of milliseconds, polls every 20 ms.
func testConfig(url string) Config {
	return Config{Client: testClient(url), DelayBase: time.Millisecond, DelayMax: 10 * time.Millisecond,
		PollInterval: 20 * time.Millisecond, JobTimeout: 5 * time.Second}
}

// mustSQLite opens a fresh SQLite database in the test's directory, migrated as New on SQLite
// leaves one: a copy of a database migrated once per test binary. River's migrations, run anew
// for each test, took half of the package's CPU under -race. The tests of opening and migrating
// use mustEmptySQLite.
func mustSQLite(tb testing.TB) (*sql.DB, string) {
	tb.Helper()
	migrated, err := migratedSQLite()
	if err != nil {
		tb.Fatalf("migrating the template database: %v", err)
	}
	path := filepath.Join(tb.TempDir(), "pay.db")
	if err := os.WriteFile(path, migrated, 0o600); err != nil {
		tb.Fatal(err)
	}
	return mustOpenSQLite(tb, path), path
}

// mustEmptySQLite opens a fresh, empty SQLite database in the test's directory.
func mustEmptySQLite(tb testing.TB) (*sql.DB, string) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "pay.db")
	return mustOpenSQLite(tb, path), path
}

func mustOpenSQLite(tb testing.TB, path string) *sql.DB {
	tb.Helper()
	db, err := durablesqlite.Open(path)
	if err != nil {
		tb.Fatalf("durablesqlite.Open() error = %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// migratedSQLite is the file of a database that New on SQLite migrated, made once, closed, so that
// SQLite has written its whole content back from the WAL into the file.
var migratedSQLite = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "durable-template-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "pay.db")
	db, err := durablesqlite.Open(path)
	if err != nil {
		return nil, err
	}
	_, err = New(context.Background(), durablesqlite.New(db), Config{})
	if err = errors.Join(err, db.Close()); err != nil {
		return nil, err
	}
	if _, err := os.Stat(path + "-wal"); !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("the WAL outlived the database's close (%v): the file alone is not the database", err)
	}
	return os.ReadFile(path)
})

// mustHoldLock takes the lock file at path, as another process would, until release.
func mustHoldLock(tb testing.TB, path string) (release func()) {
	tb.Helper()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		tb.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		tb.Fatalf("lock %s: %v", path, err)
	}
	return func() { f.Close() }
}

// mustPayer returns a Payer on db with cfg, not started.
func mustPayer(tb testing.TB, db *sql.DB, cfg Config) *Payer[*sql.Tx] {
	tb.Helper()
	p, err := New(context.Background(), durablesqlite.New(db), cfg)
	if err != nil {
		tb.Fatalf("New() error = %v", err)
	}
	return p
}

// mustStart starts p until the test ends.
func mustStart[TTx any](tb testing.TB, p *Payer[TTx]) {
	tb.Helper()
	if err := p.Start(context.Background()); err != nil {
		tb.Fatalf("Start() error = %v", err)
	}
	tb.Cleanup(func() {
		if err := p.Stop(context.Background()); err != nil {
			tb.Errorf("Stop() error = %v", err)
		}
	})
}

// mustPay stores payment under id in a transaction of its own.
func mustPay[TTx any](tb testing.TB, p *Payer[TTx], id string, payment pix.Payment) Intent {
	tb.Helper()
	in, err := p.Pay(context.Background(), id, payment)
	if err != nil {
		tb.Fatalf("Pay(%q) error = %v", id, err)
	}
	return in
}

// collect reads seq to its end or its first error. It returns the intents yielded before
// that error, and the error.
func collect(seq iter.Seq2[Intent, error]) ([]Intent, error) {
	var all []Intent
	for in, err := range seq {
		if err != nil {
			return all, err
		}
		all = append(all, in)
	}
	return all, nil
}

// stallAfter is how long awaitDone waits for a job to make progress before it judges that
// nothing can progress. Under -short, which the mutation gate uses, no test holds an attempt
// for longer than a second, so a mutant that stops the work fails fast instead of timing out.
func stallAfter() time.Duration {
	if testing.Short() {
		return 5 * time.Second
	}
	return 30 * time.Second
}

// giveUpAfter is how long awaitDone waits in any case: a mutant that snoozes every job
// forever shows progress without end. Under -short it stays well under the mutation gate's
// timeout, which is ten times the time of the package's tests run in parallel.
func giveUpAfter() time.Duration {
	if testing.Short() {
		return 20 * time.Second
	}
	return 60 * time.Second
}

// awaitDone returns every intent once none is pending. It fails the test once no job of p
// has completed, been cancelled or snoozed for stallAfter while an intent is pending, and
// after giveUpAfter in any case.
func awaitDone[TTx any](tb testing.TB, p *Payer[TTx]) []Intent {
	tb.Helper()
	return awaitDoneWithin(tb, p, stallAfter(), giveUpAfter())
}

// awaitDoneWithin is awaitDone with a stall window and a limit of the test's own, for a test
// that leaves work to River's rescuer. A stalled wait names the jobs left and their states.
func awaitDoneWithin[TTx any](tb testing.TB, p *Payer[TTx], stall, giveUp time.Duration) []Intent {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), giveUp)
	defer cancel()
	stalled := make(chan bool, 1)
	if p.cfg.Client != nil { // River refuses to subscribe a client that works no jobs
		// A failed job attempt is no progress: a mutant that fails every attempt makes River
		// retry forever.
		events, unsubscribe := p.river.Subscribe(river.EventKindJobCompleted, river.EventKindJobCancelled,
			river.EventKindJobSnoozed)
		defer unsubscribe()
		watching := make(chan struct{})
		defer func() { <-watching }()
		defer cancel()
		go func() {
			defer close(watching)
			if watchStall(ctx, events, stall) {
				stalled <- true // before cancel, so that Wait's error finds it
				cancel()
			}
		}()
	}
	if err := p.Wait(ctx); err != nil {
		select {
		case <-stalled:
			tb.Fatalf("Wait(): no job progressed in %v with an intent pending (%v); jobs left: %s", stall, err,
				jobsLeft(p))
		default:
			tb.Fatalf("Wait() error = %v; jobs left: %s", err, jobsLeft(p))
		}
	}
	all, err := collect(p.Intents(context.Background()))
	if err != nil {
		tb.Fatalf("Intents() error = %v", err)
	}
	return all
}

// jobsLeft describes p's jobs not completed: each one's state, attempt and last attempt's
// start, so that a stalled test says whether a job waits for River's rescuer.
func jobsLeft[TTx any](p *Payer[TTx]) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := p.river.JobList(ctx, river.NewJobListParams().First(50).States(rivertype.JobStateAvailable,
		rivertype.JobStateRunning, rivertype.JobStateRetryable, rivertype.JobStateScheduled))
	if err != nil {
		return fmt.Sprintf("(JobList: %v)", err)
	}
	var b strings.Builder
	for _, j := range res.Jobs {
		fmt.Fprintf(&b, "\n\tjob %d %s, attempt %d", j.ID, j.State, j.Attempt)
		if j.AttemptedAt != nil {
			fmt.Fprintf(&b, ", attempted %v ago", time.Since(*j.AttemptedAt).Round(time.Millisecond))
		}
	}
	if b.Len() == 0 {
		return "none"
	}
	return b.String()
}

// watchStall returns true once no event arrives for stall, and false once ctx ends first.
func watchStall(ctx context.Context, events <-chan *river.Event, stall time.Duration) bool {
	timer := time.NewTimer(stall)
	defer timer.Stop()
	for {
		select {
		case <-events:
			timer.Reset(stall)
		case <-timer.C:
			return true
		case <-ctx.Done():
			return false
		}
	}
}

// payment returns a valid payment of cents.
func payment(cents int64) pix.Payment {
	return pix.Payment{AmountCents: cents, PixKey: "pix@example.com", Description: "rent"}
}
