package properties

import (
	"errors"
	"testing"

	"pgregory.net/rapid"

	"pixretry/pix"
)

// TestBreakerKeepsInvariants: up to five calls, interleaved in virtual time, share a real
// gobreaker two-step breaker drawn at random in front of the generated PSP faults, and keep
// every invariant: those of the Retry Pattern, and invariants 12 to 15 on the breaker (an
// attempt it refused never reaches the wire, an honest ErrCircuitOpen, refusals counted as
// successes, counts that match the wire). The runs reach an open breaker that refuses a first
// attempt and one that refuses a retry after a request that may have settled.
func TestBreakerKeepsInvariants(t *testing.T) {
	var cov coverage
	rapid.Check(t, checkScenarios(breakerScenarios(), &cov))
	t.Log(&cov)
	cov.require(t, 100, breakerEvents...)
}

// breakerScenarios are the runs of TestBreakerKeepsInvariants: interleaved calls, and a breaker
// that trips after 1 to 5 consecutive failures, stays open 0 to 5 s and lets 1 to 3 probes
// through when half-open.
func breakerScenarios() *rapid.Generator[scenario] {
	calls := interleavedScenarios()
	return rapid.Custom(func(t *rapid.T) scenario {
		sc := calls.Draw(t, "scenario")
		sc.Breaker = &breakerSettings{
			Failures:    rapid.Uint32Range(1, 5).Draw(t, "breaker failures"),
			Timeout:     msRange(0, 5000).Draw(t, "breaker timeout"),
			MaxRequests: rapid.Uint32Range(1, 3).Draw(t, "breaker probes"),
		}
		return sc
	})
}

// breakerEvents are what the runs of TestBreakerKeepsInvariants must reach.
var breakerEvents = []string{
	"breaker: refused a first attempt", "breaker: refused a retry", "breaker: outcome unknown when refused",
	"breaker: counted a refusal as a success", "call: settled",
}

// breakerEventsOf names what the breaker did in tr.
func breakerEventsOf(tr Trace) map[string]bool {
	seen := map[string]bool{}
	for _, c := range tr.Calls {
		last, ok := lastOf(c.Tickets)
		if ok && last.Refused != nil {
			seen["breaker: refused a first attempt"] = seen["breaker: refused a first attempt"] || len(c.Tickets) == 1
			seen["breaker: refused a retry"] = seen["breaker: refused a retry"] || len(c.Tickets) > 1
			if errors.Is(c.Err, pix.ErrOutcomeUnknown) {
				seen["breaker: outcome unknown when refused"] = true
			}
		}
		for _, tk := range c.Tickets {
			for _, trip := range c.admittedTrips(tk) {
				if trip.Status/100 == 4 && trip.Status != 429 && tk.Counted == nil {
					seen["breaker: counted a refusal as a success"] = true
				}
			}
		}
	}
	return seen
}
