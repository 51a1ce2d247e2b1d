package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"pixretry/tools/internal/mutant"
)

// The statuses of a mutant gremlins left NOT COVERED, once applied through `go test -overlay`
// and run against the properties' tests: they failed, passed, or ran past the timeout.
const (
	provenKilled   = "KILLED (proven)"
	provenLived    = "LIVED (proven)"
	provenTimedOut = "TIMED OUT (proven)"
)

// A prover settles the mutants gremlins reports NOT COVERED under the properties. Go counts no
// coverage block for a switch case's condition, so gremlins never runs a mutant there, even one
// the properties run; NOT COVERED says nothing about them. The prover applies each such mutant
// (mutant.Mutate) and runs against it the tests of properties/, then, unless they killed it,
// the property tests that live beside the mutated package (its property_*_test.go files), as
// make mutation's gate does with a package's own tests (mutant.Runner.TestFile). A mutant no
// property can build on stays NOT COVERED without a run.
type prover struct {
	root   string          // the module's root
	runner *mutant.Runner  // the tests of properties/, timed by Measure
	deps   map[string]bool // the directories, from root, of the packages those tests build on

	mu    sync.Mutex
	local map[string]*mutant.Runner // by package directory: its own property tests; nil if none
}

// newProver times the tests of properties/ under root and lists the packages they build on.
func newProver(ctx context.Context, root string) (*prover, error) {
	r := &mutant.Runner{Dir: filepath.Join(root, "properties")}
	if _, err := r.Measure(ctx); err != nil {
		return nil, fmt.Errorf("mutationgap: %w", err)
	}
	list := exec.CommandContext(ctx, "go", "list", "-deps", "-test", "-f", "{{.Dir}}", ".")
	list.Dir = r.Dir
	out, err := list.Output()
	if err != nil {
		return nil, fmt.Errorf("mutationgap: go list -deps -test ./properties/: %w", err)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	deps := map[string]bool{}
	for dir := range strings.Lines(string(out)) {
		if rel, err := filepath.Rel(abs, strings.TrimSpace(dir)); err == nil && !strings.HasPrefix(rel, "..") {
			deps[filepath.ToSlash(rel)] = true
		}
	}
	return &prover{root: root, runner: r, deps: deps, local: map[string]*mutant.Runner{}}, nil
}

// testFunc matches the declaration of a top-level test function.
var testFunc = regexp.MustCompile(`(?m)^func (Test\w+)\(\w+ \*testing\.T\)`)

// localRunner returns the runner of the property tests beside the package in dir (from root),
// timed by Measure, or nil when the package has none. It is made once per directory.
func (p *prover) localRunner(ctx context.Context, dir string) (*mutant.Runner, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r, ok := p.local[dir]; ok {
		return r, nil
	}
	names, err := propertyTests(filepath.Join(p.root, filepath.FromSlash(dir)))
	if err != nil {
		return nil, err
	}
	var r *mutant.Runner
	if len(names) > 0 {
		r = &mutant.Runner{Dir: filepath.Join(p.root, filepath.FromSlash(dir)), Run: "^(" + strings.Join(names, "|") + ")$"}
		if _, err := r.Measure(ctx); err != nil {
			return nil, fmt.Errorf("mutationgap: %w", err)
		}
	}
	p.local[dir] = r
	return r, nil
}

// propertyTests names the tests declared in dir's property_*_test.go files.
func propertyTests(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "property_*_test.go"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("mutationgap: %w", err)
		}
		for _, m := range testFunc.FindAllSubmatch(src, -1) {
			if name := string(m[1]); name != "TestMain" {
				names = append(names, name)
			}
		}
	}
	return names, nil
}

// settle replaces the status of every NOT COVERED mutant of ms by the properties' verdict on
// it: provenKilled, provenLived, provenTimedOut, or NOT VIABLE when it does not build. Two
// mutants run at a time.
func (p *prover) settle(ctx context.Context, ms []reported) error {
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		slots    = make(chan struct{}, 2)
	)
	for i := range ms {
		if ms[i].status != "NOT COVERED" {
			continue
		}
		local, err := p.localRunner(ctx, path.Dir(ms[i].file))
		if err != nil {
			return err
		}
		if !p.deps[path.Dir(ms[i].file)] && local == nil {
			continue
		}
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			status, err := p.prove(ctx, ms[i], local)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && firstErr == nil {
				firstErr = err
			}
			ms[i].status = status
		})
	}
	wg.Wait()
	return firstErr
}

// prove applies m and runs the properties' tests against it, then, unless they killed it, local:
// the property tests beside its package, if it has any.
func (p *prover) prove(ctx context.Context, m reported, local *mutant.Runner) (string, error) {
	file := filepath.Join(p.root, filepath.FromSlash(m.file))
	src, err := os.ReadFile(file)
	if err != nil {
		return m.status, fmt.Errorf("mutationgap: %w", err)
	}
	mutated, err := mutant.Mutate(src, m.file, m.line, m.column, m.typ)
	if err != nil {
		return m.status, fmt.Errorf("mutationgap: %s: %w", m.id, err)
	}
	v := mutant.Survived
	if p.deps[path.Dir(m.file)] {
		if v, _, err = p.runner.TestFile(ctx, file, mutated); err != nil {
			return m.status, fmt.Errorf("mutationgap: %s: %w", m.id, err)
		}
	}
	if local != nil && (v == mutant.Survived || v == mutant.TimedOut) {
		lv, _, err := local.TestFile(ctx, file, mutated)
		if err != nil {
			return m.status, fmt.Errorf("mutationgap: %s: %w", m.id, err)
		}
		if lv != mutant.Survived {
			v = lv
		}
	}
	switch {
	case v == mutant.Killed:
		return provenKilled, nil
	case v == mutant.NotCompiled:
		return "NOT VIABLE", nil
	case v == mutant.TimedOut:
		return provenTimedOut, nil
	default:
		return provenLived, nil
	}
}
