package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"go/build"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"pixretry/tools/mutationgate/overlay"
)

// outcome is what became of one mutant.
type outcome int

const (
	killed outcome = iota
	timedOut
	survived
	notCovered // survived without a run: the tests never reach it
	notCompiled
)

// pass is one package's mutants and their outcomes.
type pass struct {
	dir      string
	mutants  []mutant
	outcomes []outcome
	took     time.Duration
}

// runPackage makes every mutant of the package in dir and tests it.
func runPackage(ctx context.Context, dir string, workers int) (*pass, error) {
	start := time.Now()
	p := &pass{dir: filepath.Clean(dir)}
	sources, err := p.collect()
	if err != nil {
		return nil, err
	}
	profile, err := os.CreateTemp("", "cover-")
	if err != nil {
		return nil, err
	}
	profile.Close()
	defer os.Remove(profile.Name())
	runner := &overlay.Runner{Dir: dir}
	if _, err := runner.Measure(ctx, "-covermode=set", "-coverprofile="+profile.Name()); err != nil {
		return nil, fmt.Errorf("mutationextended: %w", err)
	}
	cov, err := readCoverage(profile.Name())
	if err != nil {
		return nil, err
	}
	p.outcomes = make([]outcome, len(p.mutants))
	todo := make(chan int)
	done := 0
	var wg sync.WaitGroup
	var firstErr error
	var mu sync.Mutex
	for range max(workers, 1) {
		wg.Go(func() {
			for i := range todo {
				o, err := test(ctx, runner, sources, p.mutants[i])
				mu.Lock()
				p.outcomes[i] = o
				if err != nil && firstErr == nil {
					firstErr = err
				}
				if o == survived {
					fmt.Fprintf(os.Stderr, "survived: %s\n", p.mutants[i].ID)
				}
				if done++; done%25 == 0 {
					fmt.Fprintf(os.Stderr, "%s: %d mutants tested, %s\n", p.dir, done, time.Since(start).Round(time.Second))
				}
				mu.Unlock()
			}
		})
	}
	for i, m := range p.mutants {
		if cov.unrun(m.File, m.Pos) {
			p.outcomes[i] = notCovered
			continue
		}
		todo <- i
	}
	close(todo)
	wg.Wait()
	p.took = time.Since(start)
	return p, firstErr
}

// collect reads the package's files and makes their mutants, each with its id; a mutant that
// makes the same file as an earlier one (removing a case's one statement empties the case) is
// dropped.
func (p *pass) collect() (map[string][]byte, error) {
	pkg, err := build.ImportDir(p.dir, 0)
	if err != nil {
		return nil, fmt.Errorf("mutationextended: %w", err)
	}
	sources := map[string][]byte{}
	seen := map[[32]byte]bool{}
	ids := map[string]int{}
	for _, name := range pkg.GoFiles {
		src, err := os.ReadFile(filepath.Join(p.dir, name))
		if err != nil {
			return nil, fmt.Errorf("mutationextended: %w", err)
		}
		sources[name] = src
		ms, err := mutants(name, src)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			sum := sha256.Sum256(append([]byte(name+"\x00"), m.apply(src)...))
			if seen[sum] {
				continue
			}
			seen[sum] = true
			m.ID = fmt.Sprintf("%s/%s:%s:%s:%s", filepath.ToSlash(p.dir), m.File, m.Func, m.Op, m.Text)
			if ids[m.ID]++; ids[m.ID] > 1 {
				m.ID = fmt.Sprintf("%s#%d", m.ID, ids[m.ID])
			}
			if !strings.Contains(m.ID, only) || onlyIDs != nil && !onlyIDs[m.ID] {
				continue
			}
			p.mutants = append(p.mutants, m)
		}
	}
	return sources, nil
}

func test(ctx context.Context, r *overlay.Runner, sources map[string][]byte, m mutant) (outcome, error) {
	v, _, err := r.Test(ctx, m.File, m.apply(sources[m.File]))
	if err != nil {
		return 0, fmt.Errorf("mutationextended: %s: %w", m.ID, err)
	}
	switch v {
	case overlay.Killed:
		return killed, nil
	case overlay.TimedOut:
		return timedOut, nil
	case overlay.NotCompiled:
		return notCompiled, nil
	}
	return survived, nil
}

// report prints the package's survivors, its pseudo-tested functions and its tally, marks the
// equivalents it used, and returns how many survivors are not listed.
func (p *pass) report(out io.Writer, eq equivalents, used map[string]bool) int {
	n := map[outcome]int{}
	equivalent, unlisted := 0, 0
	for i, m := range p.mutants {
		o := p.outcomes[i]
		n[o]++
		if o != survived && o != notCovered {
			continue
		}
		if _, ok := eq[m.ID]; ok {
			used[m.ID] = true
			equivalent++
			continue
		}
		unlisted++
		how := "SURVIVED"
		if o == notCovered {
			how = "SURVIVED (no test runs it)"
		}
		fmt.Fprintf(out, "%s %s (line %d)\n", how, m.ID, m.Pos.Line)
	}
	pseudo := p.pseudoTested()
	for _, fn := range pseudo {
		fmt.Fprintf(out, "PSEUDO-TESTED %s/%s: every body mutant ran and survived\n", p.dir, fn)
	}
	fmt.Fprintf(out, "%s: %d mutants: %d killed (%d by timeout), %d survived (%d not covered), %d equivalent, "+
		"%d not compiled; %d pseudo-tested functions; %s\n",
		p.dir, len(p.mutants), n[killed]+n[timedOut], n[timedOut], n[survived]+n[notCovered]-equivalent,
		n[notCovered], equivalent, n[notCompiled], len(pseudo), p.took.Round(time.Second))
	return unlisted
}

// pseudoTested lists the functions whose every body mutant ran and survived.
func (p *pass) pseudoTested() []string {
	ran, lived := map[string]int{}, map[string]int{}
	for i, m := range p.mutants {
		if m.Op != opZeroBody && m.Op != opTrueBody {
			continue
		}
		key := m.File + ":" + m.Func
		switch p.outcomes[i] {
		case survived:
			ran[key]++
			lived[key]++
		case killed, timedOut:
			ran[key]++
		}
	}
	var fns []string
	for key, r := range ran {
		if lived[key] == r {
			fns = append(fns, key)
		}
	}
	sort.Strings(fns)
	return fns
}
