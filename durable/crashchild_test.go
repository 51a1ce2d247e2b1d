package durable

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"pixretry/durable/durablepgx"
	"pixretry/durable/durablesqlite"
	"pixretry/pix/efi"

	"github.com/jackc/pgx/v5/pgxpool"
)

// The crash tests' child: it stores the round's intents, works them until none is pending,
// and exits 0. The parent sets its environment, and may have it stop at a crash point.
const (
	childEnv = "DURABLE_CRASH_CHILD" // "sqlite:PATH" or "postgres:URL"
	pspEnv   = "DURABLE_CRASH_PSP"   // the PSP's URL
	ttlEnv   = "DURABLE_CRASH_TTL"   // the PSP's key TTL, as time.ParseDuration reads it
	roundEnv = "DURABLE_CRASH_ROUND" // id=cents,id=cents; an id ending in -rb is rolled back
	pointEnv = "DURABLE_CRASH_POINT" // name:n, stop at the n-th passage of a point; random:n, tell at the n-th passage of any
	// dialectEnv, set to "ref", has the child speak refDialect and store each payment under the
	// consent named for its id. Set to "efi", it has the child speak Efí's dialect from
	// efiWrongPayer, which the Efí double refuses. Unset, the child speaks the double's own API.
	dialectEnv = "DURABLE_CRASH_DIALECT"
	// waitEnv bounds how long the child works, as time.ParseDuration reads it. Unset, 2 min.
	waitEnv = "DURABLE_CRASH_WAIT"
)

// crashChild runs the child and returns its exit code.
func crashChild() int {
	if err := runChild(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "crash child:", err)
		return 1
	}
	return 0
}

func runChild(ctx context.Context) error {
	crash := crashPoint(os.Getenv(pointEnv))
	cfg := testConfig(os.Getenv(pspEnv))
	cfg.Testing.CrashPoint = crash
	cfg.Client.HTTPClient = &http.Client{Transport: settledUnread{http.DefaultTransport, crash}}
	consent := os.Getenv(dialectEnv) == "ref"
	switch os.Getenv(dialectEnv) {
	case "ref":
		cfg.Client.Dialect = refDialect{}
	case "efi":
		cfg.Client.Dialect = efi.Dialect{PayerKey: efiWrongPayer}
		cfg.Client.AttemptTimeout = 10 * time.Second // as patientConfig's
	}
	ttl, err := time.ParseDuration(os.Getenv(ttlEnv))
	if err != nil {
		return err
	}
	cfg.KeyTTL = ttl
	engine, dsn, _ := strings.Cut(os.Getenv(childEnv), ":")
	if engine == "postgres" {
		cfg.JobTimeout, cfg.RescueAfter = time.Second, time.Second
		pool, err := pgxpool.New(ctx, dsn)
		if err != nil {
			return err
		}
		defer pool.Close()
		p, err := New(ctx, durablepgx.New(pool), cfg)
		if err != nil {
			return err
		}
		return work(ctx, p, consent)
	}
	db, err := durablesqlite.Open(dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	p, err := New(ctx, durablesqlite.New(db), cfg)
	if err != nil {
		return err
	}
	return work(ctx, p, consent)
}

// work stores the round, each payment under a consent if consent is set, then works until no
// intent is pending.
func work[TTx any](ctx context.Context, p *Payer[TTx], consent bool) error {
	if err := storeRound(ctx, p, os.Getenv(roundEnv), consent); err != nil {
		return err
	}
	if err := p.Start(ctx); err != nil {
		return err
	}
	wait, err := time.ParseDuration(cmp.Or(os.Getenv(waitEnv), "2m"))
	if err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	return errors.Join(p.Wait(wctx), p.Stop(ctx))
}

// storeRound rolls back the round's intents whose id ends in -rb and commits the others, each
// in a transaction of its own as a caller's business change would be. With consent, each
// payment is under the consent named for its id.
func storeRound[TTx any](ctx context.Context, p *Payer[TTx], round string, consent bool) error {
	if round == "" {
		return nil
	}
	for _, pair := range strings.Split(round, ",") {
		id, c, _ := strings.Cut(pair, "=")
		cents, err := strconv.ParseInt(c, 10, 64)
		if err != nil {
			return err
		}
		tx, err := p.db.Begin(ctx)
		if err != nil {
			return err
		}
		pay := payment(cents)
		if consent {
			pay = consented(id, cents)
		}
		if _, err := p.PayTx(ctx, tx, id, pay); err != nil {
			return errors.Join(err, p.db.Rollback(ctx, tx))
		}
		if strings.HasSuffix(id, "-rb") {
			if err := p.db.Rollback(ctx, tx); err != nil {
				return err
			}
			continue
		}
		p.cfg.Testing.crash("before-commit")
		if err := p.db.Commit(ctx, tx); err != nil {
			return err
		}
	}
	return nil
}

// crashPoint returns the Config.Testing.CrashPoint that spec asks for, or nil. At its stop,
// the child says so on stdout and waits for the parent's SIGKILL.
func crashPoint(spec string) func(point string) {
	if spec == "" {
		return nil
	}
	name, n, _ := strings.Cut(spec, ":")
	at, _ := strconv.Atoi(n)
	var mu sync.Mutex
	passed := map[string]int{}
	return func(point string) {
		mu.Lock()
		defer mu.Unlock()
		if name == "random" {
			passed[name]++
		} else {
			passed[point]++
		}
		if passed[name] != at {
			return
		}
		fmt.Printf("crash-point %s\n", point)
		if name != "random" {
			<-time.After(time.Minute) // the parent kills the child long before
			os.Exit(3)
		}
	}
}

// settledUnread is the crash point between the PSP's 201 and pix's reading of it.
type settledUnread struct {
	base  http.RoundTripper
	crash func(point string) // or nil
}

func (t settledUnread) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if err == nil && resp.StatusCode == http.StatusCreated {
		TestingKnobs{CrashPoint: t.crash}.crash("settled-unread")
	}
	return resp, err
}
