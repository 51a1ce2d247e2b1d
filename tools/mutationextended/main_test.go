package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const fixture = "testdata/mod/tally"

// tallyPass runs the pass over the fixture once for all the tests that judge it.
var tallyPass = sync.OnceValues(func() (*pass, error) {
	return runPackage(context.Background(), fixture, 2)
})

func mustTallyPass(t *testing.T) *pass {
	t.Helper()
	p, err := tallyPass()
	if err != nil {
		t.Fatalf("runPackage() error = %v", err)
	}
	return p
}

// The fixture's survivors: what no test of Sum checks, and Reset, which no test runs.
var tallySurvivors = []string{
	`SURVIVED testdata/mod/tally/tally.go:ErrNegative:empty-string:"tally: negative value" (line 8)`,
	`SURVIVED testdata/mod/tally/tally.go:Sum:remove-stmt:note("sum") (line 21)`,
	`SURVIVED testdata/mod/tally/tally.go:Sum:empty-string:"sum" (line 21)`,
	`SURVIVED testdata/mod/tally/tally.go:note:zero-body:body (line 26)`,
	`SURVIVED testdata/mod/tally/tally.go:note:remove-stmt:notes = append(notes, what) (line 26)`,
	`SURVIVED (no test runs it) testdata/mod/tally/tally.go:Reset:zero-body:body (line 31)`,
	`SURVIVED (no test runs it) testdata/mod/tally/tally.go:Reset:remove-stmt:notes = nil (line 31)`,
}

func idOf(line string) string {
	line = strings.TrimPrefix(strings.TrimPrefix(line, "SURVIVED (no test runs it) "), "SURVIVED ")
	return line[:strings.LastIndex(line, " (line")]
}

func TestJudgeFailsOnEachSurvivorAndNamesPseudoTestedFunctions(t *testing.T) {
	var out bytes.Buffer
	err := judge([]*pass{mustTallyPass(t)}, equivalents{}, &out)
	if !errors.Is(err, errSurvivors) {
		t.Fatalf("judge() = %v, want %v", err, errSurvivors)
	}
	wants := append(tallySurvivors,
		"PSEUDO-TESTED testdata/mod/tally/tally.go:note: every body mutant ran and survived",
		"testdata/mod/tally: 12 mutants: 5 killed (0 by timeout), 7 survived (2 not covered), 0 equivalent, "+
			"0 not compiled; 1 pseudo-tested functions; ")
	for _, want := range wants {
		if got := out.String(); !strings.Contains(got, want) {
			t.Errorf("output = %s\nwant it to contain %q", got, want)
		}
	}
	if got, want := strings.Count(out.String(), "SURVIVED"), len(tallySurvivors); got != want {
		t.Errorf("%d survivors printed, want %d:\n%s", got, want, out.String())
	}
}

func TestJudgePassesWhenEverySurvivorIsListed(t *testing.T) {
	eq := equivalents{}
	for _, s := range tallySurvivors {
		eq[idOf(s)] = "a reason"
	}
	var out bytes.Buffer
	if err := judge([]*pass{mustTallyPass(t)}, eq, &out); err != nil {
		t.Fatalf("judge() = %v, want nil; output:\n%s", err, out.String())
	}
	if got, want := out.String(), "0 survived (2 not covered), 7 equivalent"; !strings.Contains(got, want) {
		t.Errorf("output = %s\nwant it to contain %q", got, want)
	}
}

// An entry that names no survivor (the mutant is killed now, or its code is gone) fails, so
// that the list cannot hide a mutant that later takes the same id.
func TestJudgeFailsOnAStaleEntry(t *testing.T) {
	eq := equivalents{"testdata/mod/tally/tally.go:Sum:remove-stmt:total += v": "it is not"}
	for _, s := range tallySurvivors {
		eq[idOf(s)] = "a reason"
	}
	eq["retry/do.go:Do:zero-body:body"] = "another package's entry is not judged here"
	var out bytes.Buffer
	err := judge([]*pass{mustTallyPass(t)}, eq, &out)
	if !errors.Is(err, errSurvivors) {
		t.Fatalf("judge() = %v, want %v", err, errSurvivors)
	}
	want := "STALE testdata/mod/tally/tally.go:Sum:remove-stmt:total += v: listed as equivalent, but no such mutant survived\n"
	if got := out.String(); !strings.Contains(got, want) || strings.Contains(got, "STALE retry") {
		t.Errorf("output = %s\nwant it to contain %q and no other STALE line", got, want)
	}
}

func TestRunReadsTheEquivalenceFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "equivalent.txt")
	if err := os.WriteFile(path, []byte("not an entry\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), 2, path, []string{fixture}, new(bytes.Buffer)); err == nil ||
		errors.Is(err, errSurvivors) {
		t.Errorf("run() = %v, want an error for the malformed file", err)
	}
	if err := run(context.Background(), 2, path, nil, new(bytes.Buffer)); err == nil {
		t.Error("run() without a package = nil error, want a usage error")
	}
}

func TestReadEquivalents(t *testing.T) {
	cases := map[string]struct {
		text string
		ok   bool
	}{
		"entries and comments": {"# why\n\nretry/a.go:F:flip-bool:true => the flag is never read\n", true},
		"no reason":            {"retry/a.go:F:flip-bool:true => \n", false},
		"no separator":         {"retry/a.go:F:flip-bool:true\n", false},
		"listed twice":         {"a => x\na => y\n", false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "equivalent.txt")
			if err := os.WriteFile(path, []byte(c.text), 0o600); err != nil {
				t.Fatal(err)
			}
			eq, err := readEquivalents(path)
			if (err == nil) != c.ok {
				t.Fatalf("readEquivalents() error = %v, want ok %v", err, c.ok)
			}
			if c.ok && eq["retry/a.go:F:flip-bool:true"] != "the flag is never read" {
				t.Errorf("readEquivalents() = %v", eq)
			}
		})
	}
}
