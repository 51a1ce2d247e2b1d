package durable

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"pixretry/durable/durablepgx"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// PostgresEnv names the environment variable that holds the URL of a Postgres database for
// the Postgres tests, such as postgres://postgres@127.0.0.1:5432/postgres. Each test creates
// a database of its own there and drops it at the end. make test-postgres sets it.
const PostgresEnv = "PIXRETRY_POSTGRES_URL"

var databases atomic.Int64

// mustPostgresURL returns the URL of a fresh database, or skips the test without one.
func mustPostgresURL(tb testing.TB) string {
	tb.Helper()
	admin := os.Getenv(PostgresEnv)
	if admin == "" {
		tb.Skipf("%s is not set: skipping the Postgres tests (make test-postgres runs them on a throwaway cluster)", PostgresEnv)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		tb.Fatalf("connect to %s: %v", PostgresEnv, err)
	}
	defer conn.Close(ctx)
	name := fmt.Sprintf("durable_%d_%d", os.Getpid(), databases.Add(1))
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			tb.Error(err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			tb.Error(err)
		}
	})
	u, err := url.Parse(admin)
	if err != nil {
		tb.Fatal(err)
	}
	u.Path = "/" + name
	q := u.Query()
	q.Set("sslmode", cmp.Or(q.Get("sslmode"), "disable"))
	u.RawQuery = q.Encode()
	return u.String()
}

// mustPostgresPayer returns a Payer on a fresh database.
func mustPostgresPayer(tb testing.TB, dsn string, cfg Config) *Payer[pgx.Tx] {
	tb.Helper()
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(pool.Close)
	p, err := New(context.Background(), durablepgx.New(pool), cfg)
	if err != nil {
		tb.Fatalf("New() error = %v", err)
	}
	return p
}

func TestPostgresSettlesRefusesAndRollsBack(t *testing.T) {
	t.Parallel()
	l := mustPSP(t)
	p := mustPostgresPayer(t, mustPostgresURL(t), l.config())
	ctx := context.Background()
	tx, err := p.db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.PayTx(ctx, tx, "rolled-back", payment(100)); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	mustPay(t, p, "a", payment(100))
	mustPay(t, p, "b", payment(refusedCents))
	l.inject(faultCommit503, faultDrop)
	mustStart(t, p)
	all := awaitDone(t, p)
	checkLedger(t, l, all)
	if len(all) != 2 || all[0].Status != StatusSettled || all[1].Status != StatusRefused {
		t.Errorf("intents = %+v, want a settled and b refused, and no rolled-back one", all)
	}
}

func TestPostgresMigratesOnceWhenStartedAtOnce(t *testing.T) {
	t.Parallel()
	dsn := mustPostgresURL(t)
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if _, err := New(context.Background(), durablepgx.New(pool), Config{}); err != nil {
				t.Errorf("New() at once with others: error = %v", err)
			}
		})
	}
	wg.Wait()
	p := mustPostgresPayer(t, dsn, Config{})
	mustPay(t, p, "a", payment(100))
}

// TestPostgresCrashFleet runs worker processes on one database, each storing the same rounds:
// two start at once and are killed at crash points, and a third, started as the first dies,
// takes their intents over once River's rescuer finds their jobs stuck. checkLedger holds.
//
// A worker reaches its crash point only if it gets a job: when the other fetched every job of
// the round first, it is not killed. The rounds go on, their points in turn, until at least
// three workers were killed, and at most six rounds.
func TestPostgresCrashFleet(t *testing.T) {
	t.Parallel()
	l := mustLoopbackPSP(t, 0)
	dsn := "postgres:" + mustPostgresURL(t)
	points := [][2]string{{"answered:1", "settled-unread:1"}, {"before-attempt:1", "recorded:2"}}
	ids, kills, r := "", 0, 0
	for ; r < 6 && (r < len(points) || kills < 3); r++ {
		specs := points[r%len(points)]
		l.inject(faultCommit503, faultDrop, faultDown)
		for i := range 6 {
			ids += fmt.Sprintf("r%d-%d=%d,", r, i, 100*(r+1)+i) // every amount distinct, for checkLedger
		}
		ids += fmt.Sprintf("r%d-rb=%d,r%d-refused=%d", r, 100*(r+1)+9, r, refusedCents+int64(r))
		// Two workers start at once; the third starts as the first is killed, beside the second.
		a, b := startChild(t, dsn, l.url, 0, ids, specs[0]), startChild(t, dsn, l.url, 0, ids, specs[1])
		killedA := a.killOrWait(t)
		c := startChild(t, dsn, l.url, 0, ids, "")
		killedB := b.killOrWait(t)
		c.killOrWait(t)
		for _, killed := range []bool{killedA, killedB} {
			if killed {
				kills++
			}
		}
		ids += ","
	}
	p := mustPostgresPayer(t, strings.TrimPrefix(dsn, "postgres:"), Config{})
	all := awaitDone(t, p) // nothing works: each round's clean child finished it
	checkLedger(t, l, all)
	t.Logf("%d rounds, %d kills; %d intents, %d settlements", r, kills, len(all), len(l.settlements()))
	if kills < 3 || len(all) != r*7 {
		t.Errorf("%d kills and %d intents after %d rounds, want at least 3 and %d", kills, len(all), r, r*7)
	}
}

func TestPostgresMarkTranslatesFirstSentToThisClock(t *testing.T) {
	t.Parallel()
	checkMark(t, mustPostgresPayer(t, mustPostgresURL(t), Config{}))
}

func TestPostgresRotateIsACompareAndSet(t *testing.T) {
	t.Parallel()
	checkRotateRace(t, mustPostgresPayer(t, mustPostgresURL(t), Config{}))
}
