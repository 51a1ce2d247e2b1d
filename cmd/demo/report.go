package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"pixretry/pix"
)

// keyPrefixLen is how much of an Idempotency-Key the output shows.
const keyPrefixLen = 8

// conclude reads the PSP's ledger and balance, prints the summary, checks every expectation,
// and prints the closing line when they all hold.
func conclude(ctx context.Context, ctl control, t target, startCents int64, results []result) error {
	ledger, err := ctl.settlements(ctx)
	if err != nil {
		return err
	}
	finalCents, err := ctl.balanceCents(ctx)
	if err != nil {
		return err
	}
	printSummary(t.Out, results)
	fmt.Fprintf(t.Out, "\nledger: %d settlements; balance %s -> %s\n",
		len(ledger), formatCents(startCents), formatCents(finalCents))
	if t.External {
		fmt.Fprintf(t.Out, "note: the PSP stays down until scenario 5's %v window closes "+
			"(POST /_psp/reset closes it at once; the next run of the demo resets first)\n", downFor)
	}
	if err := check(results, ledger, startCents, finalCents); err != nil {
		return err
	}
	fmt.Fprintf(t.Out, "PSP recorded %d settlements for %d successful payments\n", len(ledger), successes(results))
	return nil
}

// printResult writes how a scenario's payment ended; for a failure, with the root cause of
// its final error.
func printResult(w io.Writer, r result) {
	switch {
	case r.settled():
		fmt.Fprintf(w, "=> settled %s to %s as %s (attempts %d, replayed %t)\n",
			formatCents(r.Receipt.AmountCents), r.Receipt.PixKey, r.Receipt.EndToEndID, r.Receipt.Attempts, r.Receipt.Replayed)
	case errors.Is(r.Err, pix.ErrInsufficientFunds):
		fmt.Fprintf(w, "=> refused after %d attempt(s), not retried (pix.ErrInsufficientFunds): %v\n",
			len(r.Sent), rootCause(r.Err))
	case errors.Is(r.Err, pix.ErrOutcomeUnknown):
		fmt.Fprintf(w, "=> outcome unknown after %d attempt(s) (pix.ErrOutcomeUnknown); the last attempt's error: %v\n",
			len(r.Sent), rootCause(r.Err))
	default:
		fmt.Fprintf(w, "=> failed after %d attempt(s): %v\n", len(r.Sent), r.Err)
	}
}

// rootCause follows err's chain of single wraps to its end: the transport's or the PSP's own
// error, without the addresses and attempt counts the wrappers add.
func rootCause(err error) error {
	for next := err; next != nil; next = errors.Unwrap(next) {
		err = next
	}
	return err
}

// printSummary writes one row per scenario.
func printSummary(w io.Writer, results []result) {
	fmt.Fprintln(w, "\n== Summary")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tattempts\toutcome\tkey\treplayed")
	for i, r := range results {
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\n", i+1, len(r.Sent), outcomeOf(r), prefix(r.key()), replayedOf(r))
	}
	tw.Flush()
}

// outcomeOf names how a payment ended.
func outcomeOf(r result) string {
	switch {
	case r.settled():
		return "settled"
	case errors.Is(r.Err, pix.ErrInsufficientFunds):
		return "refused: insufficient funds"
	case errors.Is(r.Err, pix.ErrOutcomeUnknown):
		return "failed: outcome unknown"
	}
	return fmt.Sprintf("failed: %v", r.Err)
}

// replayedOf says whether a settlement came from a replayed answer; "-" when none came.
func replayedOf(r result) string {
	switch {
	case !r.settled():
		return "-"
	case r.Receipt.Replayed:
		return "yes"
	}
	return "no"
}

// successes counts the payments that settled.
func successes(results []result) int {
	n := 0
	for _, r := range results {
		if r.settled() {
			n++
		}
	}
	return n
}

// prefix is the start of an Idempotency-Key, enough to tell payments apart in the output.
func prefix(key string) string {
	return key[:min(len(key), keyPrefixLen)]
}
