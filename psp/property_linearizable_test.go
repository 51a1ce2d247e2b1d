package psp_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/anishathalye/porcupine"
	"pgregory.net/rapid"

	"pixretry/retry/retrytest"
)

// TestPSPIsLinearizable: many clients send at once under several tokens and keys, with payloads
// that collide under a key, often in a burst under one key at one instant. Slow faults keep a key
// in flight, drops lose answers, some clients give up. What the clients see must be what some
// order of the requests gives under keyModel, and the ledger must agree (checkLedger). Under
// -race it is the PSP's data-race test. A failure writes porcupine's visualization to failurePath.
// RAPID_CHECKS sets the number of histories, 100 by default.
func TestPSPIsLinearizable(t *testing.T) {
	var cov retrytest.Coverage
	var operations, histories atomic.Int64
	rapid.Check(t, func(t *rapid.T) {
		plan := drawPlan(t)
		var history []porcupine.Operation
		var ledger error
		rapid.SyncTest(t, func(t *rapid.T) { history, ledger = recordHistory(plan, nil) })
		cov.Add(historyEvents(plan, history))
		operations.Add(int64(len(history)))
		histories.Add(1)
		if res, info := porcupine.CheckOperationsVerbose(keyModel, history, checkTimeout); res != porcupine.Ok {
			t.Fatalf("the PSP's history of %d operations is %s under keyModel; see %s",
				len(history), res, visualize(info, failurePath()))
		}
		if ledger != nil {
			t.Fatalf("after a linearizable history: %v", ledger)
		}
	})
	t.Logf("%d operations per history on average", operations.Load()/max(histories.Load(), 1))
	cov.Require(t, 100, append(answerEvents[:], "a same-key burst")...)
}

// TestPlantedBugsAreNotLinearizable: each planted bug, through the same plans, recorder and
// checkers, is caught among the first plantedPlans: a bug in the answers by keyModel, with a
// visualization, a bug in the ledger by checkLedger. Behind relayed, the control, the PSP passes
// both, so a planted bug is caught for its bug, not for being a wrapper.
func TestPlantedBugsAreNotLinearizable(t *testing.T) {
	bugs := []struct {
		name     string
		wrap     func(http.Handler) http.Handler
		caughtBy string
	}{
		{"nonAtomicReserve", nonAtomicReserve, "keyModel"},
		{"replayAcrossPayloads", replayAcrossPayloads, "keyModel"},
		{"conflictAfterCompletion", conflictAfterCompletion, "keyModel"},
		{"paysTwice", paysTwice, "checkLedger"},
		{"relayed", relayed, ""},
	}
	for _, bug := range bugs {
		t.Run(bug.name, func(t *testing.T) {
			n, illegal, ledger := firstCaught(t, bug.wrap)
			switch {
			case bug.caughtBy == "" && n <= plantedPlans:
				t.Fatalf("behind %s, history %d is caught: illegal=%v, ledger: %v", bug.name, n, illegal != nil, ledger)
			case bug.caughtBy == "":
			case n > plantedPlans:
				t.Fatalf("all %d histories of %s pass, want one caught by %s", plantedPlans, bug.name, bug.caughtBy)
			case bug.caughtBy == "checkLedger" && (illegal != nil || ledger == nil):
				t.Fatalf("history %d of %s is illegal, want it linearizable with its ledger wrong", n, bug.name)
			case bug.caughtBy == "checkLedger":
				t.Logf("%s: the ledger after history %d of the plans is wrong: %v", bug.name, n, ledger)
			case illegal == nil:
				t.Fatalf("history %d of %s is linearizable, want it illegal; ledger: %v", n, bug.name, ledger)
			default:
				path := visualize(*illegal, filepath.Join(t.TempDir(), bug.name+".html"))
				if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
					t.Fatalf("the visualization of %s is empty or missing: %v", bug.name, err)
				}
				t.Logf("%s: history %d of the plans is illegal", bug.name, n)
			}
		})
	}
}

const (
	plantedPlans = 50          // how many plans a planted bug may take to show
	checkTimeout = time.Minute // bounds one porcupine check: Unknown is then a failure, not a hang
)

// firstCaught records plans through wrap until one is illegal under keyModel or its ledger is
// wrong. It returns its number (plantedPlans+1 if none is), porcupine's account if illegal, and
// what checkLedger said.
func firstCaught(t *testing.T, wrap func(http.Handler) http.Handler) (int, *porcupine.LinearizationInfo, error) {
	plans := rapid.Custom(drawPlan)
	for i := range plantedPlans {
		plan := plans.Example(i)
		var history []porcupine.Operation
		var ledger error
		synctest.Test(t, func(t *testing.T) { history, ledger = recordHistory(plan, wrap) })
		if res, info := porcupine.CheckOperationsVerbose(keyModel, history, checkTimeout); res == porcupine.Illegal {
			return i + 1, &info, ledger
		}
		if ledger != nil {
			return i + 1, nil, ledger
		}
	}
	return plantedPlans + 1, nil, nil
}

// visualize writes porcupine's visualization of info to path, and returns path or an error.
func visualize(info porcupine.LinearizationInfo, path string) string {
	if err := porcupine.VisualizePath(keyModel, info, path); err != nil {
		return fmt.Sprintf("no visualization: %v", err)
	}
	return path
}

// failurePath is the file LINEARIZABILITY_HTML names, else one per test process in the temporary
// directory. Each failure overwrites it, so it ends with the history rapid shrank to.
func failurePath() string {
	if path := os.Getenv("LINEARIZABILITY_HTML"); path != "" {
		return path
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("psp-linearizability-%d.html", os.Getpid()))
}

// answerEvents name the requests by answer. A run of 100 histories must meet each, lest the rule
// of keyModel that classes it go unchecked.
var answerEvents = [answerOther]string{"request: fresh", "request: replayed", "request: 409 in use",
	"request: 422 reused", "request: lost", "request: given up"}

// historyEvents names what happened in a history of plan.
func historyEvents(plan linPlan, history []porcupine.Operation) map[string]bool {
	seen := map[string]bool{"a same-key burst": plan.Burst}
	for _, op := range history {
		if kind := op.Output.(keyOutput).Kind; kind < answerOther {
			seen[answerEvents[kind]] = true
		}
	}
	return seen
}
