package durable

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"pixretry/durable/durabledriver"
	"pixretry/pix"
	"pixretry/retry"
)

// Config configures a Payer. Its zero value makes a Payer that stores intents but cannot
// work them; set Client to work them.
type Config struct {
	// Client sends the payments: each job attempt resumes the intent's stored key with
	// [pix.Client.Resume], which sends it again or looks it up and makes its own short
	// retries. The attempt gives Resume the PSP's id of the payment stored with the intent, if
	// any, and the payment's consent. The Payer uses a copy whose KeyTTL is Config.KeyTTL. That copy must be valid
	// ([pix.Client.Validate]), or the Config is invalid. Nil makes a Payer whose Start fails.
	// The Payer reports each key it gives up for a new one, once committed, with
	// [pix.Client.KeyRotated].
	Client *pix.Client
	// KeyTTL is how long the PSP remembers a completed key. It must not exceed the PSP's. Past
	// an intent's FirstSent + KeyTTL, less pix's margin, its key is looked up and never sent
	// again. 0 means Client.KeyTTL, itself 24 h when 0.
	KeyTTL time.Duration
	// Workers is how many payments are worked at once by this process, at most 10,000
	// (River's limit). 0 means 10.
	Workers int
	// DelayBase and DelayMax shape the wait before the next job attempt of a payment whose
	// outcome is unknown: a uniform draw below min(DelayMax, DelayBase·2^(n−1)) after the
	// n-th attempt, as with [retry.FullJitter]. 0 means 10 s and 5 min.
	DelayBase, DelayMax time.Duration
	// MaxAge is the age past which a pending intent is listed as StatusOverdue for an
	// operator. Its job keeps trying. 0 means 24 h.
	MaxAge time.Duration
	// JobTimeout bounds one job attempt, the whole SendWithKey call included. 0 means 10 s.
	JobTimeout time.Duration
	// RescueAfter is how long a job may stay running before River's rescuer takes it from a
	// process presumed dead (on Postgres). It is at least JobTimeout. 0 means JobTimeout + 5 s.
	// River's rescuer runs every 30 s, so by default a dead process's payments resume within
	// about RescueAfter + 30 s + DelayBase + 5 s, 60 s. A shorter RescueAfter cuts short the slow attempts of
	// live processes as well, and each rescue costs one more attempt.
	RescueAfter time.Duration
	// PollInterval is how often an idle process looks for new work. SQLite has no
	// notifications, so a new intent waits up to PollInterval there. Postgres notifies at
	// once. It is at least 1 ms (River's limit). 0 means 1 s.
	PollInterval time.Duration
	// FetchCooldown is the shortest time between two fetches of jobs while jobs wait and
	// workers free up: each fetch takes jobs for every free worker, so 10 workers take at most
	// 10 payments per FetchCooldown. It is at least 1 ms (River's limit) and at most
	// PollInterval. 0 means 1 ms.
	FetchCooldown time.Duration
	// OutageMax is how long Wait rides out a database that fails every look for pending
	// intents (a connection reset, a database restarting) before it returns the error. Each
	// failed look is logged at Warn and tried again at the next job event or PollInterval; one
	// that succeeds ends the outage. River's own client rides such failures out without end.
	// 0 means 1 min.
	OutageMax time.Duration
	// PSPOutageMax is how long Wait rides out a PSP that cannot be used at all: every job
	// attempt for that long met one Trouble, the PSP refusing the client's credentials or out
	// of reach. Wait then returns a *PSPUnusableError and leaves the intents pending under
	// their keys. An attempt that gets any other answer ends the trouble. Nothing is paid or
	// refused differently meanwhile. 0 means 1 min.
	PSPOutageMax time.Duration
	// Advice, if set, says what an operator should fix for a Trouble, such as a command's
	// flag. It is added to the Error records and to the PSPUnusableError that report it.
	Advice func(Trouble) string
	// Logger receives River's records and one record per job attempt, at Debug for an attempt
	// that met a Trouble: a Trouble is logged at Error once, then at most every 30 s while it
	// lasts. Nil discards them.
	Logger *slog.Logger
	// Rand returns uniform draws in [0, 1) for the waits. Nil means math/rand/v2.
	Rand func() float64
	// Middleware is River's middleware for the Payer's jobs, as River's Config.Middleware
	// takes it: each entry that is a rivertype.WorkerMiddleware wraps every job attempt, and
	// each that is a rivertype.JobInsertMiddleware wraps the insertion of every job. The first
	// entry is the outermost. durableotel.Middleware returns the Payer's metrics and spans.
	// Entries are installed as middleware only: River runs none of their hooks. Nil adds none.
	Middleware []rivertype.Middleware
	// Testing holds hooks for this package's tests. Programs leave it zero, which does
	// nothing.
	Testing TestingKnobs
}

