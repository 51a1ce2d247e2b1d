package durable

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// BenchmarkPayments measures payments per second end to end through a psp on loopback, with
// 10 at once: plain pix.Client.Send, and durable on SQLite and on Postgres (when PostgresEnv
// is set), where each payment is stored, worked and recorded. own-commits/payment counts the
// Payer's own commits beyond the caller's one: the attempt about to leave and the outcome.
func BenchmarkPayments(b *testing.B) {
	b.Run("send", func(b *testing.B) {
		l := mustPSP(b)
		c := l.client()
		var next atomic.Int64
		start := time.Now()
		var wg sync.WaitGroup
		for range 10 {
			wg.Go(func() {
				for next.Add(1) <= int64(b.N) {
					if _, err := c.Send(context.Background(), payment(100)); err != nil {
						b.Error(err)
					}
				}
			})
		}
		wg.Wait()
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "payments/s")
	})
	b.Run("sqlite", func(b *testing.B) {
		l := mustPSP(b)
		db, _ := mustSQLite(b)
		benchDurable(b, l, func(cfg Config) (*Payer[*sql.Tx], error) { return NewSQLite(context.Background(), db, cfg) })
	})
	b.Run("postgres", func(b *testing.B) {
		l := mustPSP(b)
		dsn := mustPostgresURL(b)
		pool, err := pgxpool.New(context.Background(), dsn+"&pool_max_conns=20")
		if err != nil {
			b.Fatal(err)
		}
		defer pool.Close()
		benchDurable(b, l, func(cfg Config) (*Payer[pgx.Tx], error) { return NewPostgres(context.Background(), pool, cfg) })
	})
}

// benchDurable stores b.N intents, then starts a Payer and waits until all are settled.
func benchDurable[TTx any](b *testing.B, l ledger, open func(Config) (*Payer[TTx], error)) {
	cfg := l.config()
	cfg.PollInterval = 5 * time.Millisecond
	p, err := open(cfg)
	if err != nil {
		b.Fatal(err)
	}
	counter := &countingEngine[TTx]{engine: p.db}
	p.db = counter
	start := time.Now()
	for i := range b.N {
		mustPay(b, p, fmt.Sprintf("bench-%d", i), payment(100))
	}
	caller := counter.commits.Swap(0)
	mustStart(b, p)
	all := awaitDone(b, p)
	elapsed := time.Since(start)
	if len(all) != b.N || all[0].Status != StatusSettled {
		b.Fatalf("%d intents, the first %+v; want %d settled", len(all), all[0], b.N)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "payments/s")
	b.ReportMetric(float64(caller)/float64(b.N), "caller-commits/payment")
	b.ReportMetric(float64(counter.commits.Load())/float64(b.N), "own-commits/payment")
}

// countingEngine counts the commits an engine makes: of transactions, and of statements
// outside one.
type countingEngine[TTx any] struct {
	engine[TTx]
	commits atomic.Int64
}

func (c *countingEngine[TTx]) commit(ctx context.Context, tx TTx) error {
	c.commits.Add(1)
	return c.engine.commit(ctx, tx)
}

func (c *countingEngine[TTx]) execPool(ctx context.Context, q string, args ...any) (int64, error) {
	c.commits.Add(1)
	return c.engine.execPool(ctx, q, args...)
}

// BenchmarkRestart measures the time from opening the database of a run killed in the
// middle of an attempt to the first resumed attempt, on SQLite: open, migrations checked,
// the dead run's job taken over, fetched and started.
func BenchmarkRestart(b *testing.B) {
	l := mustPSP(b)
	path := filepath.Join(b.TempDir(), "restart.db")
	attempt := make(chan struct{}, 1)
	crashPoint = func(point string) {
		if point == "before-attempt" {
			select {
			case attempt <- struct{}{}:
			default:
			}
		}
	}
	defer func() { crashPoint = func(string) {} }()
	for i := range b.N {
		b.StopTimer()
		killedRun(b, path, fmt.Sprintf("restart-%d", i))
		b.StartTimer()
		db, err := OpenSQLite(path)
		if err != nil {
			b.Fatal(err)
		}
		p, err := NewSQLite(context.Background(), db, l.config())
		if err != nil {
			b.Fatal(err)
		}
		if err := p.Start(context.Background()); err != nil {
			b.Fatal(err)
		}
		<-attempt
		b.StopTimer()
		awaitDone(b, p)
		if err := p.Stop(context.Background()); err != nil {
			b.Fatal(err)
		}
		db.Close()
	}
}

// killedRun leaves the database at path as a run killed during the attempt of intent id
// leaves it: the intent stored, its job running.
func killedRun(b *testing.B, path, id string) {
	db, err := OpenSQLite(path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	p := mustPayer(b, db, Config{})
	mustPay(b, p, id, payment(100))
	if _, err := db.Exec("UPDATE river_job SET state = 'running', attempt = 1 WHERE state = 'available'"); err != nil {
		b.Fatal(err)
	}
}
