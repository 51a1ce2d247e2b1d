package mutant

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"time"
)

// Verdict is what a package's tests said about a mutant.
type Verdict int

const (
	// Killed means the tests failed.
	Killed Verdict = iota
	// Survived means the tests passed.
	Survived
	// TimedOut means the tests ran past the Runner's timeout.
	TimedOut
	// NotCompiled means the mutated package, or its tests, did not build.
	NotCompiled
)

func (v Verdict) String() string {
	return [...]string{"killed", "survived", "timed out", "not compiled"}[v]
}

// Coefficient times the tests' measured time is a mutant's timeout, as in gremlins'
// timeout-coefficient (.gremlins.yaml).
const Coefficient = 10

// TimeoutFloor is the least timeout: the tests of this module run in a fraction of a second,
// and a shared 2-core machine can stall a run for longer than ten times that.
const TimeoutFloor = 30 * time.Second

// buildAllowance is how long a mutant's build may take, beyond its tests' timeout.
const buildAllowance = 5 * time.Minute

// Runner runs the tests of the package in Dir, whose module the go command finds from Dir,
// against one mutated file, of that package or of one it builds on, through
// `go test -overlay`, so that no tree is copied and the real file is never written. It builds
// a test binary per mutant: the gate's proofs and the planted bugs are few.
//
// A Runner is safe for concurrent use: each call writes its mutant and its overlay file to a
// directory of its own.
type Runner struct {
	Dir     string        // the package directory
	Timeout time.Duration // the test binary's -timeout; Measure sets it
	Run     string        // the -run regexp of every run, Measure's included; empty runs every test
	Short   bool          // run the tests with -short
}

var elapsed = regexp.MustCompile(`(?m)^ok\s+\S+\s+([0-9.]+)s`)

// Measure runs the unmutated tests once, with extra go test flags such as -coverprofile, and
// sets the timeout from the time the test binary reported. Tests that fail unmutated prove
// nothing about a mutant, so that is an error.
func (r *Runner) Measure(ctx context.Context, extra ...string) (time.Duration, error) {
	args := append(append([]string{"test", "-count=1"}, r.runFlag()...), extra...)
	out, err := r.goCmd(ctx, append(args, ".")...).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("mutant: the unmutated tests of %s fail: %w\n%s", r.Dir, err, out)
	}
	m := elapsed.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("mutant: no test time in the output of %s:\n%s", r.Dir, out)
	}
	secs, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		return 0, fmt.Errorf("mutant: %s: %w", r.Dir, err)
	}
	took := time.Duration(secs * float64(time.Second))
	r.Timeout = max(Coefficient*took, TimeoutFloor)
	return took, nil
}

// Test runs the package's tests with file (a path in Dir) replaced by src, and says what
// they made of it. The returned output is the go command's, for a report.
func (r *Runner) Test(ctx context.Context, file string, src []byte) (Verdict, []byte, error) {
	return r.TestFile(ctx, filepath.Join(r.Dir, filepath.Base(file)), src)
}

// TestFile is Test with path, a file of any package that the package in Dir builds on, replaced
// by src. path is absolute or relative to the working directory, not to Dir.
func (r *Runner) TestFile(ctx context.Context, path string, src []byte) (Verdict, []byte, error) {
	if r.Timeout <= 0 {
		return 0, nil, errors.New("mutant: no timeout: call Measure first")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return 0, nil, err
	}
	if _, err := os.Stat(abs); err != nil {
		return 0, nil, fmt.Errorf("mutant: %w", err)
	}
	scratch, err := os.MkdirTemp("", "mutant-")
	if err != nil {
		return 0, nil, err
	}
	defer os.RemoveAll(scratch)
	mutant := filepath.Join(scratch, filepath.Base(abs))
	if err := os.WriteFile(mutant, src, 0o600); err != nil {
		return 0, nil, err
	}
	spec, _ := json.Marshal(map[string]map[string]string{"Replace": {abs: mutant}})
	specPath := filepath.Join(scratch, "overlay.json")
	if err := os.WriteFile(specPath, spec, 0o600); err != nil {
		return 0, nil, err
	}
	// The test binary's -timeout ends a mutant that hangs. The outer deadline only guards
	// against a go command that hangs, with room for a build on a loaded machine.
	ctx, cancel := context.WithTimeout(ctx, r.Timeout+buildAllowance)
	defer cancel()
	// -vet=off: vet judges the code, not the tests, and would cost every mutant a run. A test
	// binary without symbol table and DWARF links faster; stack traces keep their lines.
	args := append([]string{"test", "-count=1", "-vet=off", "-ldflags=-s -w", "-failfast", "-overlay", specPath,
		"-timeout", r.Timeout.String()}, r.runFlag()...)
	out, err := r.goCmd(ctx, append(args, ".")...).CombinedOutput()
	return classify(ctx, out, err), out, nil
}

// runFlag is the -run flag of Run, or none, and -short when Short is set.
func (r *Runner) runFlag() []string {
	var flags []string
	if r.Run != "" {
		flags = append(flags, "-run", r.Run)
	}
	if r.Short {
		flags = append(flags, "-short")
	}
	return flags
}

func classify(ctx context.Context, out []byte, err error) Verdict {
	switch {
	case err == nil:
		return Survived
	case bytes.Contains(out, []byte("[build failed]")), bytes.Contains(out, []byte("[setup failed]")):
		return NotCompiled
	case bytes.Contains(out, []byte("panic: test timed out after")), ctx.Err() != nil:
		return TimedOut
	default:
		return Killed
	}
}

// goCmd runs the go command in Dir. A rapid test that fails writes a fail file that the next
// run replays, so a killed mutant would leave one behind for the next mutant: RAPID_NOFAILFILE
// forbids it. RAPID_SEED, unless set, is pinned, so that a verdict cannot flip between runs.
func (r *Runner) goCmd(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = r.Dir
	cmd.Env = append(os.Environ(), "RAPID_NOFAILFILE=1")
	if os.Getenv("RAPID_SEED") == "" {
		cmd.Env = append(cmd.Env, "RAPID_SEED=1")
	}
	cmd.WaitDelay = 5 * time.Second
	return cmd
}
