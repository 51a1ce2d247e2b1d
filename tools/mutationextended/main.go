// Command mutationextended is a mutation pass with the operators gremlins lacks
// (internal/mutant.Extended): it removes statements, replaces if conditions by true and by
// false, empties else and case bodies, replaces function bodies by a return of zero values
// (extreme mutation), flips boolean literals and empties string literals.
//
// Each package is built once: a mutant that does not type-check (go/types) is not compiled;
// every other one waits behind a switch in one test binary (mutant schemata, schema.go), read
// at run time from the environment, and the few no switch can hold are built alone. Each test
// of the package runs once, alone, under coverage; then each mutant runs only the tests that
// cover its position, fastest first, with a timeout of ten times their measured time (route.go).
// A mutant no test runs survives without a run. A mutant that times out is killed: the tests
// did not pass. A function whose every body mutant ran and survived is pseudo-tested: its
// callers' tests would not notice it doing nothing.
//
// The pass fails on any survivor that the list of accepted survivors (tools/accepted.txt,
// internal/mutant.Accepted) does not accept for the pass "extended", and on any such entry
// about its packages that names no survivor. The list's "skip" entries leave files or packages
// out, each with its reason.
//
// Packages are directories, or ./..., every package of the module but commands (package main)
// and those the list skips: a package added later is mutated unless the list says why not.
//
// Usage, from the product module's root:
//
//	"$(go -C tools tool -n mutationextended)" [-workers 2] [-short] [-accepted FILE] ./... | PKGDIR ...
//	"$(go -C tools tool -n mutationextended)" -list PKGDIR [PKGDIR ...]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"pixretry/tools/internal/mutant"
)

// only, when set, keeps the mutants whose id contains it, and onlyIDs, when set, those whose id
// it lists: for trying new tests against the survivors they aim at. The equivalence file is
// then not judged for staleness.
var (
	only    string
	onlyIDs map[string]bool
)

// verbose prints every mutant's outcome, and whether a switch held it or it was built alone.
var verbose bool

// errSurvivors is returned when a mutant survived that the list does not accept.
var errSurvivors = errors.New("mutationextended: mutants survived")