// TestingKnobs are hooks that tests set through Config.Testing to reach inside a Payer at
// work, as CockroachDB's testing knobs do. They are for tests only. The zero value does
// nothing.
type TestingKnobs struct {
	// CrashPoint, if set, is called at each point where the crash tests may kill the
	// process, with the point's name: "before-attempt", "marked", "answered", "recorded" and
	// "rotated" in a job attempt; "webhook-received" and "webhook-stored" in ApplyWebhook.
	// It runs on the caller's goroutine, which waits for it to return.
	// Nil does nothing.
	CrashPoint func(point string)
}

// crash calls CrashPoint at point, if set.
func (k TestingKnobs) crash(point string) {
	if k.CrashPoint != nil {
		k.CrashPoint(point)
	}
}

// fetchCooldown is FetchCooldown's default: River's own, 100 ms, would hold 10 workers to
// 100 payments a second.
const fetchCooldown = time.Millisecond

// Validate reports the error wrapping ErrInvalidConfig that New would return for c, or nil.
// It opens nothing.
func (c Config) Validate() error {
	_, err := c.withDefaults()
	return err
}

// withDefaults checks c and fills in its zero values.
func (c Config) withDefaults() (Config, error) {
	if c.Workers < 0 {
		return c, fmt.Errorf("%w: Workers is %d, want 0 (10) or more", ErrInvalidConfig, c.Workers)
	}
	if c.MaxAge < 0 || c.JobTimeout < 0 || c.PollInterval < 0 || c.KeyTTL < 0 || c.OutageMax < 0 || c.FetchCooldown < 0 ||
		c.PSPOutageMax < 0 {
		return c, fmt.Errorf("%w: MaxAge, JobTimeout, PollInterval, FetchCooldown, KeyTTL, OutageMax and PSPOutageMax are not negative",
			ErrInvalidConfig)
	}
	c.Workers = cmp.Or(c.Workers, 10)
	c.DelayBase = cmp.Or(c.DelayBase, 10*time.Second)
	c.DelayMax = cmp.Or(c.DelayMax, 5*time.Minute)
	c.MaxAge = cmp.Or(c.MaxAge, 24*time.Hour)
	c.JobTimeout = cmp.Or(c.JobTimeout, 10*time.Second)
	c.RescueAfter = cmp.Or(c.RescueAfter, c.JobTimeout+5*time.Second)
	c.PollInterval = cmp.Or(c.PollInterval, time.Second)
	c.FetchCooldown = cmp.Or(c.FetchCooldown, min(c.PollInterval, fetchCooldown))
	c.OutageMax = cmp.Or(c.OutageMax, time.Minute)
	c.PSPOutageMax = cmp.Or(c.PSPOutageMax, time.Minute)
	c.KeyTTL = cmp.Or(c.KeyTTL, c.clientKeyTTL(), 24*time.Hour)
	if c.Client != nil {
		client := *c.Client
		client.KeyTTL = c.KeyTTL
		if err := client.Validate(); err != nil {
			return c, fmt.Errorf("%w: Client with KeyTTL %v: %w", ErrInvalidConfig, c.KeyTTL, err)
		}
		c.Client = &client
	}
	c.Logger = cmp.Or(c.Logger, slog.New(slog.DiscardHandler))
	if c.Rand == nil {
		c.Rand = rand.Float64
	}
	if c.Workers > river.QueueNumWorkersMax {
		return c, fmt.Errorf("%w: Workers is %d, want at most %d", ErrInvalidConfig, c.Workers, river.QueueNumWorkersMax)
	}
	if c.PollInterval < river.FetchPollIntervalMin {
		return c, fmt.Errorf("%w: PollInterval is %v, want at least %v", ErrInvalidConfig, c.PollInterval, river.FetchPollIntervalMin)
	}
	if c.FetchCooldown < river.FetchCooldownMin || c.FetchCooldown > c.PollInterval {
		return c, fmt.Errorf("%w: FetchCooldown is %v, want at least %v and at most PollInterval %v", ErrInvalidConfig,
			c.FetchCooldown, river.FetchCooldownMin, c.PollInterval)
	}
	if c.RescueAfter < c.JobTimeout {
		return c, fmt.Errorf("%w: RescueAfter %v is below JobTimeout %v", ErrInvalidConfig, c.RescueAfter, c.JobTimeout)
	}
	if err := c.policy().Validate(); err != nil {
		return c, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return c, nil
}

// clientKeyTTL is Client.KeyTTL, or 0 without a Client.
func (c Config) clientKeyTTL() time.Duration {
	if c.Client == nil {
		return 0
	}
	return c.Client.KeyTTL
}

// policy is the schedule of job attempts as a retry.Policy; AttemptsMax is unused.
func (c Config) policy() retry.Policy {
	return retry.Policy{AttemptsMax: 1, DelayBase: c.DelayBase, DelayMax: c.DelayMax}
}

// delay is the wait after the n-th attempt of a payment.
func (c Config) delay(n int) time.Duration {
	return retry.FullJitter(retry.Ceiling(c.policy(), n), c.Rand())
}

// Errors to check with errors.Is.
var (
	// ErrInvalidConfig is wrapped by the error of New for a bad Config. It is
	// durabledriver.ErrInvalidConfig, which a driver returns too.
	ErrInvalidConfig = durabledriver.ErrInvalidConfig
	// ErrIDReused reports an id already stored with another payment. Nothing was stored.
	ErrIDReused = errors.New("durable: id already stored with another payment")
	// ErrInvalidID reports an id that is empty or longer than 255 bytes.
	ErrInvalidID = errors.New("durable: invalid id")
	// ErrNotFound reports an id with no intent.
	ErrNotFound = errors.New("durable: no intent with this id")
	// ErrNoClient reports a Start on a Payer without Config.Client.
	ErrNoClient = errors.New("durable: Config.Client is nil")
)

// Payer stores payments as durable intents and works them. TTx is the engine's transaction
// type: *sql.Tx for durablesqlite, pgx.Tx for durablepgx. A Payer is safe for concurrent use.
// Start it to work intents; PayTx and Intents work without Start.
type Payer[TTx any] struct {
	now     func() time.Time // time.Now, but for tests
	cfg     Config
	db      durabledriver.Driver[TTx]
	river   *river.Client[TTx]
	worker  *worker[TTx]
	group   *groupCommit[TTx] // the workers' writes
	trouble troubleWatch      // the workers' attempts that met a Trouble
}

// newPayer makes the River client over db.
func newPayer[TTx any](db durabledriver.Driver[TTx], cfg Config) (*Payer[TTx], error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	p := &Payer[TTx]{now: time.Now, cfg: cfg, db: db, group: &groupCommit[TTx]{timeout: cfg.JobTimeout}}
	p.worker = &worker[TTx]{payer: p}
	workers := river.NewWorkers()
	river.AddWorker(workers, p.worker)
	rc := &river.Config{
		Workers: workers, Logger: cfg.Logger, RetryPolicy: schedule{cfg},
		JobTimeout: cfg.JobTimeout, RescueStuckJobsAfter: cfg.RescueAfter,
		FetchPollInterval: cfg.PollInterval, FetchCooldown: cfg.FetchCooldown, Middleware: cfg.Middleware,
	}
	if cfg.Client != nil {
		rc.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: cfg.Workers}}
	}
	if p.river, err = river.NewClient(db.RiverDriver(), rc); err != nil {
		return nil, fmt.Errorf("durable: %w", err)
	}
	return p, nil
}

