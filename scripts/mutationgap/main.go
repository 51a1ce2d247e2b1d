// Command mutationgap prints how many of a package's mutants the property suite kills on its
// own, and lists those that the full suite kills and the property suite does not.
//
// For each package PKG it reads .mutation/properties-PKG.json (gremlins' report of the
// package's mutants run against properties/ only, written by scripts/mutation-properties.sh)
// and, if present, .mutation/PKG.json (the full suite's report, written by
// scripts/mutation.sh). A mutant the full suite kills and the properties do not is a gap. With
// -explained FILE, every gap must be named in FILE as `FILE:LINE:COLUMN TYPE` (the way this
// command prints it), with the reason no property can see it; an unexplained gap exits 1.
//
// Usage:
//
//	go run ./scripts/mutationgap [-explained docs/properties.md] PKG [PKG ...]
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// errGaps is returned when a gap is not explained.
var errGaps = errors.New("mutationgap: mutants the full suite kills live under the properties")

func main() {
	explained := flag.String("explained", "", "a file that must name every gap")
	flag.Parse()
	if err := run(".mutation", *explained, flag.Args(), os.Stdout); err != nil {
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

// statuses maps each mutant, as "FILE:LINE:COLUMN TYPE", to its status.
func (r report) statuses() map[string]string {
	out := map[string]string{}
	for _, f := range r.Files {
		for _, m := range f.Mutations {
			out[fmt.Sprintf("%s:%d:%d %s", f.Name, m.Line, m.Column, m.Type)] = m.Status
		}
	}
	return out
}

func run(dir, explainedPath string, pkgs []string, out io.Writer) error {
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
	unexplained := 0
	for _, pkg := range pkgs {
		n, err := compare(dir, pkg, explained, out)
		if err != nil {
			return err
		}
		unexplained += n
	}
	if unexplained > 0 {
		return fmt.Errorf("%w: %d not explained in %s", errGaps, unexplained, explainedPath)
	}
	return nil
}

// compare prints pkg's tally and gaps and returns how many gaps explained does not name.
func compare(dir, pkg, explained string, out io.Writer) (int, error) {
	props, err := read(filepath.Join(dir, "properties-"+pkg+".json"))
	if err != nil {
		return 0, err
	}
	byProps := props.statuses()
	counts := map[string]int{}
	for _, s := range byProps {
		counts[s]++
	}
	fmt.Fprintf(out, "%s: the properties alone kill %d of %d mutants (%d lived, %d timed out, %d not covered, %d not viable)\n",
		pkg, counts["KILLED"], len(byProps), counts["LIVED"], counts["TIMED OUT"], counts["NOT COVERED"], counts["NOT VIABLE"])
	full, err := read(filepath.Join(dir, pkg+".json"))
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(out, "%s: no full-suite report (make mutation) to compare with\n", pkg)
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	killedByFull, gaps, unexplained := 0, 0, 0
	byFull := full.statuses()
	for _, m := range slices.Sorted(maps.Keys(byFull)) {
		if byFull[m] != "KILLED" {
			continue
		}
		killedByFull++
		if byProps[m] == "KILLED" {
			continue
		}
		gaps++
		note := ""
		if explained != "" && !strings.Contains(explained, m) {
			unexplained++
			note = "  (not explained)"
		}
		fmt.Fprintf(out, "  %s %s%s\n", m, byProps[m], note)
	}
	fmt.Fprintf(out, "%s: the full suite kills %d; the properties alone kill %d of those (%d gaps)\n",
		pkg, killedByFull, killedByFull-gaps, gaps)
	return unexplained, nil
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
