package durable

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"modernc.org/sqlite"

	"pixretry/durable/durabledriver"
	"pixretry/durable/durablepgx"
	"pixretry/durable/durablesqlite"
	"pixretry/pix"
)

// BenchmarkDrain measures how fast b.N payments drain, stored beforehand: the drain alone
// is timed, from Start to the last job's completion, inserts apart. Each durable run is
// measured beside River with a worker that does nothing, draining b.N jobs of its own on the
// same database with the same workers and fetch settings, and beside plain pix.Client.Send;
// x-river is durable's payments per second over River's jobs per second. River is measured a
// second time with a worker that sends a payment under a key of its own and records nothing:
// x-river-send is durable over that run, which pays the same PSP on the same cores, so it
// says what durable's own writes cost. Every client waits up to 5 s for an answer, so that
// a loaded machine slows a run down instead of failing it. commits/payment is
// every commit the database counted during the drain (pg_stat_database.xact_commit on
// Postgres, SQLite's commit hook), payer-commits/payment the Payer's own of those, and
// river-commits/job River's alone in its own run. Postgres runs when PostgresEnv is set;
// fsync=off sets fsync on the cluster, which needs a superuser.
func BenchmarkDrain(b *testing.B) {
	for _, workers := range []int{10, 100} {
		b.Run(fmt.Sprintf("send/workers=%d", workers), func(b *testing.B) {
			b.ReportMetric(benchSend(b, benchClient(mustPSP(b)), workers, b.N), "payments/s")
		})
	}
	for _, fsync := range []string{"on", "off"} {
		for _, workers := range []int{10, 100} {
			b.Run(fmt.Sprintf("sqlite/fsync=%s/workers=%d", fsync, workers), func(b *testing.B) {
				benchDrain(b, mustBenchSQLite(b, fsync == "on"), workers)
			})
		}
	}
	for _, fsync := range []string{"on", "off"} {
		for _, workers := range []int{10, 100} {
			b.Run(fmt.Sprintf("postgres/fsync=%s/workers=%d", fsync, workers), func(b *testing.B) {
				benchDrain(b, mustBenchPostgres(b, fsync == "on"), workers)
			})
		}
	}
}

// BenchmarkBacklog drains a backlog left by an outage: 1,000, then 100,000 intents stored at
// once, one in ten of which left long ago under a key the PSP has forgotten (it is looked up,
// then paid under a new key), on SQLite with 10 workers. b.N is ignored: run it with
// -benchtime=1x. peak-rss-MB is the process's, PSP included.
func BenchmarkBacklog(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("sqlite/backlog=%d", n), func(b *testing.B) {
			db := mustBenchSQLite(b, true)
			l := mustPSP(b)
			p := db.payer(b, l, 10)
			storeIntents(b, p, n, n/10)
			rate, _ := drainPayer(b, db, p, n)
			checkDrained(b, l, p, n)
			b.ReportMetric(rate, "payments/s")
			var ru syscall.Rusage
			if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
				b.ReportMetric(float64(ru.Maxrss)/1024, "peak-rss-MB")
			}
		})
	}
}

// benchDrain measures River, then durable, then Send, each draining b.N payments with
// workers at once.
func benchDrain[TTx any](b *testing.B, db benchDB[TTx], workers int) {
	l := mustPSP(b)
	p := db.payer(b, l, workers)
	riverRate, riverCommits := drainRiver(b, db, p.cfg, workers, b.N, doNothing)
	riverSendRate, _ := drainRiver(b, db, p.cfg, workers, b.N, sendWith(b, benchClient(mustPSP(b))))
	storeIntents(b, p, b.N, 0)
	counter := &countingEngine[TTx]{Driver: p.db, reads: db.readsCommit}
	p.db = counter
	rate, commits := drainPayer(b, db, p, b.N)
	checkDrained(b, l, p, b.N)
	b.ReportMetric(rate, "payments/s")
	b.ReportMetric(rate/riverRate, "x-river")
	b.ReportMetric(riverRate, "river-jobs/s")
	b.ReportMetric(rate/riverSendRate, "x-river-send")
	b.ReportMetric(riverSendRate, "river-send-jobs/s")
	b.ReportMetric(benchSend(b, p.cfg.Client, workers, b.N), "send-payments/s")
	b.ReportMetric(float64(commits)/float64(b.N), "commits/payment")
	b.ReportMetric(float64(counter.commits.Load())/float64(b.N), "payer-commits/payment")
	b.ReportMetric(float64(riverCommits)/float64(b.N), "river-commits/job")
}

