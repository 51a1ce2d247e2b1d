package durable

import (
	"context"
	"database/sql"
	"iter"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"go.uber.org/goleak"

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

// mustSQLite opens a fresh SQLite database in the test's directory.
func mustSQLite(tb testing.TB) (*sql.DB, string) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "pay.db")
	db, err := OpenSQLite(path)
	if err != nil {
		tb.Fatalf("OpenSQLite() error = %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db, path
}

// mustPayer returns a Payer on db with cfg, not started.
func mustPayer(tb testing.TB, db *sql.DB, cfg Config) *Payer[*sql.Tx] {
	tb.Helper()
	p, err := NewSQLite(context.Background(), db, cfg)
	if err != nil {
		tb.Fatalf("NewSQLite() error = %v", err)
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
	ctx, cancel := context.WithTimeout(context.Background(), giveUpAfter())
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
			if watchStall(ctx, events) {
				stalled <- true // before cancel, so that Wait's error finds it
				cancel()
			}
		}()
	}
	if err := p.Wait(ctx); err != nil {
		select {
		case <-stalled:
			tb.Fatalf("Wait(): no job progressed in %v with an intent pending (%v)", stallAfter(), err)
		default:
			tb.Fatalf("Wait() error = %v", err)
		}
	}
	all, err := collect(p.Intents(context.Background()))
	if err != nil {
		tb.Fatalf("Intents() error = %v", err)
	}
	return all
}

// watchStall returns true once no event arrives for stallAfter, and false once ctx ends first.
func watchStall(ctx context.Context, events <-chan *river.Event) bool {
	timer := time.NewTimer(stallAfter())
	defer timer.Stop()
	for {
		select {
		case <-events:
			timer.Reset(stallAfter())
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