// Start starts working intents in the background until Stop. On SQLite it first takes over
// the jobs of a dead process, or fails with durablesqlite.ErrBusy if a live one works the
// database.
func (p *Payer[TTx]) Start(ctx context.Context) error {
	if p.cfg.Client == nil {
		return ErrNoClient
	}
	n, err := p.db.TakeOver(ctx, payArgs{}.Kind())
	if err != nil {
		return err
	}
	level := slog.LevelInfo
	if n > 0 {
		level = slog.LevelWarn // a run died with jobs in hand: an operator should know
	}
	p.cfg.Logger.LogAttrs(ctx, level, "durable: started", slog.Int64("jobs_taken_over", n))
	if err := p.river.Start(ctx); err != nil {
		return errors.Join(fmt.Errorf("durable: %w", err), p.db.Release())
	}
	return nil
}

// Stop stops taking work and waits for the attempts in flight until ctx ends. It then
// cancels those still in flight: their outcome is unknown, and a later Start resumes them
// with the same key.
func (p *Payer[TTx]) Stop(ctx context.Context) error {
	err := p.river.Stop(ctx)
	if ctx.Err() != nil {
		err = p.river.StopAndCancel(context.WithoutCancel(ctx))
	}
	return errors.Join(err, p.db.Release())
}

