package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeReport writes a gremlins report of do.go's mutants with the given statuses, at lines
// 1, 2, 3 ...
func writeReport(t *testing.T, path string, statuses ...string) {
	t.Helper()
	var muts []string
	for i, s := range statuses {
		muts = append(muts, `{"type":"CONDITIONALS_NEGATION","status":"`+s+`","line":`+string(rune('1'+i))+`,"column":5}`)
	}
	data := `{"go_module":"pixretry","files":[{"file_name":"do.go","mutations":[` + strings.Join(muts, ",") + `]}]}`
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestGapsAreListedAndMustBeExplained(t *testing.T) {
	dir := t.TempDir()
	writeReport(t, filepath.Join(dir, "properties-retry.json"), "KILLED", "LIVED", "NOT COVERED", "LIVED")
	writeReport(t, filepath.Join(dir, "retry.json"), "KILLED", "KILLED", "KILLED", "LIVED")
	why := filepath.Join(dir, "why.md")
	os.WriteFile(why, []byte("- `do.go:2:5 CONDITIONALS_NEGATION`: no property can see it\n"), 0o600)

	var out strings.Builder
	err := run(dir, why, []string{"retry"}, &out)
	if !errors.Is(err, errGaps) {
		t.Fatalf("run() = %v, want %v (do.go:3:5 is not explained)", err, errGaps)
	}
	for _, want := range []string{
		"retry: the properties alone kill 1 of 4 mutants (2 lived, 0 timed out, 1 not covered, 0 not viable)",
		"  do.go:2:5 CONDITIONALS_NEGATION LIVED\n",
		"  do.go:3:5 CONDITIONALS_NEGATION NOT COVERED  (not explained)\n",
		"retry: the full suite kills 3; the properties alone kill 1 of those (2 gaps)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "do.go:4:5") {
		t.Errorf("output lists a mutant the full suite lets live:\n%s", out.String())
	}

	os.WriteFile(why, []byte("`do.go:2:5 CONDITIONALS_NEGATION` `do.go:3:5 CONDITIONALS_NEGATION`"), 0o600)
	if err := run(dir, why, []string{"retry"}, &out); err != nil {
		t.Errorf("run() with every gap explained = %v, want nil", err)
	}
	if err := run(dir, "", []string{"retry"}, &out); err != nil {
		t.Errorf("run() without -explained = %v, want nil", err)
	}
}

func TestWithoutTheFullReport(t *testing.T) {
	dir := t.TempDir()
	writeReport(t, filepath.Join(dir, "properties-pix.json"), "KILLED")
	var out strings.Builder
	if err := run(dir, "", []string{"pix"}, &out); err != nil {
		t.Fatalf("run() = %v, want nil", err)
	}
	if !strings.Contains(out.String(), "pix: no full-suite report") {
		t.Errorf("output = %q, want it to say there is no full-suite report", out.String())
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "properties-bad.json"), []byte("{"), 0o600)
	writeReport(t, filepath.Join(dir, "properties-ok.json"), "KILLED")
	os.WriteFile(filepath.Join(dir, "ok.json"), []byte("["), 0o600)
	for name, tc := range map[string]struct {
		explained string
		pkgs      []string
	}{
		"no package":           {"", nil},
		"no properties report": {"", []string{"absent"}},
		"report not JSON":      {"", []string{"bad"}},
		"full report not JSON": {"", []string{"ok"}},
		"no explanations file": {filepath.Join(dir, "absent.md"), []string{"ok"}},
	} {
		if err := run(dir, tc.explained, tc.pkgs, &strings.Builder{}); err == nil {
			t.Errorf("%s: run() = nil, want an error", name)
		}
	}
}
