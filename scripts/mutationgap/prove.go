package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"pixretry/scripts/mutationgate/overlay"
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
// (overlay.Mutate) and runs the tests of properties/ against it (overlay.Runner.TestFile), as
// make mutation's gate does with a package's own tests. A mutant of a package that the
// properties' test binary does not build on stays NOT COVERED without a run: no property can
// reach it.
type prover struct {
	root   string          // the module's root
	runner *overlay.Runner // the tests of properties/, timed by Measure
	deps   map[string]bool // the directories, from root, of the packages those tests build on
}

// newProver times the tests of properties/ under root and lists the packages they build on.
func newProver(ctx context.Context, root string) (*prover, error) {
	r := &overlay.Runner{Dir: filepath.Join(root, "properties")}
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
	return &prover{root: root, runner: r, deps: deps}, nil
}

// settle replaces the status of every NOT COVERED mutant of ms by the properties' verdict on
// it: provenKilled, provenLived, provenTimedOut, or NOT VIABLE when it does not build. Two
// mutants run at a time.
func (p *prover) settle(ctx context.Context, ms []mutant) error {
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		slots    = make(chan struct{}, 2)
	)
	for i := range ms {
		if ms[i].status != "NOT COVERED" || !p.deps[path.Dir(ms[i].file)] {
			continue
		}
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			status, err := p.prove(ctx, ms[i])
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

// prove applies m and runs the properties' tests against it.
func (p *prover) prove(ctx context.Context, m mutant) (string, error) {
	file := filepath.Join(p.root, filepath.FromSlash(m.file))
	src, err := os.ReadFile(file)
	if err != nil {
		return m.status, fmt.Errorf("mutationgap: %w", err)
	}
	mutated, err := overlay.Mutate(src, m.file, m.line, m.column, m.typ)
	if err != nil {
		return m.status, fmt.Errorf("mutationgap: %s: %w", m.key, err)
	}
	v, _, err := p.runner.TestFile(ctx, file, mutated)
	switch {
	case err != nil:
		return m.status, fmt.Errorf("mutationgap: %s: %w", m.key, err)
	case v == overlay.Killed:
		return provenKilled, nil
	case v == overlay.NotCompiled:
		return "NOT VIABLE", nil
	case v == overlay.TimedOut:
		return provenTimedOut, nil
	default:
		return provenLived, nil
	}
}
