// Command mutationgap prints how many of a package's mutants the property suite kills on its
// own, and lists those that the full suite kills and the property suite does not.
//
// For each package PKG it reads .mutation/properties-PKG.json (gremlins' report of the
// package's mutants run against the property tests only, written by scripts/mutation-properties.sh)
// and, if present, .mutation/PKG.json (the full suite's report, written by
// scripts/mutation.sh). A mutant the full suite kills and the properties do not is a gap. Each
// mutant is named by its ID (tools/internal/mutant: gremlins' mutants of the package's source,
// which must be the code the reports were made of), which stays put when other lines move.
//
// gremlins reports a mutant NOT COVERED when Go counts no coverage block for it, as for every
// switch case's condition, even one the tests run. With -prove, each mutant the properties'
// report leaves NOT COVERED is applied through `go test -overlay` and run against the tests of
// properties/ (prove.go), and a mutant the full report leaves NOT COVERED counts as killed by the
// full suite when it builds: make mutation's gate fails unless it proves every such mutant killed
// or not buildable.
//
// With -accepted FILE (the list of accepted survivors, tools/accepted.txt), every gap must be
// accepted there for the pass "properties", with the reason no property can see it, and every
// ID of that pass about PKG must name a gap. An unaccepted gap or a stale ID exits 1.
//
// Usage, from the product module's root:
//
//	"$(go -C tools tool -n mutationgap)" [-prove] [-accepted tools/accepted.txt] PKG [PKG ...]
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"pixretry/tools/internal/mutant"
)

// errGaps is returned when a gap is not accepted, or an accepted entry names no gap.
var errGaps = errors.New("mutationgap: mutants the full suite kills live under the properties")

