package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"

	"pixretry/tools/internal/mutant"
)

// runProperties runs the mutants of the packages in dirs against the property tests alone:
// every test of the trace suite (the package in opts.properties), and the tests each package
// declares in its property_*_test.go files. One test binary per suite holds the schemata of
// every package, so the switches share one space. It judges the survivors for the pass
// "properties": a mutant that survives every test is accepted by its "extended" entry.
func runProperties(ctx context.Context, opts options, accepted *mutant.Accepted, dirs []string, out io.Writer) error {
	checkers, err := declaredTests(opts.properties, "*planted_test.go")
	if err != nil {
		return err
	}
	suites := []suite{{dir: filepath.Clean(opts.properties), only: func(name string) bool { return !checkers[name] }}}
	for _, dir := range dirs {
		names, err := propertyTests(dir)
		if err != nil {
			return err
		}
		if len(names) > 0 {
			suites = append(suites, suite{dir: dir, only: func(name string) bool { return names[name] }})
		}
	}
	passes, err := runPasses(ctx, dirs, suites, opts, accepted, newProgress())
	if err != nil {
		return err
	}
	return judge(passes, accepted, mutant.PassProperties, dirs, nil, out)
}

// testFunc matches the declaration of a top-level test.
var testFunc = regexp.MustCompile(`(?m)^func (Test[A-Za-z0-9_]*)\(`)

// propertyTests returns the names of the tests that the property_*_test.go files of dir
// declare, but TestMain.
func propertyTests(dir string) (map[string]bool, error) {
	return declaredTests(dir, "property_*_test.go")
}

// declaredTests returns the names of the tests that the files of dir matching pattern declare,
// but TestMain. The trace suite's *planted_test.go files declare the tests of its invariants
// themselves: each plants a violation in a fixed baseline trace and asks that its invariant
// report it. They prove the checks can fail, not that the code keeps them, so the pass leaves
// them out of the suite; the baselines' own checks (that the unplanted traces keep every
// invariant) live in other files and stay in.
func declaredTests(dir, pattern string) (map[string]bool, error) {
	files, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("mutationextended: %w", err)
		}
		for _, m := range testFunc.FindAllSubmatch(src, -1) {
			if name := string(m[1]); name != "TestMain" {
				names[name] = true
			}
		}
	}
	return names, nil
}
