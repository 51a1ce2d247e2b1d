package main

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// doGo is the source the reports of writeReport are of: at 4:7 the `<` of an if, and at 5:12
// and 7:11 the `==` of two identical lines.
const doGo = "package retry\n\nfunc f(a, b int) bool {\n\tif a < b {\n\t\treturn a == b\n\t}\n\treturn a == b\n}\n"

// The IDs of writeReport's mutants.
const (
	keyIf      = "retry/do.go:f:CONDITIONALS_NEGATION:a «<» b"
	keyFirst   = "retry/do.go:f:CONDITIONALS_NEGATION:a «==» b"
	keySecond  = "retry/do.go:f:CONDITIONALS_NEGATION:a «==» b#2"
	keyBoundry = "retry/do.go:f:CONDITIONALS_BOUNDARY:a «<» b"
)

// mustModule writes doGo as retry/do.go under a new directory, and returns the directory.
func mustModule(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "retry"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "retry", "do.go"), []byte(doGo), 0o600); err != nil {
		t.Fatal(err)
	}
	return root
}

// writeReport writes a gremlins report of do.go's four mutants (keyIf, keyFirst, keySecond,
// keyBoundry) with the given statuses.
func writeReport(t *testing.T, path string, statuses ...string) {
	t.Helper()
	at := []struct {
		typ          string
		line, column int
	}{{"CONDITIONALS_NEGATION", 4, 7}, {"CONDITIONALS_NEGATION", 5, 12}, {"CONDITIONALS_NEGATION", 7, 11},
		{"CONDITIONALS_BOUNDARY", 4, 7}}
	var muts []string
	for i, s := range statuses {
		muts = append(muts, `{"type":"`+at[i].typ+`","status":"`+s+`","line":`+strconv.Itoa(at[i].line)+
			`,"column":`+strconv.Itoa(at[i].column)+`}`)
	}
	data := `{"go_module":"pixretry","files":[{"file_name":"do.go","mutations":[` + strings.Join(muts, ",") + `]}]}`
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestGapsAreListedAndMustBeAccepted(t *testing.T) {
	root := mustModule(t)
	dir := t.TempDir()
	writeReport(t, filepath.Join(dir, "properties-retry.json"), "KILLED", "LIVED", "NOT COVERED", "LIVED")
	writeReport(t, filepath.Join(dir, "retry.json"), "KILLED", "KILLED", "KILLED", "LIVED")
	why := filepath.Join(dir, "accepted.txt")
	os.WriteFile(why, []byte("properties: no property can see it\n\t"+keyFirst+"\n"), 0o600)

	var out strings.Builder
	err := run(dir, root, why, nil, []string{"retry"}, &out)
	if !errors.Is(err, errGaps) {
		t.Fatalf("run() = %v, want %v (%s is not accepted)", err, errGaps, keySecond)
	}
	for _, want := range []string{
		"retry: the properties alone kill 1 of 4 mutants (2 lived, 0 timed out, 1 not covered, 0 not viable)",
		"  " + keyFirst + " LIVED\n",
		"  " + keySecond + " NOT COVERED  (not accepted)\n",
		"retry: the full suite kills 3; the properties alone kill 1 of those (2 gaps)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, &out)
		}
	}
	if strings.Contains(out.String(), keyBoundry) {
		t.Errorf("output lists a mutant the full suite lets live:\n%s", &out)
	}

	os.WriteFile(why, []byte("properties: no property can see it\n\t"+keyFirst+"\n"+
		"properties: nor this one\n\t"+keySecond+"\nextended: another pass's entry\n\t"+keyBoundry+"\n"), 0o600)
	if err := run(dir, root, why, nil, []string{"retry"}, &out); err != nil {
		t.Errorf("run() with every gap accepted = %v, want nil", err)
	}
	if err := run(dir, root, "", nil, []string{"retry"}, &out); err != nil {
		t.Errorf("run() without -accepted = %v, want nil", err)
	}
}

