package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// TestMain runs the tests outside the repository's go.work: their fixtures are modules of
// their own under testdata, which no workspace lists.
func TestMain(m *testing.M) {
	os.Setenv("GOWORK", "off")
	goleak.VerifyTestMain(m)
}

// fixture is a module whose package abs builds on package sign.
const fixture = "../mutationgate/testdata/mod"

// signBug is a bug in sign that abs's TestAbs catches and its TestAbsOfZero cannot see.
func signBug(run string) bug {
	return bug{Name: "sign takes a negative number as positive", File: "sign/sign.go", Old: "return -1", New: "return 1",
		Package: "./abs", Run: run, Catcher: "Abs of a negative number"}
}

func TestRunSaysWhichTestCaughtEachBug(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), fixture, []bug{signBug("^TestAbs$")}, 2, &out); err != nil {
		t.Fatalf("run() = %v, want nil; output:\n%s", err, &out)
	}
	for _, want := range []string{
		"sign takes a negative number as positive: by TestAbs (Abs of a negative number)\n",
		"planted: 1 of 1 bugs caught, 0 missed, stale or marked, 0 awaiting a merge",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, &out)
		}
	}
}

func TestRunFailsOnABugNotCaughtOrStale(t *testing.T) {
	uncaught := signBug("^TestAbsOfZero$")
	absent, twice, unbuilt := signBug("^TestAbs$"), signBug("^TestAbs$"), signBug("^TestAbs$")
	absent.Old = "return 7"
	twice.Old = "return "
	unbuilt.New = "return minusOne"
	for _, c := range []struct {
		name string
		bug  bug
		want string
	}{
		{"not caught", uncaught, "MISSED"},
		{"old text absent", absent, "STALE"},
		{"old text twice", twice, "STALE"},
		{"does not build", unbuilt, "STALE"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out strings.Builder
			err := run(context.Background(), fixture, []bug{c.bug}, 2, &out)
			if !errors.Is(err, errMissed) {
				t.Errorf("run() = %v, want %v", err, errMissed)
			}
			if !strings.HasPrefix(out.String(), c.want) {
				t.Errorf("output does not open with %s:\n%s", c.want, &out)
			}
		})
	}
}

// TestBugsPlantedAtOnceKeepTheirOwnVerdicts plants bugs two at a time, a missed one between
// two caught, and checks that each line is its bug's, in the order of the bugs: a bug seeing
// another's overlay, or a verdict given to the wrong bug, would change a line.
func TestBugsPlantedAtOnceKeepTheirOwnVerdicts(t *testing.T) {
	first, missed, last := signBug("^TestAbs$"), signBug("^TestAbsOfZero$"), signBug("^TestAbs$")
	first.Name, missed.Name, last.Name = "first", "missed", "last"
	var out strings.Builder
	err := run(context.Background(), fixture, []bug{first, missed, last}, 2, &out)
	if !errors.Is(err, errMissed) {
		t.Errorf("run() = %v, want %v", err, errMissed)
	}
	lines := strings.Split(out.String(), "\n")
	if len(lines) < 4 {
		t.Fatalf("output has %d lines, want one per bug and a total:\n%s", len(lines), &out)
	}
	for i, want := range []string{"first: by TestAbs", "missed: not caught", "last: by TestAbs"} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d = %q, want it to hold %q", i+1, lines[i], want)
		}
	}
	if want := "planted: 2 of 3 bugs caught, 1 missed"; !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, &out)
	}
}

func TestABugAwaitingAMergeMustNotBeCaughtYet(t *testing.T) {
	pending, caught := signBug("^TestAbsOfZero$"), signBug("^TestAbs$")
	pending.Awaits, caught.Awaits = "a change", "a change"
	var out strings.Builder
	if err := run(context.Background(), fixture, []bug{pending}, 2, &out); err != nil {
		t.Errorf("run() with a pending bug not caught = %v, want nil; output:\n%s", err, &out)
	}
	if want := "1 awaiting a merge"; !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, &out)
	}
	out.Reset()
	if err := run(context.Background(), fixture, []bug{caught}, 2, &out); !errors.Is(err, errMissed) {
		t.Errorf("run() with a pending bug caught = %v, want %v", err, errMissed)
	}
	if want := "caught by TestAbs, so its Awaits mark (a change) must go"; !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, &out)
	}
}

func TestRunRefusesTestsThatFailWithNoBugPlanted(t *testing.T) {
	b := signBug("^TestAbs$")
	b.Package = "./missing"
	if err := run(context.Background(), fixture, []bug{b}, 2, &strings.Builder{}); err == nil {
		t.Error("run() with a package that does not build unplanted = nil, want an error")
	}
}

func TestFailedTestsReadsTopLevelFailures(t *testing.T) {
	out := "=== RUN   TestA\n--- FAIL: TestA (0.01s)\n    --- FAIL: TestA/sub (0.00s)\n" +
		"--- PASS: TestB (0.00s)\n--- FAIL: TestC (1.20s)\nFAIL\n"
	if got, want := failedTests([]byte(out)), []string{"TestA", "TestC"}; !slices.Equal(got, want) {
		t.Errorf("failedTests() = %v, want %v", got, want)
	}
}

func TestEveryBugIsPlantedOnce(t *testing.T) {
	names := map[string]bool{}
	for _, b := range bugs {
		if names[b.Name] {
			t.Errorf("two bugs are named %q", b.Name)
		}
		names[b.Name] = true
		if b.Name == "" || b.Run == "" || b.Catcher == "" || b.Old == b.New {
			t.Errorf("bug %q lacks a name, a -run regexp or a catcher, or changes nothing", b.Name)
		}
		src, err := os.ReadFile(filepath.Join("../..", b.File))
		if err != nil {
			t.Errorf("bug %q: %v", b.Name, err)
		} else if n := bytes.Count(src, []byte(b.Old)); n != 1 {
			t.Errorf("bug %q: its old text occurs %d times in %s, want once", b.Name, n, b.File)
		}
	}
}