func main() {
	var opts options
	flag.IntVar(&opts.workers, "workers", 2, "mutants tested at once")
	flag.BoolVar(&opts.short, "short", false, "run the tests with -test.short")
	acceptedFile := flag.String("accepted", "tools/accepted.txt", "the `file` of accepted survivors: IDs grouped under their \"PASS: reason\" lines")
	match := flag.String("match", "", "test only the mutants whose id contains this text (no judgement of the others)")
	ids := flag.String("ids", "", "test only the mutants whose ids this file lists, one per line (no judgement of the others)")
	flag.BoolVar(&verbose, "v", false, "print every mutant's outcome")
	flag.IntVar(&opts.compare, "compare", 0, "build `N` mutants of each package alone, as once, and print where the verdicts differ")
	flag.StringVar(&opts.properties, "properties", "", "run each mutant against the tests of `DIR` (the trace suite, but its *planted_test.go files) and the "+
		"property_*_test.go files of the packages alone, and judge it for the pass \"properties\"")
	list := flag.Bool("list", false, "print each mutant's id and what replaces its span, and test none")
	flag.Parse()
	if *list {
		if err := listMutants(flag.Args(), os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	only = *match
	if *ids != "" {
		data, err := os.ReadFile(*ids)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		onlyIDs = map[string]bool{}
		for _, id := range strings.Split(string(data), "\n") {
			if id = strings.TrimSpace(id); id != "" {
				onlyIDs[id] = true
			}
		}
	}
	if err := run(context.Background(), opts, *acceptedFile, flag.Args(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, opts options, acceptedFile string, args []string, out io.Writer) error {
	if len(args) == 0 {
		return errors.New("mutationextended: usage: mutationextended [-workers N] [-short] [-accepted FILE] ./... | PKGDIR [PKGDIR]")
	}
	accepted, err := mutant.ReadAccepted(acceptedFile)
	if err != nil {
		return err
	}
	dirs, module, err := packages(args, accepted)
	if err != nil {
		return err
	}
	if opts.properties != "" {
		return runProperties(ctx, opts, accepted, dirs, out)
	}
	groups, err := testedBy(dirs)
	if err != nil {
		return err
	}
	var passes []*pass
	for _, g := range groups {
		ps, err := runPasses(ctx, g.dirs, []suite{{dir: g.tests}}, opts, accepted, newProgress())
		if err != nil {
			return err
		}
		for _, p := range ps {
			if err := p.compare(ctx, opts.compare, opts, out); err != nil {
				return err
			}
		}
		passes = append(passes, ps...)
	}
	return judge(passes, accepted, mutant.PassExtended, dirs, module, out)
}

// group is packages whose mutants run against the tests of one package.
type group struct {
	tests string   // the package whose tests run
	dirs  []string // tests first, then the packages without tests of their own below it
}

// testedBy groups dirs by the tests that run their mutants: a package's own, or, for a package
// without test files, those of the nearest package above it in dirs that has some, as a
// database engine's driver (durable/durablesqlite) is tested by the payer that uses it
// (durable). It fails for a package without tests and none above it.
func testedBy(dirs []string) ([]*group, error) {
	byTests := map[string]*group{}
	var groups []*group
	for _, dir := range dirs {
		tests, err := testsOf(dir, dirs)
		if err != nil {
			return nil, err
		}
		g := byTests[tests]
		if g == nil {
			g = &group{tests: tests, dirs: []string{tests}}
			byTests[tests] = g
			groups = append(groups, g)
		}
		if dir != tests {
			g.dirs = append(g.dirs, dir)
		}
	}
	return groups, nil
}

// testsOf is dir if it has test files, else the nearest package above it in dirs that has.
func testsOf(dir string, dirs []string) (string, error) {
	for d := dir; d != "." && d != "/"; d = filepath.Dir(d) {
		if d != dir && !slices.Contains(dirs, d) {
			continue
		}
		tests, err := filepath.Glob(filepath.Join(d, "*_test.go"))
		if err != nil {
			return "", err
		}
		if len(tests) > 0 {
			return d, nil
		}
	}
	return "", fmt.Errorf("mutationextended: %s has no tests, and no package above it in the pass has", dir)
}

// packages expands ./... into the module's packages but commands and those the list skips,
// and returns the other arguments as they are; module is every package of the module when ./...
// was given, nil otherwise.
func packages(args []string, accepted *mutant.Accepted) (dirs []string, module map[string]bool, err error) {
	for _, arg := range args {
		if arg != "./..." {
			dirs = append(dirs, filepath.ToSlash(filepath.Clean(arg)))
			continue
		}
		out, err := listWorkspace()
		if err != nil {
			return nil, nil, err
		}
		wd, err := os.Getwd()
		if err != nil {
			return nil, nil, err
		}
		module = map[string]bool{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			name, dir, _ := strings.Cut(line, " ")
			rel, err := filepath.Rel(wd, dir)
			if err != nil {
				return nil, nil, err
			}
			rel = filepath.ToSlash(rel)
			module[rel] = true
			if name != "main" && !accepted.Accepts(mutant.Skip, rel) {
				dirs = append(dirs, rel)
			}
		}
	}
	return dirs, module, nil
}

// acceptedBy returns the passes whose entries accept a survivor of the pass named word: the
// properties pass also accepts what survives every test (an extended entry).
func acceptedBy(word string) []string {
	if word == mutant.PassProperties {
		return []string{mutant.PassProperties, mutant.PassExtended}
	}
	return []string{word}
}

// judge prints each pass and fails on a survivor the list does not accept, or on an entry
// about one of the passes' packages that names no survivor (or a skipped file that is gone), or,
// when module lists the module's packages, a skipped package that is not one.
func judge(passes []*pass, accepted *mutant.Accepted, word string, dirs []string, module map[string]bool, out io.Writer) error {
	unlisted := 0
	for _, p := range passes {
		unlisted += p.report(out, accepted, acceptedBy(word))
	}
	var stale []string
	if only == "" && onlyIDs == nil {
		stale = append(accepted.Stale(word, dirs), accepted.Stale(mutant.Skip, dirs)...)
		for _, id := range accepted.IDs(mutant.Skip) {
			if module != nil && !strings.HasSuffix(id, ".go") && !module[id] {
				stale = append(stale, id)
			}
		}
	}
	for _, id := range stale {
		fmt.Fprintf(out, "STALE %s: accepted, but no such mutant survived (or no such file)\n", id)
	}
	if unlisted > 0 || len(stale) > 0 {
		return fmt.Errorf("%w: %d not accepted, %d stale entries", errSurvivors, unlisted, len(stale))
	}
	return nil
}

// listMutants prints the mutants of each package, one per line, and their count.
func listMutants(dirs []string, out io.Writer) error {
	for _, dir := range dirs {
		p := &pass{dir: filepath.Clean(dir)}
		if _, err := p.load(&mutant.Accepted{}); err != nil {
			return err
		}
		for _, m := range p.mutants {
			fmt.Fprintf(out, "%s (line %d) => %q\n", m.ID, m.Pos.Line, m.With)
		}
		fmt.Fprintf(out, "%s: %d mutants\n", p.dir, len(p.mutants))
	}
	return nil
}

// listWorkspace lists the name and directory of every package of the workspace's modules but
// pixretry/tools, this tool's own: "./..." stops at a nested module's go.mod.
func listWorkspace() ([]byte, error) {
	mods, err := exec.Command("go", "list", "-m", "-f", "{{.Path}} {{.Dir}}").Output()
	if err != nil {
		return nil, fmt.Errorf("mutationextended: go list -m: %w", err)
	}
	args := []string{"list", "-f", "{{.Name}} {{.Dir}}"}
	for _, line := range strings.Split(strings.TrimSpace(string(mods)), "\n") {
		if path, dir, _ := strings.Cut(line, " "); path != "pixretry/tools" {
			args = append(args, dir+"/...")
		}
	}
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		return nil, fmt.Errorf("mutationextended: go list: %w", err)
	}
	return out, nil
}