func main() {
	acceptedFile := flag.String("accepted", "", "the list of accepted survivors, which must accept every gap")
	prove := flag.Bool("prove", false, "run the NOT COVERED mutants against the properties through go test -overlay")
	flag.Parse()
	var p *prover
	if *prove {
		var err error
		if p, err = newProver(context.Background(), "."); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if err := run(".mutation", ".", *acceptedFile, p, flag.Args(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// reported is one mutant of a report: its ID, its status, and where it is (file as PKG/FILE,
// or PKG/SUB/FILE for a subpackage's).
type reported struct {
	id, status   string
	file         string
	line, column int
	typ          string
}

// mutantsOf returns r's mutants of pkg, named from the source under root, in the order of the
// source.
func mutantsOf(r mutant.Report, src *ids, pkg string) ([]reported, error) {
	var all []reported
	seen := map[string]bool{}
	for _, f := range r.Files {
		name := pkg + "/" + filepath.ToSlash(f.Name)
		for _, m := range f.Mutations {
			k, err := src.id(name, m.Line, m.Column, m.Type)
			if err != nil {
				return nil, err
			}
			if seen[k] {
				return nil, fmt.Errorf("mutationgap: two mutants of the report share the ID %q", k)
			}
			seen[k] = true
			all = append(all, reported{k, m.Status, name, m.Line, m.Column, m.Type})
		}
	}
	slices.SortFunc(all, func(a, b reported) int {
		return cmp.Or(cmp.Compare(a.file, b.file), cmp.Compare(a.line, b.line), cmp.Compare(a.column, b.column))
	})
	return all, nil
}

// run compares the reports in dir of each package of pkgs, whose source is under root. With a
// prover, the NOT COVERED mutants are run against the properties first.
func run(dir, root, acceptedPath string, p *prover, pkgs []string, out io.Writer) error {
	if len(pkgs) == 0 {
		return errors.New("mutationgap: usage: mutationgap [-prove] [-accepted FILE] PKG [PKG ...]")
	}
	var accepted *mutant.Accepted
	if acceptedPath != "" {
		var err error
		if accepted, err = mutant.ReadAccepted(acceptedPath); err != nil {
			return err
		}
	}
	src := &ids{root: root, pkgs: map[string]*mutant.Package{}}
	unaccepted := 0
	for _, pkg := range pkgs {
		n, err := compare(dir, src, pkg, p, accepted, out)
		if err != nil {
			return err
		}
		unaccepted += n
	}
	stale := 0
	if accepted != nil {
		for _, id := range accepted.Stale(mutant.PassProperties, slices.Sorted(maps.Keys(src.pkgs))) {
			stale++
			fmt.Fprintf(out, "  %s  (accepted, but no gap: stale)\n", id)
		}
	}
	if unaccepted+stale > 0 {
		return fmt.Errorf("%w: %d not accepted in %s, %d entries name no gap", errGaps, unaccepted, acceptedPath, stale)
	}
	return nil
}

// compare prints pkg's tally and gaps. With a list, it returns how many gaps the list does
// not accept.
func compare(dir string, src *ids, pkg string, p *prover, accepted *mutant.Accepted, out io.Writer) (
	unaccepted int, err error) {
	props, err := read(filepath.Join(dir, "properties-"+pkg+".json"))
	if err != nil {
		return 0, err
	}
	byProps, err := mutantsOf(props, src, pkg)
	if err != nil {
		return 0, err
	}
	if p != nil {
		if err := p.settle(context.Background(), byProps); err != nil {
			return 0, err
		}
	}
	counts, statusOf := map[string]int{}, map[string]string{}
	for _, m := range byProps {
		counts[m.status]++
		statusOf[m.id] = m.status
	}
	proven := ""
	if p != nil {
		proven = fmt.Sprintf("%d of them proven through -overlay; ", counts[provenKilled])
	}
	fmt.Fprintf(out, "%s: the properties alone kill %d of %d mutants (%s%d lived, %d timed out, %d not covered, "+
		"%d not viable)\n", pkg, counts["KILLED"]+counts[provenKilled], len(byProps), proven,
		counts["LIVED"]+counts[provenLived], counts["TIMED OUT"]+counts[provenTimedOut], counts["NOT COVERED"],
		counts["NOT VIABLE"])
	full, err := read(filepath.Join(dir, pkg+".json"))
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(out, "%s: no full-suite report (make mutation) to compare with\n", pkg)
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	byFull, err := mutantsOf(full, src, pkg)
	if err != nil {
		return 0, err
	}
	killedByFull, gaps := 0, 0
	for _, m := range byFull {
		// gremlins reports KILLED a mutant that does not build; a proof says NOT VIABLE.
		if statusOf[m.id] == "NOT VIABLE" || !fullKills(m, statusOf[m.id], p != nil) {
			continue
		}
		killedByFull++
		if killed(statusOf[m.id]) {
			continue
		}
		gaps++
		note := ""
		if accepted != nil && !accepted.Accepts(mutant.PassProperties, m.id) {
			unaccepted++
			note = "  (not accepted)"
		}
		fmt.Fprintf(out, "  %s %s%s\n", m.id, statusOf[m.id], note)
	}
	fmt.Fprintf(out, "%s: the full suite kills %d; the properties alone kill %d of those (%d gaps)\n",
		pkg, killedByFull, killedByFull-gaps, gaps)
	return unaccepted, nil
}

// ids names the mutants of gremlins' reports: it makes gremlins' mutants (mutant.Tokens) of
// each package's source under root once, and finds a reported one by its position.
type ids struct {
	root string
	pkgs map[string]*mutant.Package // by directory from root
}

// id returns the ID of the mutant of type typ at line:column of name (PKG/FILE).
func (s *ids) id(name string, line, column int, typ string) (string, error) {
	dir := path.Dir(name)
	pkg, ok := s.pkgs[dir]
	if !ok {
		var err error
		if pkg, err = mutant.Load(filepath.Join(s.root, filepath.FromSlash(dir)), mutant.Tokens, nil); err != nil {
			return "", err
		}
		s.pkgs[dir] = pkg
	}
	m, ok := pkg.At(path.Base(name), line, column, typ)
	if !ok {
		return "", fmt.Errorf("mutationgap: %s:%d:%d: no %s mutant there (is the report older than the code?)",
			name, line, column, typ)
	}
	return dir + strings.TrimPrefix(m.ID, pkg.Dir), nil
}

// fullKills reports whether the full suite kills m, whose status under the properties is props.
// gremlins' KILLED counts. With proofs, so does a mutant the full report leaves NOT COVERED once
// the properties' run showed that it builds: make mutation's gate proves it killed, or fails.
func fullKills(m reported, props string, proved bool) bool {
	switch {
	case m.status == "KILLED":
		return true
	case m.status != "NOT COVERED" || !proved:
		return false
	default:
		return props == provenKilled || props == provenLived || props == provenTimedOut
	}
}

// killed reports whether a status under the properties is a kill.
func killed(status string) bool { return status == "KILLED" || status == provenKilled }

// read reads a report without judging it whole: a properties' report may hold no kill.
func read(path string) (mutant.Report, error) {
	var r mutant.Report
	data, err := os.ReadFile(path)
	if err != nil {
		return r, fmt.Errorf("mutationgap: %w", err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("mutationgap: %s: %w", path, err)
	}
	return r, nil
}
