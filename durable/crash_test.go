package durable

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pixretry/durable/durablesqlite"
)

// crashTTL is the key TTL of the crash property's PSP and children: short, since the property
// waits past it in real time.
const crashTTL = time.Second

// TestCrashProperty holds the invariants of checkLedger across processes killed with SIGKILL
// at each crash point, twice, and at random instants: the payer runs in a child process and
// is killed; the next child stores the earlier rounds again, as its caller would, resumes the
// pending intents and stores its own round, and a last child finishes. Each round stores
// three intents (one of them refused) and rolls a fourth back, with PSP faults queued that
// leave outcomes unknown, so that unknown outcomes are resumed across the crash. A rolled-back
// or never-committed intent must leave no settlement, and no intent may be lost. After each
// kill, an intent pending with no attempt counted under its key has no settlement under it.
//
// Some kills are followed by a pause (see then): past the PSP's TTL after a kill around the
// PSP's answer, so that it forgets the keys and only a lookup may learn their outcome, and
// past the key's deadline in the database after a kill at marked, so that the next child's
// lookup proves the key unpaid and gives the intent a new key, and is killed there.
//
// It takes about 13 s (30 s under -race), so -short skips it: the mutation gate runs durable's
// tests with -short, where the fast tests must kill every mutant on their own.
func TestCrashProperty(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: the crash property runs only in full runs (make test)")
	}
	points := []string{"before-commit", "before-attempt", "marked", "rotated", "settled-unread", "answered", "recorded"}
	specs := []string{"before-commit:1", "before-commit:2", "before-attempt:1", "before-attempt:2",
		"marked:1", "rotated:1", "marked:2", "rotated:1", "settled-unread:1", "settled-unread:2",
		"answered:1", "answered:2", "recorded:1", "recorded:2"}
	then := map[string]pause{"marked": ageKeys, "settled-unread": pastTTL, "answered": pastTTL, "random": pastTTL}
	l := mustLoopbackPSP(t, crashTTL)
	db := filepath.Join(t.TempDir(), "crash.db")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 4 {
		specs = append(specs, fmt.Sprintf("random:%d", 1+rng.IntN(8)))
	}
	kills, pauses := map[string]int{}, map[pause]int{}
	prev := ""
	for round, spec := range specs {
		l.inject([]fault{faultCommit503, faultDrop, faultLate, faultDown}[round%4])
		cents := 10_000 + 10*round // every amount distinct, for checkLedger
		ids := fmt.Sprintf("r%02d-rb=%d,r%02d-a=%d,r%02d-b=%d,r%02d-c=%d", round, cents, round, cents+1,
			round, refusedCents+int64(round), round, cents+2)
		// Callers whose process died store their rounds again: the same ids and payments.
		reached := killAt(t, db, l.url, prev+ids, spec)
		point, _, _ := strings.Cut(spec, ":")
		if !reached && point != "random" {
			t.Fatalf("child at %s: exited without reaching the point", spec)
		}
		if reached {
			kills[point]++
			pauses[then[point]]++
			then[point].pass(t, db)
			checkUnsentKeysUnpaid(t, l, reopen(t, db))
		}
		prev += ids + ","
	}
	killAt(t, db, l.url, strings.TrimSuffix(prev, ","), "") // finishes what the last kill left

	all := reopen(t, db)
	checkLedger(t, l, all)
	checkRounds(t, all, len(specs))
	rotated := 0
	for _, in := range all {
		rotated += len(in.Keys) - 1
	}
	t.Logf("kills per point %v; then %d restarts at once, %d past the TTL, %d with keys aged; %d intents, "+
		"%d settlements, %d lookups, %d keys rotated", kills, pauses[restartAtOnce], pauses[pastTTL], pauses[ageKeys],
		len(all), len(l.settlements()), l.lookups(), rotated)
	for _, p := range points {
		if kills[p] != 2 {
			t.Errorf("point %s: %d kills, want 2", p, kills[p])
		}
	}
}

// A run killed between the mark of a key's first attempt and its send leaves no proof that
// the key never left, so the next run resumes the key rather than send it as new. Efí's
// refusal of the payer's key, which refuses an intent at its first attempt, then leaves the
// outcome unknown, and the intent waits under its key.
func TestCrashBetweenMarkAndSendResumesTheKey(t *testing.T) {
	t.Parallel()
	l := mustLoopbackPSPBehind(t, 0, efiFront)
	db := filepath.Join(t.TempDir(), "crash.db")
	for _, spec := range []string{"marked:1", "recorded:1"} {
		if !startChild(t, "sqlite:"+db, l.url, 0, "a=100", spec, dialectEnv+"=efi").killOrWait(t) {
			t.Fatalf("child at %s: exited without reaching the point", spec)
		}
	}
	all := reopen(t, db)
	if len(all) != 1 {
		t.Fatalf("intents = %+v, want intent a alone", all)
	}
	got := all[0]
	if want := unknownAfter(got.Key, chaveInvalida); got.Status != StatusPending || got.Attempts != 2 || got.Error != want {
		t.Errorf("intent = %+v, want pending after 2 attempts, the first cut short, with %q", got, want)
	}
}

