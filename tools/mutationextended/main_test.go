package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"pixretry/tools/internal/mutant"
)

// TestMain runs the tests outside the repository's go.work: their fixtures are modules of
// their own under testdata, which no workspace lists.
func TestMain(m *testing.M) {
	os.Setenv("GOWORK", "off")
	goleak.VerifyTestMain(m)
}

const fixture = "testdata/mod/tally"

// tallyPass runs the pass over the fixture once for all the tests that judge it.
var tallyPass = sync.OnceValues(func() (*pass, error) {
	return runPackage(context.Background(), fixture, options{workers: 2}, &mutant.Accepted{}, nil)
})

func mustTallyPass(t *testing.T) *pass {
	t.Helper()
	p, err := tallyPass()
	if err != nil {
		t.Fatalf("runPackage() error = %v", err)
	}
	return p
}

// The fixture's survivors: what no test of Sum checks (note, and a zero value), and Reset,
// which no test runs.
var tallySurvivors = []string{
	`SURVIVED testdata/mod/tally/tally.go:ErrNegative:empty-string:"tally: negative value" (line 8)`,
	`SURVIVED testdata/mod/tally/tally.go:Sum:remove-stmt:note("sum") (line 21)`,
	`SURVIVED testdata/mod/tally/tally.go:Sum:empty-string:"sum" (line 21)`,
	`SURVIVED testdata/mod/tally/tally.go:note:zero-body:body (line 26)`,
	`SURVIVED testdata/mod/tally/tally.go:note:remove-stmt:notes = append(notes, what) (line 26)`,
	`SURVIVED (no test runs it) testdata/mod/tally/tally.go:Reset:zero-body:body (line 31)`,
	`SURVIVED (no test runs it) testdata/mod/tally/tally.go:Reset:remove-stmt:notes = nil (line 31)`,
	`SURVIVED testdata/mod/tally/tally.go:Sum:CONDITIONALS_BOUNDARY:v «<» 0 (line 16)`,
}

func idOf(line string) string {
	line = strings.TrimPrefix(strings.TrimPrefix(line, "SURVIVED (no test runs it) "), "SURVIVED ")
	return line[:strings.LastIndex(line, " (line")]
}

func TestJudgeFailsOnEachSurvivorAndNamesPseudoTestedFunctions(t *testing.T) {
	var out bytes.Buffer
	err := judge([]*pass{mustTallyPass(t)}, mustAccepted(t, ""), mutant.PassExtended, []string{fixture}, nil, &out)
	if !errors.Is(err, errSurvivors) {
		t.Fatalf("judge() = %v, want %v", err, errSurvivors)
	}
	wants := append(tallySurvivors,
		"PSEUDO-TESTED testdata/mod/tally/tally.go:note: every body mutant ran and survived",
		"testdata/mod/tally: 16 mutants: 8 killed (0 by timeout), 8 survived (2 not covered), 0 accepted, "+
			"0 not compiled; 1 pseudo-tested functions; ")
	if got := out.String(); !strings.Contains(got, "before the first mutant ran") {
		t.Errorf("output = %s\nwant the time the setup took", got)
	}
	for _, want := range wants {
		if got := out.String(); !strings.Contains(got, want) {
			t.Errorf("output = %s\nwant it to contain %q", got, want)
		}
	}
	if got, want := strings.Count(out.String(), "SURVIVED"), len(tallySurvivors); got != want {
		t.Errorf("%d survivors printed, want %d:\n%s", got, want, out.String())
	}
}

// mustAccepted returns the list of accepted survivors that text holds.
func mustAccepted(t *testing.T, text string) *mutant.Accepted {
	t.Helper()
	path := filepath.Join(t.TempDir(), "accepted.txt")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := mutant.ReadAccepted(path)
	if err != nil {
		t.Fatalf("ReadAccepted() error = %v", err)
	}
	return a
}

// everySurvivor is a list that accepts each of the fixture's survivors.
func everySurvivor() string {
	var b strings.Builder
	b.WriteString("extended: a reason\n")
	for _, s := range tallySurvivors {
		fmt.Fprintf(&b, "\t%s\n", idOf(s))
	}
	return b.String()
}

func TestJudgePassesWhenEverySurvivorIsAccepted(t *testing.T) {
	var out bytes.Buffer
	if err := judge([]*pass{mustTallyPass(t)}, mustAccepted(t, everySurvivor()), mutant.PassExtended, []string{fixture}, nil, &out); err != nil {
		t.Fatalf("judge() = %v, want nil; output:\n%s", err, out.String())
	}
	if got, want := out.String(), "0 survived (2 not covered), 8 accepted"; !strings.Contains(got, want) {
		t.Errorf("output = %s\nwant it to contain %q", got, want)
	}
}

// An entry that names no survivor (the mutant is killed now, or its code is gone) fails, so
// that the list cannot hide a mutant that later takes the same id.
func TestJudgeFailsOnAStaleEntry(t *testing.T) {
	list := everySurvivor() + "extended: it is not\n\ttestdata/mod/tally/tally.go:Sum:remove-stmt:total += v\n" +
		"extended: another package's entry is not judged here\n\tretry/do.go:Do:zero-body:body\n" +
		"properties: another pass's entry neither\n\ttestdata/mod/tally/tally.go:Sum:ARITHMETIC_BASE:total «+=» v\n"
	var out bytes.Buffer
	err := judge([]*pass{mustTallyPass(t)}, mustAccepted(t, list), mutant.PassExtended, []string{fixture}, nil, &out)
	if !errors.Is(err, errSurvivors) {
		t.Fatalf("judge() = %v, want %v", err, errSurvivors)
	}
	want := "STALE testdata/mod/tally/tally.go:Sum:remove-stmt:total += v: accepted, but no such mutant survived (or no such file)\n"
	if got := out.String(); !strings.Contains(got, want) || strings.Count(got, "STALE") != 1 {
		t.Errorf("output = %s\nwant it to contain %q and no other STALE line", got, want)
	}
}

func TestRunReadsTheList(t *testing.T) {
	path := filepath.Join(t.TempDir(), "accepted.txt")
	if err := os.WriteFile(path, []byte("extended not an entry\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), options{workers: 2}, path, []string{fixture}, new(bytes.Buffer)); err == nil ||
		errors.Is(err, errSurvivors) {
		t.Errorf("run() = %v, want an error for the malformed list", err)
	}
	if err := run(context.Background(), options{workers: 2}, path, nil, new(bytes.Buffer)); err == nil {
		t.Error("run() without a package = nil error, want a usage error")
	}
}

// A pass leaves nothing in TMPDIR: its scratch folder, its test binaries and the temporary
// folders of the tests it ran (killed or not) go when it ends.
func TestRunPackageLeavesNoTemporaryFolder(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	if _, err := runPackage(context.Background(), fixture, options{workers: 2}, &mutant.Accepted{}, nil); err != nil {
		t.Fatalf("runPackage() error = %v", err)
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("runPackage() left %s in TMPDIR", e.Name())
	}
}