// benchClient is l's client, waiting up to 5 s for each answer.
func benchClient(l ledger) *pix.Client {
	c := l.client()
	c.AttemptTimeout = 5 * time.Second
	return c
}

// benchSend sends n payments through c with workers at once, and returns payments per second.
func benchSend(b *testing.B, c *pix.Client, workers, n int) float64 {
	var next atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				if _, err := c.Send(context.Background(), payment(100)); err != nil {
					b.Error(err)
				}
			}
		})
	}
	wg.Wait()
	return float64(n) / time.Since(start).Seconds()
}

// benchDB is a database under benchmark: how to make a Payer on it, and its count of commits.
type benchDB[TTx any] struct {
	open        func(Config) (*Payer[TTx], error)
	commits     func() int64 // every commit so far, as the database counts them
	quiet       func()       // closes idle connections, which then report their commits
	readsCommit bool         // a read outside a transaction is a commit, as on Postgres
}

// payer returns a Payer on db that pays through l with workers.
func (db benchDB[TTx]) payer(b *testing.B, l ledger, workers int) *Payer[TTx] {
	cfg := l.config()
	cfg.Client = benchClient(l)
	cfg.Workers = workers
	cfg.PollInterval = 50 * time.Millisecond
	p, err := db.open(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// storeIntents stores n intents, a thousand per transaction; the first aged of them as if
// their key left long ago, in a run that died.
func storeIntents[TTx any](b *testing.B, p *Payer[TTx], n, aged int) {
	ctx := context.Background()
	for i := 0; i < n; i += 1000 {
		tx, err := p.db.Begin(ctx)
		if err != nil {
			b.Fatal(err)
		}
		for j := i; j < min(n, i+1000); j++ {
			if _, err := p.PayTx(ctx, tx, fmt.Sprintf("bench-%07d", j), payment(100)); err != nil {
				b.Fatal(err)
			}
		}
		if err := p.db.Commit(ctx, tx); err != nil {
			b.Fatal(err)
		}
	}
	longAgo := time.Now().Add(-2 * p.cfg.KeyTTL).UnixMicro()
	if _, err := p.db.ExecPool(ctx, "UPDATE pix_intent SET attempts = 1, first_sent = $1 WHERE id < $2",
		longAgo, fmt.Sprintf("bench-%07d", aged)); err != nil {
		b.Fatal(err)
	}
}

// drainPayer starts p, waits until n of its jobs have completed, and returns payments per
// second and the commits the database counted from Start to Stop.
func drainPayer[TTx any](b *testing.B, db benchDB[TTx], p *Payer[TTx], n int) (float64, int64) {
	done, stop := completions(p.river, n)
	defer stop()
	before := db.commits()
	start := time.Now()
	if err := p.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	awaitCompletions(b, done, n)
	elapsed := time.Since(start)
	if err := p.Stop(context.Background()); err != nil {
		b.Fatal(err)
	}
	db.quiet()
	commits := db.commits() - before
	return float64(n) / elapsed.Seconds(), commits
}

// drainRiver stores n jobs, then drains them with a River client of its own on p's database
// whose worker calls work, with cfg's workers and fetch settings, and returns jobs per second
// and the commits the database counted from Start to Stop.
func drainRiver[TTx any](b *testing.B, db benchDB[TTx], cfg Config, workers, n int,
	work func(context.Context, *river.Job[nothingArgs]) error) (float64, int64) {
	ctx := context.Background()
	p, err := db.open(Config{})
	if err != nil {
		b.Fatal(err)
	}
	ws := river.NewWorkers()
	river.AddWorker(ws, river.WorkFunc(work))
	rc, err := river.NewClient(p.db.RiverDriver(), &river.Config{Workers: ws, Logger: cfg.Logger,
		Queues:            map[string]river.QueueConfig{"bench": {MaxWorkers: workers}},
		FetchPollInterval: cfg.PollInterval, FetchCooldown: cfg.FetchCooldown})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < n; i += 1000 {
		jobs := make([]river.InsertManyParams, 0, 1000)
		for j := i; j < min(n, i+1000); j++ {
			jobs = append(jobs, river.InsertManyParams{Args: nothingArgs{N: j}, InsertOpts: &river.InsertOpts{Queue: "bench"}})
		}
		if _, err := rc.InsertMany(ctx, jobs); err != nil {
			b.Fatal(err)
		}
	}
	done, stop := completions(rc, n)
	defer stop()
	before := db.commits()
	start := time.Now()
	if err := rc.Start(ctx); err != nil {
		b.Fatal(err)
	}
	awaitCompletions(b, done, n)
	elapsed := time.Since(start)
	if err := rc.Stop(ctx); err != nil {
		b.Fatal(err)
	}
	db.quiet()
	commits := db.commits() - before
	return float64(n) / elapsed.Seconds(), commits
}

// doNothing is the work of River's baseline.
func doNothing(context.Context, *river.Job[nothingArgs]) error { return nil }

// sendWith is the work of River's baseline that pays: a payment through c, under a key of
// its own.
func sendWith(b *testing.B, c *pix.Client) func(context.Context, *river.Job[nothingArgs]) error {
	return func(ctx context.Context, _ *river.Job[nothingArgs]) error {
		_, err := c.Send(ctx, payment(100))
		if err != nil {
			b.Error(err)
		}
		return err
	}
}

// nothingArgs is the job of River's baselines.
type nothingArgs struct {
	N int `json:"n"`
}

func (nothingArgs) Kind() string { return "bench_nothing" }

// completions closes done once rc has completed n jobs.
func completions[TTx any](rc *river.Client[TTx], n int) (done <-chan struct{}, stop func()) {
	events, cancel := rc.SubscribeConfig(&river.SubscribeConfig{ChanSize: n + 1000, // River drops what overflows
		Kinds: []river.EventKind{river.EventKindJobCompleted}})
	ch := make(chan struct{})
	go func() {
		seen := 0
		for range events {
			if seen++; seen == n {
				close(ch)
			}
		}
	}()
	return ch, cancel
}

// awaitCompletions waits for done, the completion of n jobs, for at most a minute plus 10 ms
// a job: 100 payments a second, a tenth of what a loaded machine drains, before it calls the
// drain hung.
func awaitCompletions(b *testing.B, done <-chan struct{}, n int) {
	limit := time.Minute + time.Duration(n)*10*time.Millisecond
	select {
	case <-done:
	case <-time.After(limit):
		b.Fatalf("the %d jobs did not all complete in %v", n, limit)
	}
}

// checkDrained checks that n intents are settled, each paid once.
func checkDrained[TTx any](b *testing.B, l ledger, p *Payer[TTx], n int) {
	var settled int
	if err := p.db.QueryRow(context.Background(), *new(TTx), "SELECT count(*) FROM pix_intent WHERE status = $1",
		StatusSettled).Scan(&settled); err != nil {
		b.Fatal(err)
	}
	if s := len(l.settlements()); settled != n || s != n {
		b.Fatalf("%d intents settled and %d payments at the PSP, want %d", settled, s, n)
	}
}

// mustBenchSQLite opens a fresh SQLite file with synchronous FULL (fsync) or OFF, and counts
// the commits of its one connection.
func mustBenchSQLite(b *testing.B, fsync bool) benchDB[*sql.Tx] {
	db, _ := mustSQLite(b)
	if !fsync {
		if _, err := db.Exec("PRAGMA synchronous = OFF"); err != nil {
			b.Fatal(err)
		}
	}
	var commits atomic.Int64
	conn, err := db.Conn(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	err = conn.Raw(func(c any) error {
		c.(sqlite.HookRegisterer).RegisterCommitHook(func() int32 { commits.Add(1); return 0 })
		return nil
	})
	if err := errors.Join(err, conn.Close()); err != nil {
		b.Fatal(err)
	}
	return benchDB[*sql.Tx]{
		open: func(cfg Config) (*Payer[*sql.Tx], error) {
			return New(context.Background(), durablesqlite.New(db), cfg)
		},
		commits: commits.Load,
		quiet:   func() {},
	}
}

// mustBenchPostgres makes a fresh database on PostgresEnv's cluster, with fsync on or off.
func mustBenchPostgres(b *testing.B, fsync bool) benchDB[pgx.Tx] {
	ctx := context.Background()
	dsn := mustPostgresURL(b)
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { admin.Close(ctx) })
	setting := map[bool]string{true: "on", false: "off"}[fsync]
	if _, err := admin.Exec(ctx, "ALTER SYSTEM SET fsync = "+setting); err != nil {
		b.Skipf("fsync=%s needs a superuser: %v", setting, err)
	}
	if _, err := admin.Exec(ctx, "SELECT pg_reload_conf()"); err != nil {
		b.Fatal(err)
	}
	pool, err := pgxpool.New(ctx, dsn+"&pool_max_conns=40")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	return benchDB[pgx.Tx]{
		open:        func(cfg Config) (*Payer[pgx.Tx], error) { return New(ctx, durablepgx.New(pool), cfg) },
		commits:     func() int64 { return xactCommits(b, admin) },
		quiet:       pool.Reset,
		readsCommit: true,
	}
}

// xactCommits reads the database's count of commits. Backends report theirs at most once a
// second, so it reads every second and a half until the count holds still but for its own
// read, which is a commit too.
func xactCommits(b *testing.B, admin *pgx.Conn) int64 {
	last := int64(-2)
	for range 40 {
		var n int64
		if err := admin.QueryRow(context.Background(),
			"SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()").Scan(&n); err != nil {
			b.Fatal(err)
		}
		if n-last <= 1 {
			return n
		}
		last = n
		time.Sleep(1500 * time.Millisecond)
	}
	b.Fatal("the count of commits did not hold still in a minute")
	return 0
}

// countingEngine counts the commits a worker's engine makes: of its groups of writes, of
// statements outside a transaction, and of reads outside one where reads commit.
type countingEngine[TTx any] struct {
	durabledriver.Driver[TTx]
	reads   bool
	commits atomic.Int64
}

func (c *countingEngine[TTx]) GroupTx(ctx context.Context, self durabledriver.Driver[TTx], take func() []*durabledriver.Write) error {
	c.commits.Add(1)
	return c.Driver.GroupTx(ctx, self, take)
}

func (c *countingEngine[TTx]) ExecPool(ctx context.Context, q string, args ...any) (int64, error) {
	c.commits.Add(1)
	return c.Driver.ExecPool(ctx, q, args...)
}

func (c *countingEngine[TTx]) QueryRow(ctx context.Context, tx TTx, q string, args ...any) durabledriver.Row {
	if c.reads && any(tx) == any(*new(TTx)) {
		c.commits.Add(1)
	}
	return c.Driver.QueryRow(ctx, tx, q, args...)
}

// BenchmarkRestart measures the time from opening the database of a run killed in the
// middle of an attempt to the first resumed attempt, on SQLite: open, migrations checked,
// the dead run's job taken over, fetched and started.
func BenchmarkRestart(b *testing.B) {
	l := mustPSP(b)
	path := filepath.Join(b.TempDir(), "restart.db")
	attempt := make(chan struct{}, 1)
	cfg := l.config()
	cfg.Testing.CrashPoint = func(point string) {
		if point == "before-attempt" {
			select {
			case attempt <- struct{}{}:
			default:
			}
		}
	}
	for i := range b.N {
		b.StopTimer()
		killedRun(b, path, fmt.Sprintf("restart-%d", i))
		b.StartTimer()
		db, err := durablesqlite.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		p, err := New(context.Background(), durablesqlite.New(db), cfg)
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
	db, err := durablesqlite.Open(path)
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
