// Command mutationgate reads gremlins' JSON reports and fails unless every mutant was killed.
//
// Gremlins v0.6.0 cannot be trusted as its own gate: its --threshold-efficacy flag is ignored,
// its config threshold fails when efficacy equals it, and TIMED OUT mutants are left out of the
// efficacy figure (so they inflate it). This gate reads the report that `gremlins unleash -o`
// writes and accepts only two statuses: KILLED, and NOT VIABLE (a mutant that does not compile
// tests nothing). Every other mutant (LIVED, TIMED OUT, NOT COVERED, SKIPPED, RUNNABLE) is
// printed as file:line:column type status, and the gate exits 1. A missing report, or one with
// no mutant at all, fails too: gremlins writes no report when it found nothing to mutate, and a
// gate that passes on an empty run proves nothing.
//
// Usage:
//
//	go run ./scripts/mutationgate REPORT.json [REPORT.json ...]
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// errSurvivors is returned when at least one mutant was not killed.
var errSurvivors = errors.New("mutationgate: mutants survived")

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// report is the part of gremlins' JSON report the gate reads.
type report struct {
	Module string `json:"go_module"`
	Total  int    `json:"mutants_total"`
	Files  []struct {
		Name      string     `json:"file_name"`
		Mutations []mutation `json:"mutations"`
	} `json:"files"`
}

type mutation struct {
	Type   string `json:"type"`
	Status string `json:"status"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

// passing lists the statuses that do not fail the gate.
var passing = map[string]bool{"KILLED": true, "NOT VIABLE": true}

func run(paths []string, out io.Writer) error {
	if len(paths) == 0 {
		return errors.New("mutationgate: usage: mutationgate REPORT.json [REPORT.json ...]")
	}
	survivors := 0
	for _, path := range paths {
		n, err := check(path, out)
		if err != nil {
			return err
		}
		survivors += n
	}
	if survivors > 0 {
		return fmt.Errorf("%w: %d not killed", errSurvivors, survivors)
	}
	return nil
}

// check prints one report's tally and every mutant that was not killed, and returns how many
// there were.
func check(path string, out io.Writer) (int, error) {
	r, err := read(path)
	if err != nil {
		return 0, err
	}
	counts := map[string]int{}
	listed, survivors := 0, 0
	for _, f := range r.Files {
		for _, m := range f.Mutations {
			listed++
			counts[m.Status]++
			if !passing[m.Status] {
				survivors++
				fmt.Fprintf(out, "%s:%d:%d %s %s\n", f.Name, m.Line, m.Column, m.Type, m.Status)
			}
		}
	}
	fmt.Fprintf(out, "%s: %d mutants: %d killed, %d not viable, %d lived, %d timed out, %d not covered\n",
		path, listed, counts["KILLED"], counts["NOT VIABLE"], counts["LIVED"], counts["TIMED OUT"], counts["NOT COVERED"])
	return survivors, nil
}

func read(path string) (report, error) {
	var r report
	data, err := os.ReadFile(path)
	if err != nil {
		return r, fmt.Errorf("mutationgate: %w (gremlins writes no report when it finds nothing to mutate)", err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("mutationgate: %s: %w", path, err)
	}
	// gremlins' mutants_total counts only the mutants that ran to a verdict (killed, lived,
	// not viable); TIMED OUT and NOT COVERED ones are listed but not counted in it.
	listed, ran := 0, 0
	for _, f := range r.Files {
		for _, m := range f.Mutations {
			listed++
			if m.Status == "KILLED" || m.Status == "LIVED" || m.Status == "NOT VIABLE" {
				ran++
			}
		}
	}
	if listed == 0 || ran != r.Total {
		return r, fmt.Errorf("mutationgate: %s: %d mutants listed, %d ran to a verdict, mutants_total %d: an empty or inconsistent report proves nothing", path, listed, ran, r.Total)
	}
	return r, nil
}
