package properties

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/anishathalye/porcupine"
	"pgregory.net/rapid"
)

// TestPSPIsLinearizable: many clients send at once under several tokens and keys, with payloads
// that collide under a key, often in a burst under one key at one instant. Slow faults keep a key
// in flight, drops lose answers, some clients give up. What the clients see must be what some
// order of the requests gives under keyModel, and the ledger must agree (checkLedger). Under
// -race it is the PSP's data-race test. A failure writes porcupine's visualization to failurePath.
// RAPID_CHECKS sets the number of histories: 100 in make test, 10000 in make properties.
func TestPSPIsLinearizable(t *testing.T) {
	var seen answerCounts
	rapid.Check(t, func(t *rapid.T) {
		plan := drawPlan(t)
		var history []porcupine.Operation
		var ledger error
		rapid.SyncTest(t, func(t *rapid.T) { history, ledger = recordHistory(plan, nil) })
		seen.add(plan, history)
		if res, info := porcupine.CheckOperationsVerbose(keyModel, history, checkTimeout); res != porcupine.Ok {
			t.Fatalf("the PSP's history of %d operations is %s under keyModel; see %s",
				len(history), res, visualize(info, failurePath()))
		}
		if ledger != nil {
			t.Fatalf("after a linearizable history: %v", ledger)
		}
	})
	t.Log(&seen)
	if err := seen.covers(); err != nil {
		t.Error(err)
	}
}

// TestPlantedBugsAreNotLinearizable: each planted bug, through the same plans, recorder and
// checker, gives an illegal history among the first plantedPlans, with a visualization. Behind
// notingStatus, the control, the PSP stays linearizable with its ledger right, so a planted bug
// is illegal for its bug, not for being a wrapper.
func TestPlantedBugsAreNotLinearizable(t *testing.T) {
	bugs := []struct {
		name    string
		wrap    func(http.Handler) http.Handler
		illegal bool
	}{
		{"nonAtomicReserve", nonAtomicReserve, true},
		{"replayAcrossPayloads", replayAcrossPayloads, true},
		{"conflictAfterCompletion", conflictAfterCompletion, true},
		{"notingStatus", notingStatus, false},
	}
	for _, bug := range bugs {
		t.Run(bug.name, func(t *testing.T) {
			info, n, ledger := firstIllegal(t, bug.wrap)
			if found := n <= plantedPlans; !bug.illegal {
				if found || ledger != nil {
					t.Fatalf("behind %s, history %d is illegal (see %s) or the ledger is wrong: %v",
						bug.name, n, visualize(info, failurePath()), ledger)
				}
				return
			} else if !found {
				t.Fatalf("all %d histories of %s are linearizable, want one illegal", plantedPlans, bug.name)
			}
			path := visualize(info, filepath.Join(t.TempDir(), bug.name+".html"))
			if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
				t.Fatalf("the visualization of %s is empty or missing: %v", bug.name, err)
			}
			t.Logf("%s: history %d of the plans is illegal", bug.name, n)
		})
	}
}

const (
	plantedPlans = 50          // how many plans a planted bug may take to show
	checkTimeout = time.Minute // bounds one porcupine check: Unknown is then a failure, not a hang
)

// firstIllegal records plans through wrap until porcupine finds one illegal. It returns its
// linearization info and its number (plantedPlans+1 if none is), and the first ledger error.
func firstIllegal(t *testing.T, wrap func(http.Handler) http.Handler) (porcupine.LinearizationInfo, int, error) {
	plans := rapid.Custom(drawPlan)
	var first error
	for i := range plantedPlans {
		plan := plans.Example(i)
		var history []porcupine.Operation
		var ledger error
		synctest.Test(t, func(*testing.T) { history, ledger = recordHistory(plan, wrap) })
		if first == nil {
			first = ledger
		}
		if res, info := porcupine.CheckOperationsVerbose(keyModel, history, checkTimeout); res == porcupine.Illegal {
			return info, i + 1, first
		}
	}
	return porcupine.LinearizationInfo{}, plantedPlans + 1, first
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

// answerCounts counts the histories, the bursts, the operations, and the requests' answers by kind.
type answerCounts struct {
	mu                                  sync.Mutex
	histories, bursts, operations, most int
	requests                            [answerOther]int
}

// answerNames are the answers that a run of 100 histories or more must meet, with a burst, lest
// the rule of keyModel that classes one go unchecked.
var answerNames = [answerOther]string{"fresh", "replayed", "409 in use", "422 reused", "lost", "given up"}

func (c *answerCounts) add(plan linPlan, history []porcupine.Operation) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.histories, c.operations, c.most = c.histories+1, c.operations+len(history), max(c.most, len(history))
	if plan.Burst {
		c.bursts++
	}
	for _, op := range history {
		if kind := op.Output.(keyOutput).Kind; op.Input.(keyInput).Step != stepCommit && kind < answerOther {
			c.requests[kind]++
		}
	}
}

func (c *answerCounts) covers() error {
	if c.histories < 100 {
		return nil
	}
	for kind, n := range c.requests {
		if n == 0 {
			return fmt.Errorf("%d histories met no %s request", c.histories, answerNames[kind])
		}
	}
	if c.bursts == 0 {
		return fmt.Errorf("%d histories met no same-key burst", c.histories)
	}
	return nil
}

func (c *answerCounts) String() string {
	s := fmt.Sprintf("%d histories (%d bursts), %d operations each on average (at most %d); requests:",
		c.histories, c.bursts, c.operations/max(c.histories, 1), c.most)
	for kind, n := range c.requests {
		s += fmt.Sprintf(" %d %s", n, answerNames[kind])
	}
	return s
}
