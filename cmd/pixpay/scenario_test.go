package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"pixretry/psp"
)

// childEnv, set in a child's environment, makes the test binary run as pixpay (see TestMain).
const childEnv = "PIXPAY_TEST_CHILD"

// scenario is the world of one scenario test: a PSP on loopback that forgets a key keyTTL
// after it completes, a database, and the intents stored in it, each with its own amount so
// that the ledger tells them apart. pixpay run works them in child processes, which the test
// may kill with SIGKILL.
type scenario struct {
	t         *testing.T
	srv       *psp.Server
	url       string
	db        string
	postgres  bool
	cents     map[string]int64 // the intents' amounts by id, all distinct
	kills     int              // the children killed while they ran
	ttl       time.Duration    // the PSP's KeyTTL and pixpay's -key-ttl
	runWithin time.Duration    // the longest a child may take to finish every intent
	speaking  speaking
}

// speaking is the payments API that a scenario's PSP and pixpay speak: the double's own for
// the zero value.
type speaking struct {
	args  []string // pixpay's options for it, before the command
	front front    // the double's front end for it, or nil for none
}

// newScenario serves a PSP whose keys live ttl and returns a scenario on database db, a
// SQLite path or a postgres:// URL. The PSP's balance is large enough that a payment made
// twice is made, not refused, so that the ledger shows it.
func newScenario(t *testing.T, db string, ttl time.Duration) *scenario {
	return newScenarioSpeaking(t, db, ttl, speaking{})
}

// newScenarioSpeaking is newScenario with the PSP and pixpay speaking sp.
func newScenarioSpeaking(t *testing.T, db string, ttl time.Duration, sp speaking) *scenario {
	cfg := psp.DefaultConfig()
	cfg.KeyTTL, cfg.BalanceCents = ttl, 1_000_000_00
	srv, url := mustServerBehind(t, cfg, sp.front)
	s := &scenario{t: t, srv: srv, url: url, db: db, cents: map[string]int64{}, ttl: ttl,
		runWithin: 30 * time.Second, postgres: strings.HasPrefix(db, "postgres://"), speaking: sp}
	if s.postgres {
		s.runWithin = 2 * time.Minute // River's rescuer takes a dead child's jobs every 30 s
	}
	return s
}

// add stores intent id for cents, a new amount, with pixpay add, and returns add's line.
func (s *scenario) add(id string, cents int64) line {
	s.t.Helper()
	for other, c := range s.cents {
		if c == cents {
			s.t.Fatalf("intents %s and %s have the same amount, %d cents", id, other, cents)
		}
	}
	valor := fmt.Sprintf("%d.%02d", cents/100, cents%100)
	args := append(slices.Clone(s.speaking.args), "-db", s.db, "-psp", s.url, "add", "-id", id, "-valor", valor,
		"-chave", "pix@example.com")
	out, stderr, code := pixpay(s.t, args...)
	if code != 0 {
		s.t.Fatalf("add %s: exit %d, %s", id, code, stderr)
	}
	s.cents[id] = cents
	return lines(s.t, out)[0]
}

// start starts pixpay run -until-done in a child process, its waits short so that a
// scenario runs in seconds.
func (s *scenario) start() *child {
	s.t.Helper()
	args := append(slices.Clone(s.speaking.args), "-db", s.db, "-psp", s.url, "-key-ttl", s.ttl.String(),
		"-delay-base", "50ms", "-delay-max", "400ms", "-poll", "50ms", "run", "-until-done")
	if s.postgres {
		// The shortest allowed: a restarted child's rescuer then takes the jobs a killed
		// child left running once they are 10 s old.
		args = append([]string{"-rescue-after", "10s"}, args...)
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	c := &child{cmd: cmd, done: make(chan struct{})}
	cmd.Stderr = &c.stderr
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	go func() {
		c.err = cmd.Wait()
		close(c.done)
	}()
	s.t.Cleanup(func() {
		c.cmd.Process.Kill() // a test that failed early leaves no child running
		<-c.done
	})
	return c
}

// finish starts a child and waits, up to runWithin, for it to finish every intent.
func (s *scenario) finish() {
	s.t.Helper()
	s.start().wait(s.t, s.runWithin)
}

// kill kills c with SIGKILL and counts it if it was still running.
func (s *scenario) kill(c *child) {
	s.t.Helper()
	if c.kill(s.t) {
		s.kills++
	}
}

// pause lets the PSP forget every key that completed before it: it waits past the TTL in
// real time, since the PSP and the child run on the wall clock. On Postgres it also waits
// until a restarted child's rescuer may take the jobs a killed child left running.
func (s *scenario) pause(extra time.Duration) {
	d := s.ttl + s.ttl/4 + extra
	if s.postgres {
		d = max(d, 11*time.Second)
	}
	time.Sleep(d)
}

// await polls cond every 2 ms until it holds, and fails the test if it does not hold
// within 10 s. what says what cond waits for.
func (s *scenario) await(what string, cond func() bool) {
	s.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			s.t.Fatalf("waited 10 s for %s", what)
		}
	}
}

