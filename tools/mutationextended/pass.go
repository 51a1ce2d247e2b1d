package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"pixretry/tools/internal/mutant"
)

// outcome is what became of one mutant.
type outcome int

func (o outcome) String() string {
	return [...]string{"killed", "timed out", "survived", "not covered", "not compiled"}[o]
}

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
	name     string // the package's name
	mutants  []mutant.Mutant
	outcomes []outcome
	alone    []bool        // built alone: no switch can hold the mutant
	setup    time.Duration // type checks, builds and coverage, before the first mutant runs
	took     time.Duration
}

// options are the settings of every package's pass.
type options struct {
	workers int  // mutants tested at once
	short   bool // run the tests with -test.short
	compare int  // mutants of each package to build alone too, for compare
}

// runPackage makes every mutant of the package in dir and tests it: the mutants that do not
// type-check are not compiled; the others run, each against the tests that cover it, in one
// test binary that holds them all behind switches (schema.go) or, for the few no switch can
// hold, in a binary of their own.
func runPackage(ctx context.Context, dir string, opts options, accepted *mutant.Accepted, prog *progress) (*pass, error) {
	start := time.Now()
	p := &pass{dir: filepath.Clean(dir)}
	sources, err := p.load(accepted)
	if err != nil {
		return nil, err
	}
	scratch, err := os.MkdirTemp("", "mutationextended-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	defer tidy(p.dir)()
	chk, err := newChecker(dir, p.name, sources)
	if err != nil {
		return nil, err
	}
	p.outcomes = make([]outcome, len(p.mutants))
	p.alone = make([]bool, len(p.mutants))
	switched := p.plan(chk, sources)
	schema, err := p.buildSchema(ctx, chk, sources, switched, scratch)
	if err != nil {
		return nil, err
	}
	cover := binary{path: filepath.Join(scratch, "cover.test"), dir: dir, short: opts.short}
	if err := buildTest(ctx, dir, cover.path, "-cover", "-covermode=set"); err != nil {
		return nil, fmt.Errorf("mutationextended: building the coverage binary of %s: %w", dir, err)
	}
	rs, err := measure(ctx, cover, opts.workers, scratch)
	if err != nil {
		return nil, err
	}
	p.setup = time.Since(start)
	schema.short = opts.short
	prog.begin(p.dir, len(p.mutants))
	todo := make(chan int)
	var wg sync.WaitGroup
	var errs []error
	var mu sync.Mutex
	for range max(opts.workers, 1) {
		wg.Go(func() {
			for i := range todo {
				o, err := p.test(ctx, i, schema, rs, sources, scratch)
				mu.Lock()
				p.outcomes[i] = o
				if err != nil {
					errs = append(errs, err)
				}
				mu.Unlock()
				prog.done(o)
			}
		})
	}
	for i := range p.mutants {
		if p.outcomes[i] == notCompiled {
			prog.done(notCompiled)
			continue
		}
		m := p.mutants[i]
		if len(rs.covering(m.File, m.Pos)) == 0 {
			p.outcomes[i] = notCovered
			prog.done(notCovered)
			continue
		}
		todo <- i
	}
	close(todo)
	wg.Wait()
	p.took = time.Since(start)
	prog.end()
	return p, errors.Join(errs...)
}

// plan finds the mutants that do not type-check (not compiled) and those that no switch can
// hold (alone), and returns the others by file.
func (p *pass) plan(chk *checker, sources map[string][]byte) map[string][]int {
	switched := map[string][]int{}
	stub := switchStub(p.name)
	for i, m := range p.mutants {
		src := sources[m.File]
		if chk.compiles(map[string][]byte{m.File: m.Apply(src)}) != nil {
			p.outcomes[i] = notCompiled
			continue
		}
		conv := chk.types[m.File]
		if m.Op == mutant.OpEmptyString && conv[m.Start] == "?" ||
			chk.compiles(map[string][]byte{m.File: schemaOf(src, p.mutants, []int{i}, conv), switchFile: stub}) != nil {
			p.alone[i] = true
			continue
		}
		switched[m.File] = append(switched[m.File], i)
	}
	return switched
}

// buildSchema writes the schema of each file that has switched mutants, checks that the
// package type-checks with all of them, and builds its test binary through an overlay.
func (p *pass) buildSchema(ctx context.Context, chk *checker, sources map[string][]byte, switched map[string][]int,
	scratch string) (binary, error) {
	files := map[string][]byte{switchFile: switchStub(p.name)}
	for file, ms := range switched {
		files[file] = schemaOf(sources[file], p.mutants, ms, chk.types[file])
	}
	if err := chk.compiles(files); err != nil {
		return binary{}, fmt.Errorf("mutationextended: the schema of %s does not type-check: %w", p.dir, err)
	}
	files[switchFile] = switchSource(p.name)
	spec, err := writeOverlay(filepath.Join(scratch, "schema"), p.dir, files)
	if err != nil {
		return binary{}, err
	}
	b := binary{path: filepath.Join(scratch, "schema.test"), dir: p.dir}
	if err := buildTest(ctx, p.dir, b.path, "-overlay", spec); err != nil {
		return binary{}, fmt.Errorf("mutationextended: building the schema of %s: %w", p.dir, err)
	}
	return b, nil
}

// writeOverlay writes files (by base name, replacing or adding files of the package in dir)
// under scratch, with the go command's overlay file that puts them in place, and returns the
// overlay file's path.
func writeOverlay(scratch, dir string, files map[string][]byte) (string, error) {
	if err := os.MkdirAll(scratch, 0o700); err != nil {
		return "", err
	}
	replace := map[string]string{}
	for name, src := range files {
		path := filepath.Join(scratch, name)
		if err := os.WriteFile(path, src, 0o600); err != nil {
			return "", err
		}
		replace[filepath.Join(abs(dir), name)] = path
	}
	spec, err := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err != nil {
		return "", err
	}
	path := filepath.Join(scratch, "overlay.json")
	return path, os.WriteFile(path, spec, 0o600)
}

// abs returns dir made absolute, for the go command's overlay and the test binary's directory.
func abs(dir string) string {
	a, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	return a
}

// test runs mutant i against the tests that cover it, in the schema's binary or, for a mutant
// no switch can hold, in one built for it.
func (p *pass) test(ctx context.Context, i int, schema binary, rs *routes, sources map[string][]byte,
	scratch string) (outcome, error) {
	m := p.mutants[i]
	tests := rs.covering(m.File, m.Pos)
	if !p.alone[i] {
		return schema.trial(ctx, tests, []string{fmt.Sprintf("%s=%d", mutantVar, i)}), nil
	}
	dir := filepath.Join(scratch, fmt.Sprintf("alone-%d", i))
	defer os.RemoveAll(dir)
	spec, err := writeOverlay(dir, p.dir, map[string][]byte{m.File: m.Apply(sources[m.File])})
	if err != nil {
		return 0, err
	}
	b := binary{path: filepath.Join(dir, "mutant.test"), dir: p.dir, short: schema.short}
	if err := buildTest(ctx, p.dir, b.path, "-overlay", spec); err != nil {
		// go/types passed it: a build failure is the go command's, not the mutant's.
		return 0, fmt.Errorf("mutationextended: %s type-checks but does not build: %w", m.ID, err)
	}
	return b.trial(ctx, tests, nil), nil
}

// load reads the package's files and makes their mutants, but the files the list skips, and
// keeps those -match and -ids select.
func (p *pass) load(accepted *mutant.Accepted) (map[string][]byte, error) {
	pkg, err := mutant.Load(p.dir, mutant.Extended, func(path string) bool { return accepted.Accepts(mutant.Skip, path) })
	if err != nil {
		return nil, err
	}
	p.dir, p.name = pkg.Dir, pkg.Name
	for _, m := range pkg.Mutants {
		if strings.Contains(m.ID, only) && (onlyIDs == nil || onlyIDs[m.ID]) {
			p.mutants = append(p.mutants, m)
		}
	}
	return pkg.Sources, nil
}

// report prints the package's survivors, its pseudo-tested functions and its tally, marks the
// equivalents it used, and returns how many survivors are not listed.
func (p *pass) report(out io.Writer, accepted *mutant.Accepted) int {
	if verbose {
		for i, m := range p.mutants {
			how := "switched"
			if p.alone[i] {
				how = "alone"
			}
			fmt.Fprintf(out, "%s %s (%s)\n", p.outcomes[i], m.ID, how)
		}
	}
	n := map[outcome]int{}
	equivalent, unlisted := 0, 0
	for i, m := range p.mutants {
		o := p.outcomes[i]
		n[o]++
		if o != survived && o != notCovered {
			continue
		}
		if accepted.Accepts(mutant.PassExtended, m.ID) {
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
		"%d not compiled; %d pseudo-tested functions; %s (%s before the first mutant ran)\n",
		p.dir, len(p.mutants), n[killed]+n[timedOut], n[timedOut], n[survived]+n[notCovered]-equivalent,
		n[notCovered], equivalent, n[notCompiled], len(pseudo), p.took.Round(time.Second), p.setup.Round(time.Second))
	return unlisted
}

// pseudoTested lists the functions whose every body mutant ran and survived.
func (p *pass) pseudoTested() []string {
	ran, lived := map[string]int{}, map[string]int{}
	for i, m := range p.mutants {
		if m.Op != mutant.OpZeroBody && m.Op != mutant.OpTrueBody {
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

// tidy lists the entries of the package directory dir, where the tests run, and returns a
// function that removes those that appeared since, but Go files (someone may be writing a
// test meanwhile): a mutant of a file path (a lock file's name made empty) can make a test
// write into the source tree.
func tidy(dir string) func() {
	before := map[string]bool{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		before[e.Name()] = true
	}
	return func() {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if !before[e.Name()] && !strings.HasSuffix(e.Name(), ".go") {
				fmt.Fprintf(os.Stderr, "mutationextended: removing %s, which a mutant's test left\n", filepath.Join(dir, e.Name()))
				os.RemoveAll(filepath.Join(dir, e.Name()))
			}
		}
	}
}
