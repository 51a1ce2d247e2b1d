// Command mutationgap prints how many of a package's mutants the property suite kills on its
// own, and lists those that the full suite kills and the property suite does not.
//
// For each package PKG it reads .mutation/properties-PKG.json (gremlins' report of the
// package's mutants run against the property tests only, written by scripts/mutation-properties.sh)
// and, if present, .mutation/PKG.json (the full suite's report, written by
// scripts/mutation.sh). A mutant the full suite kills and the properties do not is a gap. Each
// mutant is named by a key that stays put when lines move (key.go), read from the package's
// source, which must be the code the reports were made of.
//
// gremlins reports a mutant NOT COVERED when Go counts no coverage block for it, as for every
// switch case's condition, even one the tests run. With -prove, each mutant the properties'
// report leaves NOT COVERED is applied through `go test -overlay` and run against the tests of
// properties/ (prove.go), and a mutant the full report leaves NOT COVERED counts as killed by the
// full suite when it builds: make mutation's gate fails unless it proves every such mutant killed
// or not buildable.
//
// With -explained FILE, every gap must be named in FILE by its key, whole, in a code span,
// beside the reason no property can see it. One reason may cover several gaps when it names
// each. A span that names a mutant of PKG (it opens with "PKG/" and holds ".go:") but no gap is
// stale. An unexplained gap or a stale span exits 1.
//
// Usage, from the product module's root:
//
//	"$(go -C tools tool -n mutationgap)" [-prove] [-explained properties/survivors.md] PKG [PKG ...]
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
	"path/filepath"
	"slices"
)

// errGaps is returned when a gap is not explained, or an explanation names no gap.
var errGaps = errors.New("mutationgap: mutants the full suite kills live under the properties")

func main() {
	explained := flag.String("explained", "", "a file that must name every gap")
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
	if err := run(".mutation", ".", *explained, p, flag.Args(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// report is the part of gremlins' JSON report read here.
type report struct {
	Files []struct {
		Name      string `json:"file_name"`
		Mutations []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
			Line   int    `json:"line"`
			Column int    `json:"column"`
		} `json:"mutations"`
	} `json:"files"`
}

// mutant is one mutant of a report: its key, its status, and where it is (file as in the key,
// PKG/FILE).
type mutant struct {
	key, status  string
	file         string
	line, column int
	typ          string
}

// mutants returns r's mutants of pkg, keyed from the source under root, in the order of the
// source.
func (r report) mutants(src *sources, pkg string) ([]mutant, error) {
	var all []mutant
	seen := map[string]bool{}
	for _, f := range r.Files {
		name := pkg + "/" + filepath.ToSlash(f.Name)
		for _, m := range f.Mutations {
			k, err := src.key(name, m.Line, m.Column, m.Type)
			if err != nil {
				return nil, err
			}
			if seen[k] {
				return nil, fmt.Errorf("mutationgap: two mutants of the report share the key %q", k)
			}
			seen[k] = true
			all = append(all, mutant{k, m.Status, name, m.Line, m.Column, m.Type})
		}
	}
	slices.SortFunc(all, func(a, b mutant) int {
		return cmp.Or(cmp.Compare(a.file, b.file), cmp.Compare(a.line, b.line), cmp.Compare(a.column, b.column))
	})
	return all, nil
}

// run compares the reports in dir of each package of pkgs, whose source is under root. With a
// prover, the NOT COVERED mutants are run against the properties first.
func run(dir, root, explainedPath string, p *prover, pkgs []string, out io.Writer) error {
	if len(pkgs) == 0 {
		return errors.New("mutationgap: usage: mutationgap [-explained FILE] PKG [PKG ...]")
	}
	explained := ""
	if explainedPath != "" {
		data, err := os.ReadFile(explainedPath)
		if err != nil {
			return fmt.Errorf("mutationgap: %w", err)
		}
		explained = string(data)
	}
	src := &sources{root: root}
	unexplained, stale := 0, 0
	for _, pkg := range pkgs {
		u, s, err := compare(dir, src, pkg, p, explainedPath != "", explained, out)
		if err != nil {
			return err
		}
		unexplained, stale = unexplained+u, stale+s
	}
	if unexplained+stale > 0 {
		return fmt.Errorf("%w: %d not explained in %s, %d explanations name no gap", errGaps, unexplained, explainedPath,
			stale)
	}
	return nil
}

// compare prints pkg's tally and gaps. When check is set, it returns how many gaps explained
// does not name, and how many of its explanations of pkg name no gap.
func compare(dir string, src *sources, pkg string, p *prover, check bool, explained string, out io.Writer) (
	unexplained, stale int, err error) {
	props, err := read(filepath.Join(dir, "properties-"+pkg+".json"))
	if err != nil {
		return 0, 0, err
	}
	byProps, err := props.mutants(src, pkg)
	if err != nil {
		return 0, 0, err
	}
	if p != nil {
		if err := p.settle(context.Background(), byProps); err != nil {
			return 0, 0, err
		}
	}
	counts, statusOf := map[string]int{}, map[string]string{}
	for _, m := range byProps {
		counts[m.status]++
		statusOf[m.key] = m.status
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
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, err
	}
	byFull, err := full.mutants(src, pkg)
	if err != nil {
		return 0, 0, err
	}
	named := explanations(explained, pkg)
	killedByFull, gaps := 0, 0
	for _, m := range byFull {
		// gremlins reports KILLED a mutant that does not build; a proof says NOT VIABLE.
		if statusOf[m.key] == "NOT VIABLE" || !fullKills(m, statusOf[m.key], p != nil) {
			continue
		}
		killedByFull++
		if killed(statusOf[m.key]) {
			continue
		}
		gaps++
		note := ""
		if check && !named[m.key] {
			unexplained++
			note = "  (not explained)"
		}
		delete(named, m.key)
		fmt.Fprintf(out, "  %s %s%s\n", m.key, statusOf[m.key], note)
	}
	if check {
		for _, k := range slices.Sorted(maps.Keys(named)) {
			stale++
			fmt.Fprintf(out, "  %s  (explained, but no gap: stale)\n", k)
		}
	}
	fmt.Fprintf(out, "%s: the full suite kills %d; the properties alone kill %d of those (%d gaps)\n",
		pkg, killedByFull, killedByFull-gaps, gaps)
	return unexplained, stale, nil
}

// fullKills reports whether the full suite kills m, whose status under the properties is props.
// gremlins' KILLED counts. With proofs, so does a mutant the full report leaves NOT COVERED once
// the properties' run showed that it builds: make mutation's gate proves it killed, or fails.
func fullKills(m mutant, props string, proved bool) bool {
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

func read(path string) (report, error) {
	var r report
	data, err := os.ReadFile(path)
	if err != nil {
		return r, fmt.Errorf("mutationgap: %w", err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("mutationgap: %s: %w", path, err)
	}
	return r, nil
}
