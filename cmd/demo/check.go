package main

import (
	"errors"
	"fmt"
)

// expectationError is one expectation the demo saw broken. check joins one per breach.
type expectationError struct {
	// Scenario is the 1-based number of the scenario that broke it; 0 for the ledger as a whole.
	Scenario int
	Title    string // the scenario's title; empty for the ledger
	What     string // what differed, with the value seen and the value wanted
}

func (e *expectationError) Error() string {
	if e.Scenario == 0 {
		return "demo: ledger: " + e.What
	}
	return fmt.Sprintf("demo: scenario %d (%s): %s", e.Scenario, e.Title, e.What)
}

// check holds the results of the scenarios, in order, against their expectations and against
// the PSP's ledger and balance (startCents after the reset, finalCents at the end). It returns
// nil when every expectation holds, else every breach as an *expectationError, joined.
func check(results []result, ledger []settlement, startCents, finalCents int64) error {
	byKey := make(map[string][]settlement, len(ledger))
	for _, s := range ledger {
		byKey[s.IdempotencyKey] = append(byKey[s.IdempotencyKey], s)
	}
	var errs []error
	for i, r := range results {
		breaches := checkOutcome(r)
		breaches = append(breaches, checkAttempts(r)...)
		breaches = append(breaches, checkLedgerEntry(r, byKey[r.key()])...)
		for _, what := range breaches {
			errs = append(errs, &expectationError{Scenario: i + 1, Title: r.Scenario.Title, What: what})
		}
	}
	for _, what := range checkTotals(results, ledger, startCents, finalCents) {
		errs = append(errs, &expectationError{What: what})
	}
	return errors.Join(errs...)
}

// key is the Idempotency-Key the scenario's payment went out with (the first request's); ""
// if no request went out.
func (r result) key() string {
	if len(r.Sent) == 0 {
		return ""
	}
	return r.Sent[0].Key
}

// settled reports whether the payment succeeded.
func (r result) settled() bool { return r.Err == nil }

// checkTotals holds the ledger as a whole against the results: one settlement per successful
// payment and nothing else, and a balance debited by exactly their amounts.
func checkTotals(results []result, ledger []settlement, startCents, finalCents int64) []string {
	var breaches []string
	paid := int64(0)
	for _, r := range results {
		if r.settled() {
			paid += r.Payment.AmountCents
		}
	}
	if n := successes(results); len(ledger) != n {
		breaches = append(breaches, fmt.Sprintf("%d settlements recorded for %d successful payments", len(ledger), n))
	}
	if want := startCents - paid; finalCents != want {
		breaches = append(breaches, fmt.Sprintf("balance %s, want %s - %s = %s",
			formatCents(finalCents), formatCents(startCents), formatCents(paid), formatCents(want)))
	}
	return breaches
}
