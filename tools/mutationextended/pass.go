package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
	dir        string
	name       string               // the package's name
	importPath string               // for its files' coverage
	base       int                  // the switch number of its first mutant: passes run together share one space
	expected   func(id string) bool // whether the list of accepted survivors expects id to survive
	mutants    []mutant.Mutant
	sources    map[string][]byte // by base name
	outcomes   []outcome
	alone      []bool        // built alone: no switch can hold the mutant
	setup      time.Duration // type checks, builds and coverage, before the first mutant runs
	took       time.Duration
	ran        time.Duration // its mutants' own runs, after the setup
}

// options are the settings of every package's pass.
type options struct {
	workers    int    // mutants tested at once
	short      bool   // run the tests with -test.short
	compare    int    // mutants of each package to build alone too, for compare
	properties string // the trace suite's directory: run against the property tests alone
}

// A suite is the tests of one test binary that the mutants run against.
type suite struct {
	dir    string                 // the package whose test binary it is
	only   func(name string) bool // its tests that belong, or nil for all
	schema binary                 // the test binary with every package's schema
	routes *routes
}

// runPackage makes every mutant of the package in dir and tests it against the package's own
// tests.
func runPackage(ctx context.Context, dir string, opts options, accepted *mutant.Accepted, prog *progress) (*pass, error) {
	ps, err := runPasses(ctx, []string{dir}, []suite{{dir: dir}}, opts, accepted, prog)
	if err != nil {
		return nil, err
	}
	return ps[0], nil
}

// runPasses makes every mutant of the packages in dirs and tests each against the tests of
// suites that cover it: the mutants that do not type-check are not compiled; the others run in
// test binaries that hold every package's schema (schema.go), their switches numbered in one
// space, or, for the few no switch can hold, in binaries of their own.
func runPasses(ctx context.Context, dirs []string, suites []suite, opts options, accepted *mutant.Accepted,
	prog *progress) ([]*pass, error) {
	start := time.Now()
	scratch, err := os.MkdirTemp("", "mutationextended-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	tmp := filepath.Join(scratch, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return nil, err
	}
	overlay := map[string][]byte{}
	var passes []*pass
	var coverpkg []string
	for _, dir := range dirs {
		p := &pass{dir: filepath.Clean(dir), expected: expects(accepted, opts)}
		if len(passes) > 0 {
			last := passes[len(passes)-1]
			p.base = last.base + len(last.mutants)
		}
		if err := p.prepare(ctx, accepted, overlay); err != nil {
			return nil, err
		}
		defer tidy(p.dir)()
		passes = append(passes, p)
		coverpkg = append(coverpkg, p.importPath)
	}
	spec, err := writeOverlay(filepath.Join(scratch, "schema"), overlay)
	if err != nil {
		return nil, err
	}
	for i := range suites {
		s := &suites[i]
		if !slices.Contains(dirs, s.dir) {
			defer tidy(s.dir)()
		}
		if err := s.prepare(ctx, spec, coverpkg, opts, filepath.Join(scratch, fmt.Sprintf("suite-%d", i)), tmp); err != nil {
			return nil, err
		}
	}
	setup := time.Since(start)
	var errs []error
	for _, p := range passes {
		p.setup = setup
		errs = append(errs, p.runMutants(ctx, suites, opts, scratch, prog))
		p.took = setup + p.ran
	}
	return passes, errors.Join(errs...)
}

// expects says whether the list expects a mutant to survive the pass that opts run.
func expects(accepted *mutant.Accepted, opts options) func(id string) bool {
	word := mutant.PassExtended
	if opts.properties != "" {
		word = mutant.PassProperties
	}
	return func(id string) bool {
		return slices.ContainsFunc(acceptedBy(word), func(pass string) bool { return accepted.Lists(pass, id) })
	}
}

// prepare loads the package's mutants, finds those not compiled and those built alone, and adds
// the schema of its files to overlay, by absolute path.
func (p *pass) prepare(ctx context.Context, accepted *mutant.Accepted, overlay map[string][]byte) error {
	sources, err := p.load(accepted)
	if err != nil {
		return err
	}
	p.sources = sources
	out, err := exec.CommandContext(ctx, "go", "-C", p.dir, "list", "-f", "{{.ImportPath}}", ".").Output()
	if err != nil {
		return fmt.Errorf("mutationextended: go list %s: %w", p.dir, err)
	}
	p.importPath = strings.TrimSpace(string(out))
	chk, err := newChecker(p.dir, p.name, sources)
	if err != nil {
		return err
	}
	p.outcomes = make([]outcome, len(p.mutants))
	p.alone = make([]bool, len(p.mutants))
	files := map[string][]byte{switchFile: switchStub(p.name)}
	for file, ms := range p.plan(chk, sources) {
		files[file] = schemaOf(sources[file], p.mutants, ms, chk.types[file], p.base)
	}
	if err := chk.compiles(files); err != nil {
		return fmt.Errorf("mutationextended: the schema of %s does not type-check: %w", p.dir, err)
	}
	files[switchFile] = switchSource(p.name)
	for name, src := range files {
		overlay[filepath.Join(abs(p.dir), name)] = src
	}
	return nil
}

