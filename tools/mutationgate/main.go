// Command mutationgate reads gremlins' JSON reports and fails unless every mutant was killed.
//
// Gremlins v0.6.0 cannot be trusted as its own gate: its --threshold-efficacy flag is ignored,
// its config threshold fails when efficacy equals it, and TIMED OUT mutants are left out of the
// efficacy figure (so they inflate it). This gate reads the report that `gremlins unleash -o`
// writes and accepts KILLED, and NOT VIABLE (a mutant that does not compile tests nothing).
//
// Gremlins reports a mutant NOT COVERED when Go's coverage has no block for its line, and Go
// counts no block for a switch case's condition, even one the tests run. The gate takes such a
// mutant neither on faith nor as a failure: it applies that one mutation (the report's file,
// line, column and type) through `go test -overlay`, runs the package's tests with a timeout
// of ten times their measured time, and accepts the mutant only if they fail ("proven
// killed") or it does not compile. A NOT COVERED mutant that survives, times out or cannot be
// reproduced stays a survivor. Those proofs run -workers at a time (the number of CPUs), since
// each is mostly a build that links on one core; they are printed in the report's order.
//
// Every other mutant (LIVED, TIMED OUT, SKIPPED, RUNNABLE, unproven NOT COVERED) is printed as
// file:line:column type status, and the gate exits 1. A missing report, or one with no mutant
// at all, fails too: gremlins writes no report when it found nothing to mutate, and a gate
// that passes on an empty run proves nothing.
//
// Usage, from the product module's root:
//
//	"$(go -C tools tool -n mutationgate)" [-workers N] PKGDIR=REPORT.json [PKGDIR=REPORT.json ...]
//
// PKGDIR is the directory gremlins mutated: the report's file names are relative to it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"pixretry/tools/internal/mutant"
)

// errSurvivors is returned when at least one mutant was not killed.
var errSurvivors = errors.New("mutationgate: mutants survived")

