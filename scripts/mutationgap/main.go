// Command mutationgap prints how many of a package's mutants the property suite kills on its
// own, and lists those that the full suite kills and the property suite does not.
//
// For each package PKG it reads .mutation/properties-PKG.json (gremlins' report of the
// package's mutants run against properties/ only, written by scripts/mutation-properties.sh)
// and, if present, .mutation/PKG.json (the full suite's report, written by
// scripts/mutation.sh). A mutant the full suite kills and the properties do not is a gap. Each
// mutant is named by a key that stays put when lines move (key.go), read from the package's
// source, which must be the code the reports were made of.
//
// With -explained FILE, every gap must be named in FILE by its key, whole, in a code span,
// beside the reason no property can see it. One reason may cover several gaps when it names
// each. A span that names a mutant of PKG (it opens with "PKG/" and holds ".go:") but no gap is
// stale. An unexplained gap or a stale span exits 1.
//
// Usage:
//
//	go run ./scripts/mutationgap [-explained properties/survivors.md] PKG [PKG ...]
package main

import (
	"cmp"
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
	flag.Parse()
	if err := run(".mutation", ".", *explained, flag.Args(), os.Stdout); err != nil {
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

// mutant is one mutant of a report, with its key and status.
type mutant struct {
	key, status string
}

// mutants returns r's mutants of pkg, keyed from the source under root, in the order of the
// source.
func (r report) mutants(src *sources, pkg string) ([]mutant, error) {
	type at struct {
		file         string
		line, column int
		m            mutant
	}
	var all []at
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
			all = append(all, at{name, m.Line, m.Column, mutant{k, m.Status}})
		}
	}
	slices.SortFunc(all, func(a, b at) int {
		return cmp.Or(cmp.Compare(a.file, b.file), cmp.Compare(a.line, b.line), cmp.Compare(a.column, b.column))
	})
	out := make([]mutant, len(all))
	for i, a := range all {
		out[i] = a.m
	}
	return out, nil
}

// run compares the reports in dir of each package of pkgs, whose source is under root.
func run(dir, root, explainedPath string, pkgs []string, out io.Writer) error {
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
		u, s, err := compare(dir, src, pkg, explainedPath != "", explained, out)
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
func compare(dir string, src *sources, pkg string, check bool, explained string, out io.Writer) (unexplained, stale int,
	err error) {
	props, err := read(filepath.Join(dir, "properties-"+pkg+".json"))
	if err != nil {
		return 0, 0, err
	}
	byProps, err := props.mutants(src, pkg)
	if err != nil {
		return 0, 0, err
	}
	counts, statusOf := map[string]int{}, map[string]string{}
	for _, m := range byProps {
		counts[m.status]++
		statusOf[m.key] = m.status
	}
	fmt.Fprintf(out, "%s: the properties alone kill %d of %d mutants (%d lived, %d timed out, %d not covered, %d not viable)\n",
		pkg, counts["KILLED"], len(byProps), counts["LIVED"], counts["TIMED OUT"], counts["NOT COVERED"], counts["NOT VIABLE"])
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
		if m.status != "KILLED" {
			continue
		}
		killedByFull++
		if statusOf[m.key] == "KILLED" {
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
