package properties

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"pixretry/pix"
)

// coverage counts, over the checks of a property, the runs in which each event of interest
// happened, so that the test log shows what the generators actually exercise: a property that
// passes because its runs never reach a retry proves little. It is safe for concurrent use.
type coverage struct {
	mu     sync.Mutex
	runs   int
	events map[string]int
}

// require fails t if, over at least minRuns runs, one of events never happened. Give it events
// that happen in a sixth of the runs or more: missing one in a hundred runs then means that the
// generators no longer reach it (by chance: 0.83^100 ≈ 10⁻⁸). Fewer runs (go test -short)
// prove nothing either way and are let through.
func (cov *coverage) require(t *testing.T, minRuns int, events ...string) {
	t.Helper()
	cov.mu.Lock()
	defer cov.mu.Unlock()
	if cov.runs < minRuns {
		return
	}
	for _, e := range events {
		if cov.events[e] == 0 {
			t.Errorf("in %d runs, no %q: the generators no longer reach it", cov.runs, e)
		}
	}
}

// add counts the events of one trace.
func (cov *coverage) add(tr Trace) { cov.addSeen(events(tr)) }

// addSeen counts one run in which the events set true in seen happened.
func (cov *coverage) addSeen(seen map[string]bool) {
	cov.mu.Lock()
	defer cov.mu.Unlock()
	if cov.events == nil {
		cov.events = map[string]int{}
	}
	cov.runs++
	for e, happened := range seen {
		if happened {
			cov.events[e]++
		}
	}
}

// String is one line per event: in how many runs it happened.
func (cov *coverage) String() string {
	cov.mu.Lock()
	defer cov.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "%d runs:", cov.runs)
	for _, e := range slices.Sorted(maps.Keys(cov.events)) {
		fmt.Fprintf(&b, "\n  %5d  %s", cov.events[e], e)
	}
	return b.String()
}

// The events every payment property must reach in a hundred runs.
var paymentEvents = []string{
	"call: retried", "call: settled", "call: settled on a replay", "call: outcome unknown",
	"call: budget spent", "answer: transport error", "call: the PSP broke the contract",
}

// events names what happened in tr.
func events(tr Trace) map[string]bool {
	seen := map[string]bool{}
	for _, c := range tr.Calls {
		seen["call: "+callOutcome(c)] = true
		if len(c.Attempts) > 1 {
			seen["call: retried"] = true
		}
		if len(c.Attempts) == tr.Policy.AttemptsMax && c.Err != nil {
			seen["call: budget spent"] = true
		}
		if errors.Is(c.Err, pix.ErrContract) {
			seen["call: the PSP broke the contract"] = true
		}
		if c.GivenKey != "" {
			seen["call: SendWithKey"] = true
		}
		if !c.Deadline.IsZero() && errors.Is(c.Err, context.DeadlineExceeded) {
			seen["call: ended by the caller's deadline"] = true
		}
		for _, l := range c.Lines {
			if l.Fault.failsDial() {
				seen["line: "+l.Fault.String()] = true
			} else if l.Fault != lineIntact {
				seen[fmt.Sprintf("line: %v, %s connection", l.Fault, map[bool]string{false: "fresh",
					true: "pooled"}[l.Pooled])] = true
			}
		}
		for _, t := range c.Trips {
			if hintOf(t) > 0 {
				seen["answer: Retry-After"] = true
			}
			if t.Err != nil {
				seen["answer: transport error"] = true
			}
			if t.BodyErr != nil {
				seen["answer: body cut short"] = true
			}
			if _, err := time.Parse(http.TimeFormat, t.RetryAfter); err == nil {
				seen["answer: Retry-After as an HTTP-date"] = true
			}
		}
	}
	for _, ex := range tr.Wire {
		seen[fmt.Sprintf("psp: %d", ex.Status)] = true
		if ex.HeaderBytes > headerLimit {
			seen["answer: header too long"] = true
		}
		if ex.Replayed {
			seen["psp: replay"] = true
		}
	}
	maps.Copy(seen, breakerEventsOf(tr))
	return seen
}

// callOutcome names how a call ended.
func callOutcome(c Call) string {
	switch {
	case c.Err == nil && c.Receipt.Replayed:
		return "settled on a replay"
	case c.Err == nil:
		return "settled"
	case errors.Is(c.Err, pix.ErrOutcomeUnknown):
		return "outcome unknown"
	case errors.Is(c.Err, pix.ErrInsufficientFunds):
		return "insufficient funds"
	case errors.Is(c.Err, pix.ErrKeyReused):
		return "key reused"
	case errors.Is(c.Err, pix.ErrInvalidPayment):
		return "invalid payment"
	}
	return "refused otherwise"
}