// check holds the intents against the PSP's ledger: every intent stored is settled, paid
// exactly once across all its keys, for its amount, and records that settlement's
// endToEndId, in every dialect; no settlement was made under a key of no intent. It logs the
// scenario's figures and returns the intents by id.
func (s *scenario) check() map[string]line {
	s.t.Helper()
	intents, owner := s.list(), map[string]string{} // owner: the intent of each key
	for _, in := range intents {
		for _, k := range in.Keys {
			owner[k] = in.ID
		}
	}
	paid := map[string][]psp.Settlement{}
	ledger := s.srv.Settlements()
	for _, st := range ledger {
		id, ok := owner[st.IdempotencyKey]
		if !ok {
			s.t.Errorf("settlement %s of %d cents under key %s belongs to no intent", st.EndToEndID, st.AmountCents, st.IdempotencyKey)
			continue
		}
		paid[id] = append(paid[id], st)
	}
	rotated := 0
	for id, cents := range s.cents {
		in, got := intents[id], paid[id]
		rotated += max(len(in.Keys)-1, 0)
		switch {
		case in.Status != "settled":
			s.t.Errorf("intent %s is %q, want settled", id, in.Status)
		case len(got) != 1:
			s.t.Errorf("intent %s (keys %v) was paid %d times: %s", id, in.Keys, len(got), settlements(got))
		case got[0].AmountCents != cents:
			s.t.Errorf("intent %s of %d cents: its settlement is of %d cents", id, cents, got[0].AmountCents)
		case got[0].EndToEndID != in.EndToEndID:
			s.t.Errorf("intent %s records endToEndId %q, the ledger %q", id, in.EndToEndID, got[0].EndToEndID)
		}
	}
	if len(intents) != len(s.cents) {
		s.t.Errorf("list shows %d intents, want the %d stored", len(intents), len(s.cents))
	}
	s.t.Logf("%d intents, %d kills, %d keys rotated, %d settlements, %d lookups",
		len(s.cents), s.kills, rotated, len(ledger), s.srv.Stats().Lookups)
	return intents
}

// list returns the intents that pixpay list shows, by id, each with every key it used.
func (s *scenario) list() map[string]line {
	s.t.Helper()
	out, stderr, code := pixpay(s.t, "-db", s.db, "list")
	if code != 0 {
		s.t.Fatalf("list: exit %d, %s", code, stderr)
	}
	intents := map[string]line{}
	for _, in := range lines(s.t, out) {
		if len(in.Keys) == 0 || in.Keys[len(in.Keys)-1] != in.Key {
			s.t.Errorf("intent %s: keys %v, want every key it used, its key %s last", in.ID, in.Keys, in.Key)
		}
		intents[in.ID] = in
	}
	return intents
}

// settlements describes the settlements of one intent, one a line.
func settlements(ledger []psp.Settlement) string {
	var b strings.Builder
	for _, st := range ledger {
		fmt.Fprintf(&b, "\n\t%s under key %s at %s", st.EndToEndID, st.IdempotencyKey, st.SettledAt.Format(time.StampMilli))
	}
	return b.String()
}

// child is pixpay run in a process of its own: the test binary, run as pixpay.
type child struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
	done   chan struct{} // closed once the process has exited and err is set
	err    error         // cmd.Wait's
}

// wait waits up to limit for c to exit, and fails the test unless it exited 0.
func (c *child) wait(t *testing.T, limit time.Duration) {
	t.Helper()
	select {
	case <-c.done:
	case <-time.After(limit):
		c.cmd.Process.Kill()
		<-c.done
		t.Fatalf("pixpay run -until-done still runs after %v; its stderr:\n%s", limit, &c.stderr)
	}
	if c.err != nil {
		t.Fatalf("pixpay run -until-done: %v; its stderr:\n%s", c.err, &c.stderr)
	}
}

// kill kills c with SIGKILL and reports whether it was still running. A child that had
// exited before must have exited 0.
func (c *child) kill(t *testing.T) bool {
	t.Helper()
	c.cmd.Process.Kill()
	<-c.done
	if exit, ok := errors.AsType[*exec.ExitError](c.err); ok && !exit.Exited() {
		return true
	}
	if c.err != nil {
		t.Fatalf("pixpay run -until-done: %v; its stderr:\n%s", c.err, &c.stderr)
	}
	return false
}

var databases atomic.Int64

// mustPostgresDB returns the URL of a fresh database, dropped at the end of the test, in the
// cluster of PIXRETRY_POSTGRES_URL, or skips the test without it.
func mustPostgresDB(t *testing.T) string {
	t.Helper()
	admin := os.Getenv(postgresEnv)
	if admin == "" {
		t.Skipf("%s is not set: skipping the Postgres tests (make test-postgres runs them on a throwaway cluster)", postgresEnv)
	}
	ctx := context.Background()
	name := fmt.Sprintf("pixpay_ttl_%d_%d", os.Getpid(), databases.Add(1))
	if err := adminExec(ctx, admin, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := adminExec(ctx, admin, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Error(err)
		}
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	q := u.Query()
	q.Set("sslmode", cmp.Or(q.Get("sslmode"), "disable"))
	u.RawQuery = q.Encode()
	return u.String()
}

// adminExec runs one statement on the database at admin.
func adminExec(ctx context.Context, admin, sql string) error {
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// sqliteDB returns the path of a new SQLite file in the test's temporary directory.
func sqliteDB(t *testing.T) string { return filepath.Join(t.TempDir(), "pay.db") }