// Wait returns nil once no intent is pending, or ctx's error once ctx ends. It looks again
// whenever one of this process's jobs ends an attempt, and every PollInterval for intents
// that other processes store or work. A Payer without Config.Client only looks every
// PollInterval. A look the database fails is logged at Warn and made again; Wait returns its
// error only once every look has failed for Config.OutageMax. Wait returns a
// *PSPUnusableError once every job attempt has met one Trouble for Config.PSPOutageMax.
func (p *Payer[TTx]) Wait(ctx context.Context) error {
	var events <-chan *river.Event
	if p.cfg.Client != nil { // River refuses to subscribe a client that works no jobs
		var cancel func()
		events, cancel = p.river.Subscribe(river.EventKindJobCompleted, river.EventKindJobCancelled,
			river.EventKindJobSnoozed, river.EventKindJobFailed)
		defer cancel()
	}
	tick := time.NewTicker(p.cfg.PollInterval)
	defer tick.Stop()
	var failing time.Time // when the current run of failed looks began; zero if none
	for {
		if err := p.trouble.unusable(p.now, p.cfg.PSPOutageMax, p.cfg.advice); err != nil {
			return err
		}
		pending, err := p.pending(ctx)
		switch {
		case err == nil && !pending:
			return nil
		case err == nil:
			failing = time.Time{}
		case ctx.Err() != nil:
			return ctx.Err()
		default:
			now := p.now()
			if failing.IsZero() {
				failing = now
			}
			if d := now.Sub(failing); d >= p.cfg.OutageMax {
				return fmt.Errorf("%w (every look failed for %v)", err, d.Round(time.Millisecond))
			}
			p.cfg.Logger.LogAttrs(ctx, slog.LevelWarn, "durable: look for pending intents failed; looking again",
				slog.Any("error", err), slog.Duration("failing_for", now.Sub(failing)))
		}
		select {
		case <-events:
		case <-tick.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// lookPending asks whether any intent is pending: 1 or 0. The index on status answers it
// without reading the table.
const lookPending = "SELECT count(*) FROM (SELECT 1 FROM pix_intent WHERE status = $1 LIMIT 1) AS one"

// pending reports whether any intent is pending.
func (p *Payer[TTx]) pending(ctx context.Context) (bool, error) {
	var n int
	err := p.db.QueryRow(ctx, *new(TTx), lookPending, StatusPending).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("durable: look for pending intents: %w", err)
	}
	return n > 0, nil
}