// prepare builds the suite's schema binary with the overlay spec and its coverage binary, which
// counts the packages of coverpkg, and runs each of its tests alone under coverage, with tmp as
// their TMPDIR.
func (s *suite) prepare(ctx context.Context, spec string, coverpkg []string, opts options, scratch, tmp string) error {
	if err := os.MkdirAll(scratch, 0o700); err != nil {
		return err
	}
	s.schema = binary{path: filepath.Join(scratch, "schema.test"), dir: s.dir, short: opts.short, tmp: tmp}
	if err := buildTest(ctx, s.dir, s.schema.path, "-overlay", spec); err != nil {
		return fmt.Errorf("mutationextended: building the schema of %s: %w", s.dir, err)
	}
	cover := binary{path: filepath.Join(scratch, "cover.test"), dir: s.dir, short: opts.short, tmp: tmp}
	if err := buildTest(ctx, s.dir, cover.path, "-cover", "-covermode=set", "-coverpkg="+strings.Join(coverpkg, ",")); err != nil {
		return fmt.Errorf("mutationextended: building the coverage binary of %s: %w", s.dir, err)
	}
	rs, err := measure(ctx, cover, s.only, opts.workers, scratch)
	s.routes = rs
	return err
}

// runMutants tests the package's mutants, workers at a time, each against the tests of suites
// that cover it.
func (p *pass) runMutants(ctx context.Context, suites []suite, opts options, scratch string, prog *progress) error {
	start := time.Now()
	defer func() { p.ran = time.Since(start) }()
	prog.begin(p.dir, len(p.mutants))
	defer prog.end()
	todo := make(chan int)
	var wg sync.WaitGroup
	var errs []error
	var mu sync.Mutex
	for range max(opts.workers, 1) {
		wg.Go(func() {
			for i := range todo {
				o, err := p.test(ctx, i, suites, scratch)
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
		if !p.covered(i, suites) {
			p.outcomes[i] = notCovered
			prog.done(notCovered)
			continue
		}
		todo <- i
	}
	close(todo)
	wg.Wait()
	return errors.Join(errs...)
}

// covered says whether a test of the suites runs mutant i's position.
func (p *pass) covered(i int, suites []suite) bool {
	m := p.mutants[i]
	for _, s := range suites {
		if len(s.routes.covering(p.importPath+"/"+m.File, m.Pos)) > 0 {
			return true
		}
	}
	return false
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
		if (m.Op == mutant.OpEmptyString || isToken(m)) && conv[m.Start] == "?" ||
			chk.compiles(map[string][]byte{m.File: schemaOf(src, p.mutants, []int{i}, conv, p.base), switchFile: stub}) != nil {
			p.alone[i] = true
			continue
		}
		switched[m.File] = append(switched[m.File], i)
	}
	return switched
}

// writeOverlay writes files (by absolute path, replacing or adding files of packages) under
// scratch, with the go command's overlay file that puts them in place, and returns the overlay
// file's path.
func writeOverlay(scratch string, files map[string][]byte) (string, error) {
	if err := os.MkdirAll(scratch, 0o700); err != nil {
		return "", err
	}
	replace := map[string]string{}
	n := 0
	for target, src := range files {
		n++
		path := filepath.Join(scratch, fmt.Sprintf("%d-%s", n, filepath.Base(target)))
		if err := os.WriteFile(path, src, 0o600); err != nil {
			return "", err
		}
		replace[target] = path
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

// test runs mutant i against the tests of each suite that cover it, until one kills it: in the
// suites' schema binaries or, for a mutant no switch can hold, in binaries built for it.
func (p *pass) test(ctx context.Context, i int, suites []suite, scratch string) (outcome, error) {
	m := p.mutants[i]
	var spec, dir string
	if p.alone[i] {
		dir = filepath.Join(scratch, fmt.Sprintf("alone-%s-%d", filepath.Base(p.dir), i))
		defer os.RemoveAll(dir)
		var err error
		spec, err = writeOverlay(dir, map[string][]byte{filepath.Join(abs(p.dir), m.File): m.Apply(p.sources[m.File])})
		if err != nil {
			return 0, err
		}
	}
	for k, s := range suites {
		tests := s.routes.covering(p.importPath+"/"+m.File, m.Pos)
		if len(tests) == 0 {
			continue
		}
		b, env := s.schema, []string{fmt.Sprintf("%s=%d", mutantVar, p.base+i)}
		if p.alone[i] {
			b = binary{path: filepath.Join(dir, fmt.Sprintf("mutant-%d.test", k)), dir: s.dir, short: s.schema.short, tmp: s.schema.tmp}
			env = nil
			if err := buildTest(ctx, s.dir, b.path, "-overlay", spec); err != nil {
				// go/types passed it: a build failure is the go command's, not the mutant's.
				return 0, fmt.Errorf("mutationextended: %s type-checks but does not build: %w", m.ID, err)
			}
		}
		if o := b.trial(ctx, tests, env, p.expected(m.ID)); o != survived {
			return o, nil
		}
	}
	return survived, nil
}

// load reads the package's files and makes their mutants, but the files the list skips, and
// keeps those -match and -ids select.
func (p *pass) load(accepted *mutant.Accepted) (map[string][]byte, error) {
	pkg, err := mutant.Load(p.dir, bothFamilies, func(path string) bool { return accepted.Accepts(mutant.Skip, path) })
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

// bothFamilies makes a file's mutants of both families: Extended's, then gremlins' (Tokens).
func bothFamilies(name string, src []byte) ([]mutant.Mutant, error) {
	ext, err := mutant.Extended(name, src)
	if err != nil {
		return nil, err
	}
	tok, err := mutant.Tokens(name, src)
	return append(ext, tok...), err
}

// report prints the package's survivors, its pseudo-tested functions and its tally, marks the
// entries it used, and returns how many survivors are not listed.
func (p *pass) report(out io.Writer, accepted *mutant.Accepted, passes []string) int {
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
	nAccepted, unlisted := 0, 0
	listed := make([]bool, len(p.mutants)) // a survivor the list accepts
	for i, m := range p.mutants {
		o := p.outcomes[i]
		n[o]++
		if o != survived && o != notCovered {
			continue
		}
		if slices.ContainsFunc(passes, func(pass string) bool { return accepted.Accepts(pass, m.ID) }) {
			listed[i] = true
			nAccepted++
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
	fmt.Fprintf(out, "%s: %d mutants: %d killed (%d by timeout), %d survived (%d not covered), %d accepted, "+
		"%d not compiled; %d pseudo-tested functions; %s (%s before the first mutant ran)\n",
		p.dir, len(p.mutants), n[killed]+n[timedOut], n[timedOut], n[survived]+n[notCovered]-nAccepted,
		n[notCovered], nAccepted, n[notCompiled], len(pseudo), p.took.Round(time.Second), p.setup.Round(time.Second))
	for _, f := range []struct {
		name string
		ext  bool
	}{{"extended", true}, {"gremlins", false}} {
		var t tally
		for i, m := range p.mutants {
			if isToken(m) == f.ext {
				continue
			}
			t.add(p.outcomes[i], listed[i])
		}
		fmt.Fprintf(out, "%s: %s operators: %s\n", p.dir, f.name, t)
	}
	if minutes := p.ran.Minutes(); p.ran >= time.Second {
		fmt.Fprintf(out, "%s: %.0f mutants a minute (%d in %s, after %s of setup)\n", p.dir,
			float64(len(p.mutants))/minutes, len(p.mutants), p.ran.Round(time.Second), p.setup.Round(time.Second))
	}
	return unlisted
}

// tally counts one operator family's outcomes.
type tally struct {
	mutants, killed, timedOut, survived, accepted, notCompiled int
}

func (t *tally) add(o outcome, accepted bool) {
	t.mutants++
	switch o {
	case killed:
		t.killed++
	case timedOut:
		t.killed++
		t.timedOut++
	case survived, notCovered:
		if accepted {
			t.accepted++
		} else {
			t.survived++
		}
	case notCompiled:
		t.notCompiled++
	}
}

func (t tally) String() string {
	return fmt.Sprintf("%d mutants, %d killed (%d by timeout), %d survived, %d accepted, %d not compiled",
		t.mutants, t.killed, t.timedOut, t.survived, t.accepted, t.notCompiled)
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
// function that removes those that appeared since: a mutant of a file path (a lock file's name
// made empty) can make a test write into the source tree. It spares Go files and directories
// that hold one at any depth, since someone may be writing a test or a new package meanwhile.
func tidy(dir string) func() {
	before := map[string]bool{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		before[e.Name()] = true
	}
	return func() {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			if !before[e.Name()] && !holdsGo(path) {
				fmt.Fprintf(os.Stderr, "mutationextended: removing %s, which a mutant's test left\n", path)
				os.RemoveAll(path)
			}
		}
	}
}

// holdsGo reports whether path is a Go file or a directory with one at any depth.
func holdsGo(path string) bool {
	found := false
	filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}
