package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"pixretry/tools/internal/mutant"
)

// bug is one realistic bug, planted by replacing Old by New in File, and the tests that must
// catch it.
type bug struct {
	Name    string // what the bug does, as a sentence
	File    string // the file to edit, from the module's root
	Old     string // the text replaced, which must occur exactly once in File
	New     string
	Package string // the package of the tests that must catch it, such as "./properties/"
	Run     string // the -run regexp of those tests
	Catcher string // what in those tests should catch it, for the output
	// Awaits, when set, names a change not merged yet, without which nothing can catch the
	// bug. Such a bug must not be caught yet.
	Awaits string
}

// errMissed is returned when a bug is not caught, went stale, or a pending bug is caught.
var errMissed = errors.New("planted: the tests do not catch every planted bug")

// run plants each bug in the module at root, workers at a time, and prints one line per bug in
// the order of bugs, then a total. Each bug is planted through its own overlay, so that bugs
// planted at once never see each other's.
func run(ctx context.Context, root string, bugs []bug, workers int, out io.Writer) error {
	start := time.Now()
	runners, err := baselines(ctx, root, bugs, workers)
	if err != nil {
		return err
	}
	results := make([]result, len(bugs))
	each(len(bugs), workers, func(i int) {
		r := *runners[bugs[i].Package]
		r.Run = bugs[i].Run
		results[i] = plant(ctx, root, &r, bugs[i])
	})
	caught, missed, pending := 0, 0, 0
	for i, b := range bugs {
		res := results[i]
		switch {
		case b.Awaits != "" && res.caught():
			missed++
			fmt.Fprintf(out, "%-8s %6.1fs  %s: caught by %s, so its Awaits mark (%s) must go\n",
				"MARKED", res.took.Seconds(), b.Name, strings.Join(res.failed, ", "), b.Awaits)
		case b.Awaits != "":
			pending++
			fmt.Fprintf(out, "%-8s %6.1fs  %s: not caught yet (%s), awaits %s\n",
				"pending", res.took.Seconds(), b.Name, res.problem, b.Awaits)
		case res.caught():
			caught++
			fmt.Fprintf(out, "%-8s %6.1fs  %s: by %s (%s)\n",
				"caught", res.took.Seconds(), b.Name, strings.Join(res.failed, ", "), b.Catcher)
		case res.stale:
			missed++
			fmt.Fprintf(out, "%-8s %6.1fs  %s: %s\n%s", "STALE", res.took.Seconds(), b.Name, res.problem, res.detail)
		default:
			missed++
			fmt.Fprintf(out, "%-8s %6.1fs  %s: not caught, %s; %s should catch it\n%s",
				"MISSED", res.took.Seconds(), b.Name, res.problem, b.Catcher, res.detail)
		}
	}
	fmt.Fprintf(out, "planted: %d of %d bugs caught, %d missed, stale or marked, %d awaiting a merge, in %.0fs\n",
		caught, len(bugs)-pending, missed, pending, time.Since(start).Seconds())
	if missed > 0 {
		return fmt.Errorf("%w: %d missed, stale or marked", errMissed, missed)
	}
	return nil
}

// baselines runs, for each package, the tests of every bug in it with nothing planted, which
// must pass, workers packages at a time, and returns a Runner per package whose timeout is set
// from their time.
func baselines(ctx context.Context, root string, bugs []bug, workers int) (map[string]*mutant.Runner, error) {
	runs := map[string][]string{}
	var pkgs []string
	for _, b := range bugs {
		if runs[b.Package] == nil {
			pkgs = append(pkgs, b.Package)
		}
		runs[b.Package] = append(runs[b.Package], "(?:"+b.Run+")")
	}
	measured := make([]*mutant.Runner, len(pkgs))
	errs := make([]error, len(pkgs))
	each(len(pkgs), workers, func(i int) {
		r := &mutant.Runner{Dir: filepath.Join(root, pkgs[i]), Run: strings.Join(runs[pkgs[i]], "|")}
		if _, err := r.Measure(ctx, "-vet=off"); err != nil {
			errs[i] = fmt.Errorf("planted: with no bug planted: %w", err)
		}
		measured[i] = r
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	runners := map[string]*mutant.Runner{}
	for i, pkg := range pkgs {
		runners[pkg] = measured[i]
	}
	return runners, nil
}

// each calls f(i) for every i below n, workers calls at a time, and returns when all are done.
func each(n, workers int, f func(i int)) {
	var wg sync.WaitGroup
	slots := make(chan struct{}, max(workers, 1))
	for i := range n {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			f(i)
		})
	}
	wg.Wait()
}

// result is what the tests made of one planted bug.
type result struct {
	failed  []string      // the tests that failed, when they caught the bug
	problem string        // why the bug was not caught
	stale   bool          // the bug cannot be planted in today's code
	detail  string        // the go command's output, when it says why
	took    time.Duration // the build and the run
}

func (r result) caught() bool { return r.problem == "" }

// plant plants b and runs its tests with r.
func plant(ctx context.Context, root string, r *mutant.Runner, b bug) result {
	path := filepath.Join(root, b.File)
	src, err := os.ReadFile(path)
	if err != nil {
		return result{problem: err.Error(), stale: true}
	}
	if n := bytes.Count(src, []byte(b.Old)); n != 1 || b.Old == b.New {
		return result{problem: fmt.Sprintf("its old text occurs %d times in %s, not once", n, b.File), stale: true}
	}
	start := time.Now()
	v, out, err := r.TestFile(ctx, path, bytes.Replace(src, []byte(b.Old), []byte(b.New), 1))
	res := result{took: time.Since(start)}
	switch {
	case err != nil:
		res.problem = err.Error()
	case v == mutant.Survived:
		res.problem = "the tests passed"
	case v == mutant.NotCompiled:
		res.problem, res.detail, res.stale = "the planted code does not build", indent(out), true
	case v == mutant.TimedOut:
		res.problem, res.detail = "the tests timed out", indent(out)
	default:
		res.failed = failedTests(out)
		if len(res.failed) == 0 {
			res.problem, res.detail = "the run failed, but no test did", indent(out)
		}
	}
	return res
}

var failLine = regexp.MustCompile(`(?m)^--- FAIL: (\S+) `)

// failedTests returns the top-level tests that go test's output reports failed.
func failedTests(out []byte) []string {
	var names []string
	for _, m := range failLine.FindAllSubmatch(out, -1) {
		names = append(names, string(m[1]))
	}
	return names
}

// indent returns the last lines of the go command's output, indented under a bug's line.
func indent(out []byte) string {
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	lines = lines[max(len(lines)-20, 0):]
	return "        " + strings.Join(lines, "\n        ") + "\n"
}
