package herd

import (
	"flag"
	"fmt"
	"os"
	"testing"
	"testing/synctest"
	"time"
)

var reportDir = flag.String("herd.out", "", "directory to write the herd report to (make herd)")

// TestHerdReport is the body of `make herd`: it runs every herd of Plan, each in its own
// synctest bubble (the herds wait in virtual time, which only a test can give them), and the
// contention sweep, then writes the report. Without -herd.out it is skipped.
func TestHerdReport(t *testing.T) {
	if *reportDir == "" {
		t.Skip("make herd runs it: go -C tools test -run TestHerdReport ./internal/herd -args -herd.out DIR")
	}
	wall := time.Now()
	plan := Plan()
	results := make([]Result, len(plan))
	t.Run("herds", func(t *testing.T) {
		for i, sc := range plan {
			t.Run(fmt.Sprintf("%s/%s/%v/%d", sc.Name, sc.Strategy.Name, sc.Shared, sc.Payers), func(t *testing.T) {
				t.Parallel()
				synctest.Test(t, func(t *testing.T) { results[i] = mustRun(t, sc) })
			})
		}
	})
	herds := time.Since(wall)
	cells := SweepContention(ContentionClients, ContentionRuns, ReportSeed)
	if err := WriteReport(*reportDir, os.Stdout, results, cells); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("herds %v, contention sweep %v\n", herds.Round(time.Millisecond), (time.Since(wall) - herds).Round(time.Millisecond))
}

// mustRun runs sc and fails the test if its outcome breaks a rule.
func mustRun(tb testing.TB, sc Scenario) Result {
	tb.Helper()
	r, err := Run(sc)
	if err != nil {
		tb.Fatalf("Run(%+v) error = %v", sc, err)
	}
	if len(r.Violations) > 0 {
		tb.Errorf("Run(%s, %s, %d payers, shared %v): outcome broken: %v", sc.Name, sc.Strategy.Name, sc.Payers, sc.Shared, r.Violations)
	}
	return r
}
