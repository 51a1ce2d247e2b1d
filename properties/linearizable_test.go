package properties

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/anishathalye/porcupine"
	"pgregory.net/rapid"
)

// TestPSPIsLinearizable is the linearizability property of the PSP. Many clients send at once,
// under several tokens and keys, with payloads that collide under a key. Slow faults keep a key
// in flight, drop faults lose an answer, and some clients give up. What each client sees must be
// what some order of the requests, one at a time, gives under keyModel. porcupine decides it. A
// failure writes porcupine's HTML visualization of the history to failurePath. RAPID_CHECKS sets
// the number of histories: rapid's default 100 in make test, 10000 in make properties.
func TestPSPIsLinearizable(t *testing.T) {
	var seen answerCounts
	rapid.Check(t, func(t *rapid.T) {
		plan := drawPlan(t)
		var history []porcupine.Operation
		rapid.SyncTest(t, func(t *rapid.T) {
			var err error
			if history, err = recordHistory(plan, nil); err != nil {
				t.Fatalf("recordHistory() error = %v", err)
			}
		})
		seen.add(history)
		if res, info := porcupine.CheckOperationsVerbose(keyModel, history, checkTimeout); res != porcupine.Ok {
			t.Fatalf("the PSP's history of %d operations is %s under keyModel; see %s",
				len(history), res, visualize(info, failurePath()))
		}
	})
	t.Log(&seen)
	if err := seen.covers(); err != nil {
		t.Error(err)
	}
}

// TestPlantedBugsAreNotLinearizable shows that TestPSPIsLinearizable can fail. Each planted bug
// runs through the same plans, recorder and checker. porcupine must find one of its first
// plantedPlans histories illegal, and its visualization must be written.
func TestPlantedBugsAreNotLinearizable(t *testing.T) {
	bugs := []struct {
		name string
		wrap func(http.Handler) http.Handler
	}{
		{"nonAtomicReserve", nonAtomicReserve},
		{"replayAcrossPayloads", replayAcrossPayloads},
		{"conflictAfterCompletion", conflictAfterCompletion},
	}
	for _, bug := range bugs {
		t.Run(bug.name, func(t *testing.T) {
			info, n, found := firstIllegal(t, bug.wrap)
			if !found {
				t.Fatalf("all %d histories of %s are linearizable, want one illegal", n, bug.name)
			}
			path := visualize(info, filepath.Join(t.TempDir(), bug.name+".html"))
			if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
				t.Fatalf("the visualization of %s is empty or missing: %v", bug.name, err)
			}
			t.Logf("%s: history %d of the plans is illegal", bug.name, n)
		})
	}
}

// TestWrappedPSPStaysLinearizable is the control of the planted bugs. The PSP behind
// notingStatus stays linearizable on the same plans, so a planted bug is illegal for its bug,
// not for being a wrapper.
func TestWrappedPSPStaysLinearizable(t *testing.T) {
	if info, n, found := firstIllegal(t, notingStatus); found {
		t.Fatalf("history %d of the PSP behind notingStatus is illegal; see %s", n, visualize(info, failurePath()))
	}
}

const (
	plantedPlans = 50          // how many plans a planted bug may take to show
	checkTimeout = time.Minute // bounds one porcupine check: Unknown is then a failure, not a hang
)

// firstIllegal records the plans of TestPSPIsLinearizable through wrap, one by one, until
// porcupine finds a history illegal. It returns that history's linearization info and how many
// histories it checked.
func firstIllegal(t *testing.T, wrap func(http.Handler) http.Handler) (porcupine.LinearizationInfo, int, bool) {
	plans := rapid.Custom(drawPlan)
	for i := range plantedPlans {
		plan := plans.Example(i)
		var history []porcupine.Operation
		synctest.Test(t, func(t *testing.T) {
			var err error
			if history, err = recordHistory(plan, wrap); err != nil {
				t.Fatalf("recordHistory() error = %v", err)
			}
		})
		if res, info := porcupine.CheckOperationsVerbose(keyModel, history, checkTimeout); res == porcupine.Illegal {
			return info, i + 1, true
		}
	}
	return porcupine.LinearizationInfo{}, plantedPlans, false
}

// visualize writes porcupine's visualization of info to path. It returns path, or why it could
// not.
func visualize(info porcupine.LinearizationInfo, path string) string {
	if err := porcupine.VisualizePath(keyModel, info, path); err != nil {
		return fmt.Sprintf("no visualization: %v", err)
	}
	return path
}

// failurePath is where TestPSPIsLinearizable writes the visualization of a failing history: the
// file LINEARIZABILITY_HTML names, else one file per test process in the temporary directory.
// Each failure overwrites it, so it ends with the history rapid shrank to.
func failurePath() string {
	if path := os.Getenv("LINEARIZABILITY_HTML"); path != "" {
		return path
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("psp-linearizability-%d.html", os.Getpid()))
}

// answerCounts counts the histories, their operations and their requests' answers by kind.
type answerCounts struct {
	mu                    sync.Mutex
	histories, operations int
	most                  int
	requests              [answerOther + 1]int
}

func (c *answerCounts) add(history []porcupine.Operation) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.histories++
	c.operations += len(history)
	c.most = max(c.most, len(history))
	for _, op := range history {
		if op.Input.(keyInput).Step != stepCommit {
			c.requests[op.Output.(keyOutput).Kind]++
		}
	}
}

// answerNames are the answers that a run of 100 histories or more must meet: otherwise the rule
// of keyModel that classes it went unchecked.
var answerNames = map[answerKind]string{
	answerFresh: "fresh answer", answerReplay: "replay", answerInUse: "409 in use",
	answerReused: "422 reused", answerLost: "lost answer", answerNone: "client that gave up",
}

func (c *answerCounts) covers() error {
	var missing []string
	for kind, name := range answerNames {
		if c.requests[kind] == 0 {
			missing = append(missing, name)
		}
	}
	if c.histories >= 100 && len(missing) > 0 {
		return fmt.Errorf("%d histories met no %s", c.histories, strings.Join(missing, ", no "))
	}
	return nil
}

func (c *answerCounts) String() string {
	r := c.requests
	return fmt.Sprintf("%d histories, %d operations each on average (at most %d); requests: %d fresh, "+
		"%d replayed, %d 409 in use, %d 422 reused, %d answers lost, %d given up", c.histories,
		c.operations/max(c.histories, 1), c.most, r[answerFresh], r[answerReplay], r[answerInUse], r[answerReused],
		r[answerLost], r[answerNone])
}