// pause is what passes between a killed child and the next.
type pause int

const (
	restartAtOnce pause = iota
	// pastTTL waits until the PSP has forgotten every key the child sent: the next child must
	// look them up. The wait is real, as the PSP's clock is.
	pastTTL
	// ageKeys moves the first_sent of every key back past its deadline in the database: the
	// next child looks them up at once. A key that never left has nothing for the PSP to
	// forget, so this proves what a wait would.
	ageKeys
)

// pass lets p pass on the database at path.
func (p pause) pass(t *testing.T, path string) {
	t.Helper()
	switch p {
	case pastTTL:
		// A late or slow fault may settle up to 300 ms after the kill.
		afterTTL(time.Now().Add(400*time.Millisecond), crashTTL)
	case ageKeys:
		db, err := durablesqlite.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		ageFirstSent(t, db, crashTTL)
	}
}

// killAt runs the child on round ids until it stops at spec and kills it, returning true, or
// until it exits 0 (spec "" or a random passage that never came), returning false. The
// child stores the round if it gets that far, then works every pending intent.
func killAt(t *testing.T, db, url, ids, spec string) bool {
	t.Helper()
	return startChild(t, "sqlite:"+db, url, crashTTL, ids, spec).killOrWait(t)
}

// child is a crash test's child process.
type child struct {
	cmd    *exec.Cmd
	lines  *bufio.Scanner
	stderr *strings.Builder
	spec   string
}

// startChild starts a child on database dsn ("sqlite:PATH" or "postgres:URL"), for a PSP that
// remembers keys for ttl (0: the Client's default). env holds more of its environment, as
// NAME=value.
func startChild(t *testing.T, dsn, url string, ttl time.Duration, ids, spec string, env ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+dsn, pspEnv+"="+url, ttlEnv+"="+ttl.String(), roundEnv+"="+ids,
		pointEnv+"="+spec)
	cmd.Env = append(cmd.Env, env...)
	c := &child{cmd: cmd, stderr: &strings.Builder{}, spec: spec}
	cmd.Stderr = c.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c.lines = bufio.NewScanner(out)
	return c
}

// killOrWait kills the child once it says it reached its crash point, and returns true; or
// waits for it to exit 0 and returns false.
func (c *child) killOrWait(t *testing.T) bool {
	t.Helper()
	reached := c.lines.Scan() && strings.HasPrefix(c.lines.Text(), "crash-point ")
	if reached {
		if err := c.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
	}
	for c.lines.Scan() { // drain, so that Wait does not race the pipe's reader
	}
	err := c.cmd.Wait()
	var exit *exec.ExitError
	switch {
	case reached && !(errors.As(err, &exit) && !exit.Exited()):
		t.Fatalf("child at %s: Wait() = %v, want killed by a signal", c.spec, err)
	case !reached && err != nil:
		t.Fatalf("child at %q: %v; stderr:\n%s", c.spec, err, c.stderr.String())
	}
	return reached
}

// reopen reads every intent of the database at path.
func reopen(t *testing.T, path string) []Intent {
	t.Helper()
	db, err := durablesqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p := mustPayer(t, db, Config{})
	all, err := collect(p.Intents(t.Context()))
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// checkUnsentKeysUnpaid asserts what a restart may prove from the database alone: an intent
// pending with no attempt counted under its key never sent it, so nothing was paid under it.
func checkUnsentKeysUnpaid(t *testing.T, l ledger, all []Intent) {
	t.Helper()
	paid := map[string]bool{}
	for _, s := range l.settlements() {
		paid[s.Key] = true
	}
	for _, in := range all {
		if in.Status == StatusPending && in.Attempts == 0 && paid[in.Key] {
			t.Errorf("intent %s is pending with no attempt under key %s, yet the PSP settled under it", in.ID, in.Key)
		}
	}
}

// checkRounds asserts that each round left exactly its three committed intents, answered
// for: a and c settled, b refused, and nothing of the rolled-back one.
func checkRounds(t *testing.T, all []Intent, rounds int) {
	t.Helper()
	got := map[string]Status{}
	for _, in := range all {
		got[in.ID] = in.Status
	}
	for r := range rounds {
		want := map[string]Status{"a": StatusSettled, "b": StatusRefused, "c": StatusSettled}
		for name, status := range want {
			id := fmt.Sprintf("r%02d-%s", r, name)
			if got[id] != status {
				t.Errorf("intent %s is %q, want %q", id, got[id], status)
			}
		}
		if _, ok := got[fmt.Sprintf("r%02d-rb", r)]; ok {
			t.Errorf("rolled-back intent r%02d-rb was stored", r)
		}
	}
	if len(all) != 3*rounds {
		t.Errorf("%d intents stored, want %d", len(all), 3*rounds)
	}
}