// An entry accepts one gap by its whole ID, and one that names no gap is stale.
func TestAnEntryAcceptsOneGapWhole(t *testing.T) {
	root := mustModule(t)
	dir := t.TempDir()
	writeReport(t, filepath.Join(dir, "properties-retry.json"), "KILLED", "LIVED", "LIVED", "LIVED")
	writeReport(t, filepath.Join(dir, "retry.json"), "KILLED", "KILLED", "KILLED", "LIVED")
	both := "properties: why\n\t" + keyFirst + "\n\t" + keySecond + "\n"
	for name, accepted := range map[string]string{
		"an ID without its occurrence": "properties: why\n\t" + keyFirst + "\n",
		"a function for all its gaps":  "properties: why\n\tretry/do.go:f:CONDITIONALS_NEGATION\n",
		"a mutant that is not a gap":   both + "\t" + keyBoundry + "\n",
		"a mutant that the code lacks": both + "\tretry/do.go:f:CONDITIONALS_NEGATION:b\n",
		"another pass's entries":       "extended: why\n\t" + keyFirst + "\n\t" + keySecond + "\n",
		"an empty list":                "",
	} {
		why := filepath.Join(dir, "accepted.txt")
		os.WriteFile(why, []byte(accepted), 0o600)
		var out strings.Builder
		if err := run(dir, root, why, nil, []string{"retry"}, &out); !errors.Is(err, errGaps) {
			t.Errorf("%s: run() = %v, want %v; output:\n%s", name, err, errGaps, &out)
		}
	}
}

func TestWithoutTheFullReport(t *testing.T) {
	dir := t.TempDir()
	writeReport(t, filepath.Join(dir, "properties-retry.json"), "KILLED")
	var out strings.Builder
	if err := run(dir, mustModule(t), "", nil, []string{"retry"}, &out); err != nil {
		t.Fatalf("run() = %v, want nil", err)
	}
	if !strings.Contains(out.String(), "retry: no full-suite report") {
		t.Errorf("output = %q, want it to say there is no full-suite report", &out)
	}
}

func TestBadInput(t *testing.T) {
	root := mustModule(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "properties-bad.json"), []byte("{"), 0o600)
	writeReport(t, filepath.Join(dir, "properties-retry.json"), "KILLED")
	os.WriteFile(filepath.Join(dir, "retry.json"), []byte("["), 0o600)
	os.WriteFile(filepath.Join(dir, "bad.txt"), []byte("properties "+keyFirst+"\n"), 0o600)
	stale := t.TempDir()
	os.WriteFile(filepath.Join(stale, "properties-retry.json"), []byte(`{"files":[{"file_name":"do.go",`+
		`"mutations":[{"type":"CONDITIONALS_NEGATION","status":"KILLED","line":4,"column":8}]}]}`), 0o600)
	beyond := t.TempDir()
	os.WriteFile(filepath.Join(beyond, "properties-retry.json"), []byte(`{"files":[{"file_name":"do.go",`+
		`"mutations":[{"type":"CONDITIONALS_NEGATION","status":"KILLED","line":40,"column":8}]}]}`), 0o600)
	for name, tc := range map[string]struct {
		dir, explained string
		pkgs           []string
	}{
		"no package":                  {dir, "", nil},
		"no properties report":        {dir, "", []string{"absent"}},
		"report not JSON":             {dir, "", []string{"bad"}},
		"full report not JSON":        {dir, "", []string{"retry"}},
		"a list without reasons":      {dir, filepath.Join(dir, "bad.txt"), []string{"retry"}},
		"a column no token starts at": {stale, "", []string{"retry"}},
		"a line the file lacks":       {beyond, "", []string{"retry"}},
	} {
		if err := run(tc.dir, root, tc.explained, nil, tc.pkgs, &strings.Builder{}); err == nil {
			t.Errorf("%s: run() = nil, want an error", name)
		}
	}
}
