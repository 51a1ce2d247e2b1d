package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The reports under testdata are gremlins v0.6.0's own, of the module in testdata/mod (see
// testdata/README). In both, the four mutants of the switch's case conditions are NOT COVERED
// although the tests run them.

func TestRunProvesNotCoveredMutantsKilled(t *testing.T) {
	var out bytes.Buffer
	err := run(context.Background(), nil, []string{"testdata/mod/sign=testdata/sign.json"}, &out)
	if err != nil {
		t.Fatalf("run() = %v, want nil; output:\n%s", err, out.String())
	}
	want := "testdata/sign.json: 6 mutants: 2 killed, 0 not viable, 0 lived, 0 timed out, " +
		"4 not covered (4 proven killed, 0 proven not viable, 0 unproven), 0 accepted\n"
	if got := out.String(); got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
}

func TestRunFailsOnNotCoveredMutantsThatLive(t *testing.T) {
	var out bytes.Buffer
	err := run(context.Background(), nil, []string{"testdata/mod/grade=testdata/grade.json"}, &out)
	if !errors.Is(err, errSurvivors) {
		t.Fatalf("run() = %v, want %v", err, errSurvivors)
	}
	if got, want := err.Error(), "3 not killed"; !strings.Contains(got, want) {
		t.Errorf("run() = %q, want it to contain %q", got, want)
	}
	for _, want := range []string{
		"grade.go:8:14 CONDITIONALS_BOUNDARY NOT COVERED, survived under its tests\n",
		"grade.go:10:14 CONDITIONALS_BOUNDARY NOT COVERED, survived under its tests\n",
		"grade.go:18:16 CONDITIONALS_BOUNDARY LIVED\n",
		"testdata/grade.json: 6 mutants: 1 killed, 0 not viable, 1 lived, 0 timed out, " +
			"4 not covered (2 proven killed, 0 proven not viable, 2 unproven), 0 accepted\n",
	} {
		if got := out.String(); !strings.Contains(got, want) {
			t.Errorf("output = %q, want it to contain %q", got, want)
		}
	}
}

// A report that names no operator where the source has one, as when the source changed after
// the report was written, cannot be proven: the mutant stays a survivor.
func TestRunFailsOnNotCoveredMutantsItCannotReproduce(t *testing.T) {
	data, err := os.ReadFile("testdata/sign.json")
	if err != nil {
		t.Fatal(err)
	}
	shifted := strings.Replace(string(data), `"line":8,"column":9`, `"line":8,"column":10`, 1)
	path := filepath.Join(t.TempDir(), "sign.json")
	if err := os.WriteFile(path, []byte(shifted), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(context.Background(), nil, []string{"testdata/mod/sign=" + path}, &out); !errors.Is(err, errSurvivors) {
		t.Fatalf("run() = %v, want %v", err, errSurvivors)
	}
	want := "sign.go:8:10 CONDITIONALS_BOUNDARY NOT COVERED, unproven: mutant: sign.go:8:10: 0 operators there"
	if got := out.String(); !strings.Contains(got, want) {
		t.Errorf("output = %q, want it to contain %q", got, want)
	}
}

func TestRunFailsWhenTheUnmutatedTestsFail(t *testing.T) {
	err := run(context.Background(), nil, []string{"testdata/mod/missing=testdata/sign.json"}, new(bytes.Buffer))
	if err == nil || errors.Is(err, errSurvivors) {
		t.Errorf("run() = %v, want an error that the tests cannot run", err)
	}
}

// gremlins run on a package mutates its subpackages too, and names their files by their path
// from the package: each such mutant is proven by its own package's tests.
func TestRunProvesSubpackageMutantsWithTheirOwnTests(t *testing.T) {
	data, err := os.ReadFile("testdata/sign.json")
	if err != nil {
		t.Fatal(err)
	}
	nested := strings.ReplaceAll(string(data), `"file_name":"sign.go"`, `"file_name":"sign/sign.go"`)
	if nested == string(data) {
		t.Fatal("testdata/sign.json names no file sign.go")
	}
	path := filepath.Join(t.TempDir(), "nested.json")
	if err := os.WriteFile(path, []byte(nested), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(context.Background(), nil, []string{"testdata/mod=" + path}, &out); err != nil {
		t.Fatalf("run() = %v, want nil; output:\n%s", err, out.String())
	}
	if got, want := out.String(), "(4 proven killed, 0 proven not viable, 0 unproven)"; !strings.Contains(got, want) {
		t.Errorf("output = %q, want it to contain %q", got, want)
	}
}

// Proofs run at once, yet print in the report's order, whichever ends first.
func TestRunPrintsProofsInTheReportsOrder(t *testing.T) {
	defer func(n int) { proofWorkers = n }(proofWorkers)
	proofWorkers = 4
	var out bytes.Buffer
	if err := run(context.Background(), nil, []string{"testdata/mod/grade=testdata/grade.json"}, &out); !errors.Is(err, errSurvivors) {
		t.Fatalf("run() = %v, want %v", err, errSurvivors)
	}
	first := strings.Index(out.String(), "grade.go:8:14 CONDITIONALS_BOUNDARY NOT COVERED")
	second := strings.Index(out.String(), "grade.go:10:14 CONDITIONALS_BOUNDARY NOT COVERED")
	if first < 0 || second < first {
		t.Errorf("output = %q, want line 8's proof, then line 10's", out.String())
	}
}

// A gate asked for no workers still proves, one at a time.
func TestRunProofsWithNoWorkersProvesOneAtATime(t *testing.T) {
	defer func(n int) { proofWorkers = n }(proofWorkers)
	proofWorkers = 0
	var out bytes.Buffer
	if err := run(context.Background(), nil, []string{"testdata/mod/sign=testdata/sign.json"}, &out); err != nil {
		t.Fatalf("run() = %v, want nil; output:\n%s", err, out.String())
	}
	if got, want := out.String(), "4 proven killed"; !strings.Contains(got, want) {
		t.Errorf("output = %q, want it to contain %q", got, want)
	}
}
