package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

const header = `{"go_module":"pixretry","mutants_total":%d,"files":[{"file_name":"retry/do.go","mutations":[%s]}]}`

func writeReport(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.json")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// reportOf builds a report with one mutant per status, on lines 1, 2, 3...
func reportOf(statuses ...string) string {
	var parts []string
	for i, s := range statuses {
		parts = append(parts, fmt.Sprintf(`{"type":"CONDITIONALS_BOUNDARY","status":%q,"line":%d,"column":7}`, s, i+1))
	}
	ran := 0 // gremlins counts in mutants_total only what ran to a verdict
	for _, s := range statuses {
		if s == "KILLED" || s == "LIVED" || s == "NOT VIABLE" {
			ran++
		}
	}
	return fmt.Sprintf(header, ran, strings.Join(parts, ","))
}

func TestRunPassesWhenEveryMutantIsKilledOrNotViable(t *testing.T) {
	var out bytes.Buffer
	path := writeReport(t, reportOf("KILLED", "NOT VIABLE", "KILLED"))
	if err := run(context.Background(), nil, []string{"retry=" + path}, &out); err != nil {
		t.Fatalf("run() = %v, want nil; output:\n%s", err, out.String())
	}
	if got, want := out.String(), "3 mutants: 2 killed, 1 not viable, 0 lived, 0 timed out, 0 not covered"; !strings.Contains(got, want) {
		t.Errorf("output = %q, want it to contain %q", got, want)
	}
}

// NOT COVERED is not in the list: the gate proves those (proof_test.go).
func TestRunFailsOnEverySurvivingStatus(t *testing.T) {
	for _, status := range []string{"LIVED", "TIMED OUT", "SKIPPED", "RUNNABLE"} {
		t.Run(status, func(t *testing.T) {
			var out bytes.Buffer
			path := writeReport(t, reportOf("KILLED", status))
			err := run(context.Background(), nil, []string{"retry=" + path}, &out)
			if !errors.Is(err, errSurvivors) {
				t.Fatalf("run() = %v, want %v", err, errSurvivors)
			}
			if got, want := out.String(), "retry/do.go:2:7 CONDITIONALS_BOUNDARY "+status+"\n"; !strings.Contains(got, want) {
				t.Errorf("output = %q, want it to contain %q", got, want)
			}
		})
	}
}

func TestRunFailsOnAnySurvivorAcrossReports(t *testing.T) {
	clean := writeReport(t, reportOf("KILLED"))
	dirty := writeReport(t, reportOf("LIVED"))
	if err := run(context.Background(), nil, []string{"retry=" + clean, "retry=" + dirty}, new(bytes.Buffer)); !errors.Is(err, errSurvivors) {
		t.Errorf("run() = %v, want %v", err, errSurvivors)
	}
}

func TestRunRejectsReportsThatProveNothing(t *testing.T) {
	cases := map[string]string{
		"empty":        `{"go_module":"pixretry","mutants_total":0,"files":[]}`,
		"inconsistent": strings.Replace(reportOf("KILLED"), `"mutants_total":1`, `"mutants_total":5`, 1),
		"not json":     `gremlins crashed`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			err := run(context.Background(), nil, []string{"retry=" + writeReport(t, body)}, new(bytes.Buffer))
			if err == nil || errors.Is(err, errSurvivors) {
				t.Errorf("run() = %v, want a report error", err)
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		if err := run(context.Background(), nil, []string{"retry=" + filepath.Join(t.TempDir(), "none.json")}, new(bytes.Buffer)); err == nil {
			t.Error("run() = nil, want an error for a missing report")
		}
	})
	t.Run("no package directory", func(t *testing.T) {
		if err := run(context.Background(), nil, []string{writeReport(t, reportOf("KILLED"))}, new(bytes.Buffer)); err == nil {
			t.Error("run() = nil, want a usage error")
		}
	})
	t.Run("no arguments", func(t *testing.T) {
		if err := run(context.Background(), nil, nil, new(bytes.Buffer)); err == nil {
			t.Error("run() = nil, want a usage error")
		}
	})
}

// A LIVED mutant that the list accepts for the pass "gremlins", by its ID, passes; an entry that
// names no LIVED mutant of a gated package fails as stale.
func TestRunAcceptsAListedSurvivorAndFailsOnAStaleEntry(t *testing.T) {
	report := writeReport(t, `{"go_module":"fixture","files":[{"file_name":"sign.go","mutations":[`+
		`{"type":"ARITHMETIC_BASE","status":"KILLED","line":9,"column":10},`+
		`{"type":"CONDITIONALS_BOUNDARY","status":"LIVED","line":10,"column":9}]}],"mutants_total":2}`)
	list := func(text string) *mutant.Accepted {
		path := filepath.Join(t.TempDir(), "accepted.txt")
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		a, err := mutant.ReadAccepted(path)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	const id = "testdata/mod/sign/sign.go:Sign:CONDITIONALS_BOUNDARY:n «>» 0"
	var out bytes.Buffer
	if err := run(context.Background(), list("gremlins: a reason\n\t"+id+"\n"), []string{"testdata/mod/sign=" + report},
		&out); err != nil {
		t.Fatalf("run() = %v, want nil; output:\n%s", err, &out)
	}
	if !strings.Contains(out.String(), "1 accepted") {
		t.Errorf("output = %s, want 1 accepted", &out)
	}
	for name, text := range map[string]string{
		"another pass's entry": "extended: a reason\n\t" + id + "\n",
		"a stale entry":        "gremlins: a reason\n\t" + id + "\n\ttestdata/mod/sign/sign.go:Sign:CONDITIONALS_BOUNDARY:n «<» 0\n",
	} {
		out.Reset()
		if err := run(context.Background(), list(text), []string{"testdata/mod/sign=" + report}, &out); !errors.Is(err, errSurvivors) {
			t.Errorf("%s: run() = %v, want %v; output:\n%s", name, err, errSurvivors, &out)
		}
	}
}