func main() {
	acceptedFile := flag.String("accepted", "tools/accepted.txt", "the `file` of accepted survivors: IDs grouped under their \"PASS: reason\" lines")
	flag.IntVar(&proofWorkers, "workers", proofWorkers, "how many NOT COVERED mutants are proven at once")
	flag.Parse()
	accepted, err := mutant.ReadAccepted(*acceptedFile)
	if err == nil {
		err = run(context.Background(), accepted, flag.Args(), os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// passing lists the statuses that do not fail the gate.
var passing = map[string]bool{"KILLED": true, "NOT VIABLE": true}

// run gates each report; a LIVED mutant that accepted accepts for the pass "gremlins" passes,
// and such an entry about a gated package that names no LIVED mutant fails.
func run(ctx context.Context, accepted *mutant.Accepted, args []string, out io.Writer) error {
	if accepted == nil {
		accepted = &mutant.Accepted{}
	}
	if len(args) == 0 {
		return errors.New("mutationgate: usage: mutationgate PKGDIR=REPORT.json [PKGDIR=REPORT.json ...]")
	}
	survivors := 0
	var dirs []string
	for _, arg := range args {
		dir, path, ok := strings.Cut(arg, "=")
		if !ok || dir == "" || path == "" {
			return fmt.Errorf("mutationgate: %q: want PKGDIR=REPORT.json", arg)
		}
		n, err := check(ctx, accepted, dir, path, out)
		if err != nil {
			return err
		}
		survivors += n
		dirs = append(dirs, filepath.ToSlash(filepath.Clean(dir)))
	}
	for _, id := range accepted.Stale(mutant.PassGremlins, dirs) {
		survivors++
		fmt.Fprintf(out, "%s: accepted, but no such mutant lived: stale\n", id)
	}
	if survivors > 0 {
		return fmt.Errorf("%w: %d not killed", errSurvivors, survivors)
	}
	return nil
}

// tally counts one report's mutants by status, and its NOT COVERED ones by what the proof
// made of them.
type tally struct {
	listed, survivors                 int
	status                            map[string]int
	proven, provenNotViable, unproven int
	accepted                          int
	pkgs                              map[string]*mutant.Package // gremlins' mutants, by directory, for IDs
}

// accepts says whether the list accepts the mutant m of name (a file from dir) for the pass
// "gremlins", by its ID.
func (t *tally) accepts(accepted *mutant.Accepted, dir, name string, m mutant.Mutation) bool {
	pkgDir := filepath.Join(dir, filepath.Dir(name))
	pkg, ok := t.pkgs[pkgDir]
	if !ok {
		var err error
		if pkg, err = mutant.Load(pkgDir, mutant.Tokens, nil); err != nil {
			return false
		}
		t.pkgs[pkgDir] = pkg
	}
	mu, ok := pkg.At(filepath.Base(name), m.Line, m.Column, m.Type)
	return ok && accepted.Accepts(mutant.PassGremlins, mu.ID)
}

// check prints one report's tally and every mutant that was not killed, and returns how many
// there were. The NOT COVERED mutants are proven last, proofWorkers at a time, and printed in
// the report's order.
func check(ctx context.Context, accepted *mutant.Accepted, dir, path string, out io.Writer) (int, error) {
	r, err := mutant.ReadReport(path)
	if err != nil {
		return 0, err
	}
	t := tally{status: map[string]int{}, pkgs: map[string]*mutant.Package{}}
	provers := map[string]*mutant.Runner{} // by package directory
	var proofs []*proof
	for _, f := range r.Files {
		for _, m := range f.Mutations {
			t.listed++
			t.status[m.Status]++
			switch {
			case passing[m.Status]:
			case m.Status == "NOT COVERED":
				// gremlins names a file of a subpackage by its path from dir: its own
				// package's tests prove it.
				pkg := filepath.Join(dir, filepath.Dir(f.Name))
				prover := provers[pkg]
				if prover == nil {
					if prover, err = measure(ctx, pkg); err != nil {
						return 0, err
					}
					provers[pkg] = prover
				}
				proofs = append(proofs, &proof{runner: prover, name: f.Name, m: m})
			case m.Status == "LIVED" && t.accepts(accepted, dir, f.Name, m):
				t.accepted++
			default:
				t.survivors++
				fmt.Fprintf(out, "%s:%d:%d %s %s\n", f.Name, m.Line, m.Column, m.Type, m.Status)
			}
		}
	}
	runProofs(ctx, proofs, proofWorkers)
	for _, p := range proofs {
		t.count(p, out)
	}
	fmt.Fprintf(out, "%s: %d mutants: %d killed, %d not viable, %d lived, %d timed out, "+
		"%d not covered (%d proven killed, %d proven not viable, %d unproven), %d accepted\n",
		path, t.listed, t.status["KILLED"], t.status["NOT VIABLE"], t.status["LIVED"], t.status["TIMED OUT"],
		t.status["NOT COVERED"], t.proven, t.provenNotViable, t.unproven, t.accepted)
	return t.survivors, nil
}

// proofWorkers is how many proofs run at once (-workers). A proof is mostly a build, which
// leaves a core idle while it links.
var proofWorkers = runtime.NumCPU()

// proof is one NOT COVERED mutant to prove, and once proven its verdict.
type proof struct {
	runner  *mutant.Runner
	name    string
	m       mutant.Mutation
	verdict mutant.Verdict
	err     error
}

// runProofs proves every proof, workers at a time (at least one).
func runProofs(ctx context.Context, proofs []*proof, workers int) {
	var wg sync.WaitGroup
	limit := make(chan struct{}, max(workers, 1))
	for _, p := range proofs {
		limit <- struct{}{}
		wg.Go(func() {
			defer func() { <-limit }()
			p.verdict, p.err = apply(ctx, p.runner, p.name, p.m)
		})
	}
	wg.Wait()
}

// count counts a proof's verdict; a mutant it did not prove killed is printed and counted
// as a survivor.
func (t *tally) count(p *proof, out io.Writer) {
	name, m := p.name, p.m
	switch {
	case p.err != nil:
		fmt.Fprintf(out, "%s:%d:%d %s NOT COVERED, unproven: %v\n", name, m.Line, m.Column, m.Type, p.err)
	case p.verdict == mutant.Killed:
		t.proven++
		return
	case p.verdict == mutant.NotCompiled:
		t.provenNotViable++
		return
	default:
		fmt.Fprintf(out, "%s:%d:%d %s NOT COVERED, %s under its tests\n", name, m.Line, m.Column, m.Type, p.verdict)
	}
	t.unproven++
	t.survivors++
}

// measure times the unmutated tests of the package in dir, which sets the proofs' timeout.
func measure(ctx context.Context, dir string) (*mutant.Runner, error) {
	r := &mutant.Runner{Dir: dir}
	if _, err := r.Measure(ctx); err != nil {
		return nil, fmt.Errorf("mutationgate: %w", err)
	}
	return r, nil
}

// apply applies one mutation to its file and runs the package's tests against it.
func apply(ctx context.Context, r *mutant.Runner, name string, m mutant.Mutation) (mutant.Verdict, error) {
	src, err := os.ReadFile(filepath.Join(r.Dir, filepath.Base(name)))
	if err != nil {
		return 0, fmt.Errorf("mutationgate: %w", err)
	}
	mutant, err := mutant.Mutate(src, name, m.Line, m.Column, m.Type)
	if err != nil {
		return 0, err
	}
	v, _, err := r.Test(ctx, name, mutant)
	return v, err
}
