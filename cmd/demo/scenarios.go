package main

import (
	"time"

	"pixretry/pix"
	"pixretry/psp"
	scenariofiles "pixretry/psp/scenarios"
	"pixretry/retry"
)

// policy is the client's: small real delays, so that the whole demo runs in about a second.
var policy = retry.Policy{AttemptsMax: 4, DelayBase: 50 * time.Millisecond, DelayMax: 400 * time.Millisecond}

// attemptTimeout limits each attempt.
const attemptTimeout = 300 * time.Millisecond

// scenario is one situation of the Retry Pattern: the faults queued on the PSP before a payment,
// and the payment. What must come of it depends on the dialect (see dialect.Want).
type scenario struct {
	Title string
	// Faults are those of the scenario's file in psp/scenarios, which cmd/psp also loads.
	Faults []psp.Fault
	// Payment is the payment to send. An AmountCents of 0 stands for one cent more than the
	// payer's balance just before, the smallest amount the PSP must refuse.
	Payment pix.Payment
}

// scenarios are the five situations the demo walks, in order.
var scenarios = []scenario{
	{
		Title:   "the PSP answers on the first attempt",
		Faults:  mustFaults("first-attempt"),
		Payment: pix.Payment{AmountCents: 15000, PixKey: "maria@example.com", Description: "lunch"},
	},
	{
		Title:   "two 503 in a row, then success on the third attempt",
		Faults:  mustFaults("two-503s"),
		Payment: pix.Payment{AmountCents: 20000, PixKey: "+5511987654321", Description: "rent share"},
	},
	{
		Title:   "the PSP settles but answers after the attempt timeout; the retry gets the stored answer",
		Faults:  mustFaults("late-answer"),
		Payment: pix.Payment{AmountCents: 10000, PixKey: "123e4567-e89b-42d3-a456-426614174000", Description: "books"},
	},
	{
		Title:   "an amount above the balance is refused and not retried",
		Faults:  mustFaults("insufficient-funds"),
		Payment: pix.Payment{PixKey: "12345678909", Description: "a car"},
	},
	{
		Title:   "the PSP is down for longer than the retry budget",
		Faults:  mustFaults("down-past-budget"),
		Payment: pix.Payment{AmountCents: 5000, PixKey: "11222333000181", Description: "supplies"},
	},
}

// lateBy is how long scenario 3's PSP holds its answer after settling. It is longer than
// attemptTimeout, so the first attempt gives up before the answer comes. downFor is how long
// scenario 5's PSP stays down. It is longer than the worst case of the whole retry budget (see
// worstCaseBudget), so no attempt can reach the PSP. TestFaultsAreSizedAgainstThePolicy holds
// both to it.
var lateBy, downFor = durationOf(scenarios[2].Faults, "late"), durationOf(scenarios[4].Faults, "down")

// mustFaults is the faults of the scenario file NAME.json. The files are built into the
// command, and package scenarios' TestEveryFileLoads holds each valid.
func mustFaults(name string) []psp.Fault {
	faults, err := scenariofiles.Faults(name)
	if err != nil {
		panic(err)
	}
	return faults
}

// durationOf is the Duration of the first fault of kind in faults, or 0 if there is none.
func durationOf(faults []psp.Fault, kind string) time.Duration {
	for _, f := range faults {
		if f.Kind == kind {
			return f.Duration
		}
	}
	return 0
}

// worstCaseBudget is the longest a payment can take under p when every attempt runs into its
// timeout and every wait is drawn at its ceiling.
func worstCaseBudget(p retry.Policy, timeout time.Duration) time.Duration {
	total := time.Duration(p.AttemptsMax) * timeout
	for n := 1; n < p.AttemptsMax; n++ { // the waits after attempts 1 to AttemptsMax-1
		total += retry.Ceiling(p, n)
	}
	return total
}
