package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Coefficient times the covering tests' measured time is a mutant's timeout, as in gremlins'
// timeout-coefficient (.gremlins.yaml).
const Coefficient = 10

// TimeoutFloor is the least timeout: a shared 2-core machine can stall a run of a test that
// takes milliseconds for longer than ten times that, but not for seconds. A mutant that hangs
// (a lock never released, a loop that never ends) costs a worker this long, and a pass has
// hundreds: at 5 s, psp/webhook's took 70 s, at 2 s 42 s, with the same verdicts. An accepted
// survivor that times out runs again with Slack, so a stall cannot make its entry stale.
const TimeoutFloor = 2 * time.Second

// testRun is one top-level test of a package, run alone under coverage once.
type testRun struct {
	name string
	took time.Duration
	hit  coverage // the blocks it ran, by file
}

// routes knows, for each position of a package's files, which of its tests run it.
type routes struct {
	tests []testRun
}

// covering returns the tests that run position p of file (its import path and base name),
// fastest first; none means that no test runs it. A position in no block of any profile (a
// switch case's condition, a package-level initializer) is not known to be unrun: every test
// whose profile counts the file's package covers it. A package that no profile counts is one
// the tests never link.
func (r *routes) covering(file string, p token.Position) []testRun {
	var in, counting []testRun
	known := false
	for _, t := range r.tests {
		if t.hit.counts(path.Dir(file)) {
			counting = append(counting, t)
		}
		ran, listed := t.hit.ran(file, p)
		known = known || listed
		if ran {
			in = append(in, t)
		}
	}
	if !known {
		in = counting
	}
	slices.SortStableFunc(in, func(a, b testRun) int { return int(a.took - b.took) })
	return in
}

// binary is a test binary of the package in dir, with the flags every run of it gets.
type binary struct {
	path  string
	dir   string
	short bool
	// tmp, when set, is the TMPDIR of its runs: a test killed by its timeout cannot remove its
	// t.TempDir, and the pass removes tmp with the rest of its scratch folder.
	tmp string
}

// build compiles the package's test binary into path, with the go command's extra flags (an
// overlay, coverage).
func buildTest(ctx context.Context, dir, path string, extra ...string) error {
	args := append([]string{"test", "-c", "-vet=off", "-o", path}, extra...)
	cmd := exec.CommandContext(ctx, "go", append(args, ".")...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w\n%s", err, out)
	}
	return nil
}

// list returns the names of the package's tests, examples and fuzz targets.
func (b binary) list(ctx context.Context) ([]string, error) {
	cmd := exec.CommandContext(ctx, b.path, "-test.list", ".")
	cmd.Dir = b.dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("mutationextended: listing the tests of %s: %w", b.dir, err)
	}
	var names []string
	for _, name := range strings.Fields(string(out)) {
		if !strings.HasPrefix(name, "Benchmark") {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("mutationextended: %s has no tests", b.dir)
	}
	return names, nil
}

// exec runs the named tests in one process with env added, and says whether they passed.
func (b binary) exec(ctx context.Context, names []string, timeout time.Duration, env []string, extra ...string) (outcome, []byte) {
	ctx, cancel := context.WithTimeout(ctx, timeout+30*time.Second)
	defer cancel()
	args := []string{"-test.run", "^(" + strings.Join(names, "|") + ")$", "-test.count=1", "-test.failfast",
		"-test.timeout", timeout.String()}
	if b.short {
		args = append(args, "-test.short")
	}
	cmd := exec.CommandContext(ctx, b.path, append(args, extra...)...)
	cmd.Dir = b.dir
	// A rapid test that fails writes a fail file that the next run would replay, so a killed
	// mutant would leave one behind for the next: RAPID_NOFAILFILE forbids it. RAPID_SEED,
	// unless set, is pinned, so that a verdict cannot flip between runs.
	cmd.Env = append(os.Environ(), "RAPID_NOFAILFILE=1")
	if b.tmp != "" {
		cmd.Env = append(cmd.Env, "TMPDIR="+b.tmp)
	}
	if os.Getenv("RAPID_SEED") == "" {
		cmd.Env = append(cmd.Env, "RAPID_SEED=1")
	}
	cmd.Env = append(cmd.Env, env...)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	switch {
	case err == nil:
		return survived, out
	case bytes.Contains(out, []byte("panic: test timed out after")), ctx.Err() != nil:
		return timedOut, out
	}
	return killed, out
}

// trial runs a mutant's covering tests against a binary that holds it, fastest first, in
// processes of 1, 2, 4, ... tests, stopping at the first that fails: most mutants die in the
// first process, and a survivor costs a few more process starts (tens of milliseconds each).
// Within a process, tests run in the order of the source, so a slow test there would delay a
// fast one that kills.
//
// When expected says the list of accepted survivors expects the mutant to survive, a process
// that times out runs once more with Slack times the time: a load spike on a shared machine
// must not turn an accepted survivor into a kill, and the entry into a stale one.
func (b binary) trial(ctx context.Context, tests []testRun, env []string, expected bool) outcome {
	for n := 1; len(tests) > 0; n *= 2 {
		chunk := tests[:min(n, len(tests))]
		tests = tests[len(chunk):]
		o := b.run(ctx, chunk, env, 1)
		if o == timedOut && expected {
			o = b.run(ctx, chunk, env, Slack)
		}
		if o != survived {
			return o
		}
	}
	return survived
}

// Slack is how many times longer the second run of a timed-out process may take (trial).
const Slack = 3

// run runs tests in one process, with a timeout of slack times Coefficient times their measured
// time.
func (b binary) run(ctx context.Context, tests []testRun, env []string, slack int) outcome {
	var took time.Duration
	names := make([]string, len(tests))
	for i, t := range tests {
		took += t.took
		names[i] = t.name
	}
	o, _ := b.exec(ctx, names, time.Duration(slack)*max(Coefficient*took, TimeoutFloor), env)
	return o
}

// measure runs each test of the coverage binary alone, workers at a time, and reads what it
// ran. A test that fails unmutated proves nothing about a mutant, so that is an error.
// When only is not nil, it runs the tests only keeps.
func measure(ctx context.Context, cover binary, only func(string) bool, workers int, scratch string) (*routes, error) {
	names, err := cover.list(ctx)
	if err != nil {
		return nil, err
	}
	if only != nil {
		names = slices.DeleteFunc(names, func(name string) bool { return !only(name) })
	}
	r := &routes{tests: make([]testRun, len(names))}
	errs := make([]error, len(names))
	todo := make(chan int)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for i := range todo {
				profile := filepath.Join(scratch, fmt.Sprintf("cover-%d.out", i))
				start := time.Now()
				o, out := cover.exec(ctx, names[i:i+1], 10*time.Minute, nil, "-test.coverprofile", profile)
				took := time.Since(start)
				if o != survived {
					errs[i] = fmt.Errorf("mutationextended: the unmutated test %s of %s fails:\n%s", names[i], cover.dir, out)
					continue
				}
				cov, err := readCoverage(profile)
				if err != nil {
					errs[i] = err
					continue
				}
				r.tests[i] = testRun{name: names[i], took: took, hit: cov}
			}
		})
	}
	for i := range names {
		todo <- i
	}
	close(todo)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return r, nil
}
