package mutant

import (
	"encoding/json"
	"fmt"
	"os"
)

// A Report is the part of the JSON report that `gremlins unleash -o` writes that the tools
// read.
type Report struct {
	Module string `json:"go_module"`
	Total  int    `json:"mutants_total"`
	Files  []struct {
		Name      string     `json:"file_name"` // from the mutated directory: a subpackage's file has its folder
		Mutations []Mutation `json:"mutations"`
	} `json:"files"`
}

// A Mutation is one mutant of a Report.
type Mutation struct {
	Type   string `json:"type"`   // a mutator type, as Tokens names its operators
	Status string `json:"status"` // KILLED, LIVED, NOT VIABLE, TIMED OUT, NOT COVERED, ...
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

// ReadReport reads a gremlins report and checks that it is whole: gremlins writes no report
// when it found nothing to mutate, and a report with no mutant, or whose mutants_total (which
// counts the mutants that ran to a verdict: killed, lived, not viable) disagrees with its
// list, proves nothing.
func ReadReport(path string) (Report, error) {
	var r Report
	data, err := os.ReadFile(path)
	if err != nil {
		return r, fmt.Errorf("mutant: %w (gremlins writes no report when it finds nothing to mutate)", err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("mutant: %s: %w", path, err)
	}
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
		return r, fmt.Errorf("mutant: %s: %d mutants listed, %d ran to a verdict, mutants_total %d: "+
			"an empty or inconsistent report proves nothing", path, listed, ran, r.Total)
	}
	return r, nil
}
