// Command mutationextended is a mutation pass with the operators gremlins lacks: it removes
// statements, replaces if conditions by true and by false, empties else and case bodies,
// replaces function bodies by a return of zero values (extreme mutation), flips boolean
// literals and empties string literals.
//
// For each package directory it reads the non-test files the go command would build, makes
// every mutant of them, and runs the package's tests once unmutated, with coverage, to time
// them. A mutant whose every position lies in blocks the tests never ran survives without a
// run. Each other mutant replaces its file through `go test -overlay` (no tree is copied, no
// file is written) and runs the package's tests with a timeout of ten times their measured
// time. A mutant that does not build is counted as not compiled. A mutant that times out is
// killed: the tests did not pass. A function whose every body mutant ran and survived is
// pseudo-tested: its callers' tests would not notice it doing nothing.
//
// The pass fails on any survivor that the equivalence file does not list with a reason, and
// on any entry there that no longer names a survivor.
//
// Usage, from the product module's root:
//
//	"$(go -C tools tool -n mutationextended)" [-workers 2] [-equivalent FILE] PKGDIR [PKGDIR ...]
//	"$(go -C tools tool -n mutationextended)" -list PKGDIR [PKGDIR ...]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// only, when set, keeps the mutants whose id contains it, and onlyIDs, when set, those whose id
// it lists: for trying new tests against the survivors they aim at. The equivalence file is
// then not judged for staleness.
var (
	only    string
	onlyIDs map[string]bool
)

// errSurvivors is returned when a mutant survived that is not listed as equivalent.
var errSurvivors = errors.New("mutationextended: mutants survived")

func main() {
	workers := flag.Int("workers", 2, "mutants tested at once")
	equivalent := flag.String("equivalent", "tools/mutationextended/equivalent.txt",
		"the file of equivalent mutants: `ID => reason` per line")
	match := flag.String("match", "", "test only the mutants whose id contains this text (no judgement of the others)")
	ids := flag.String("ids", "", "test only the mutants whose ids this file lists, one per line (no judgement of the others)")
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
	if err := run(context.Background(), *workers, *equivalent, flag.Args(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, workers int, equivalentFile string, dirs []string, out io.Writer) error {
	if len(dirs) == 0 {
		return errors.New("mutationextended: usage: mutationextended [-workers N] [-equivalent FILE] PKGDIR [PKGDIR ...]")
	}
	eq, err := readEquivalents(equivalentFile)
	if err != nil {
		return err
	}
	var passes []*pass
	for _, dir := range dirs {
		p, err := runPackage(ctx, dir, workers)
		if err != nil {
			return err
		}
		passes = append(passes, p)
	}
	return judge(passes, eq, out)
}

// judge prints each pass and fails on a survivor not listed as equivalent, or on an entry
// about one of the passes' packages that names no survivor.
func judge(passes []*pass, eq equivalents, out io.Writer) error {
	used := map[string]bool{}
	unlisted := 0
	for _, p := range passes {
		unlisted += p.report(out, eq, used)
	}
	var stale []string
	for id := range eq {
		ours := slices.ContainsFunc(passes, func(p *pass) bool { return strings.HasPrefix(id, p.dir+"/") })
		if ours && !used[id] && only == "" && onlyIDs == nil {
			stale = append(stale, id)
		}
	}
	sort.Strings(stale)
	for _, id := range stale {
		fmt.Fprintf(out, "STALE %s: listed as equivalent, but no such mutant survived\n", id)
	}
	if unlisted > 0 || len(stale) > 0 {
		return fmt.Errorf("%w: %d not listed as equivalent, %d stale equivalence entries", errSurvivors, unlisted, len(stale))
	}
	return nil
}

// listMutants prints the mutants of each package, one per line, and their count.
func listMutants(dirs []string, out io.Writer) error {
	for _, dir := range dirs {
		p := &pass{dir: filepath.Clean(dir)}
		if _, err := p.collect(); err != nil {
			return err
		}
		for _, m := range p.mutants {
			fmt.Fprintf(out, "%s (line %d) => %q\n", m.ID, m.Pos.Line, m.With)
		}
		fmt.Fprintf(out, "%s: %d mutants\n", p.dir, len(p.mutants))
	}
	return nil
}
