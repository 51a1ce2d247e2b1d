package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"text/tabwriter"
	"time"

	"pixretry/pix"
	"pixretry/psp"
)

// keyPrefixLen is how much of an Idempotency-Key the output shows.
const keyPrefixLen = 8

// printStart says which PSP the demo runs against, with which policy, and from which balance.
func printStart(t *target, start int64) {
	against := "an in-process PSP"
	if t.External {
		against = "the PSP at " + t.BaseURL
	}
	fmt.Fprintf(t.Out, "pix retry demo against %s (seed %d)\n", against, t.Seed)
	fmt.Fprintf(t.Out, "policy: %d attempts, waits in [0, %v·2^(n-1)] capped at %v, %v per attempt (worst case %v)\n",
		policy.AttemptsMax, policy.DelayBase, policy.DelayMax, attemptTimeout, worstCaseBudget(policy, attemptTimeout))
	fmt.Fprintf(t.Out, "PSP reset (a re-run starts clean): keys, ledger, faults and balance back to the start; balance %s\n",
		psp.FormatAmount(start))
}

// printResult writes how a scenario's payment ended. A failure comes with the root cause of its
// error.
func printResult(w io.Writer, r result) {
	switch {
	case r.settled():
		fmt.Fprintf(w, "=> settled %s to %s as %s (attempts %d, replayed %t)\n", psp.FormatAmount(r.Receipt.AmountCents),
			r.Receipt.PixKey, r.Receipt.EndToEndID, r.Receipt.Attempts, r.Receipt.Replayed)
	case errors.Is(r.Err, pix.ErrInsufficientFunds):
		fmt.Fprintf(w, "=> refused after %d attempt(s), not retried (pix.ErrInsufficientFunds): %v\n", len(r.Sent), rootCause(r.Err))
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

// printSummary writes one row per scenario, then the ledger's size and the balance's move,
// then the client's metrics.
func printSummary(t *target, results []result, settlements int, start, final int64, metrics clientMetrics) {
	fmt.Fprintln(t.Out, "\n== Summary")
	tw := tabwriter.NewWriter(t.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tattempts\toutcome\tkey\treplayed")
	for i, r := range results {
		replayed := "-"
		if r.settled() {
			replayed = map[bool]string{false: "no", true: "yes"}[r.Receipt.Replayed]
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\n", i+1, len(r.Sent), outcomeOf(r), prefix(r.key()), replayed)
	}
	tw.Flush()
	fmt.Fprintf(t.Out, "\nledger: %d settlements; balance %s -> %s\n", settlements, psp.FormatAmount(start), psp.FormatAmount(final))
	printMetrics(t.Out, metrics)
	if t.External {
		fmt.Fprintf(t.Out, "note: the PSP stays down until scenario 5's %v window closes "+
			"(POST /_psp/reset closes it at once; the next run of the demo resets first)\n", downFor)
	}
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

// prefix is the start of an Idempotency-Key, enough to tell payments apart in the output.
func prefix(key string) string {
	return key[:min(len(key), keyPrefixLen)]
}

// newLogger returns the logger of the demo's pix.Client: slog text lines on w, trimmed by
// compact.
func newLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{ReplaceAttr: compact}))
}

// compact trims a record so that, for a given seed, it reads the same on every run. It drops the
// time, the elapsed time and the error text, which names the PSP's port and the client's (the
// outcome attribute names the reason, and the demo prints each payment's final error itself).
// It cuts keys to their prefix and rounds waits to the microsecond.
func compact(_ []string, a slog.Attr) slog.Attr {
	switch a.Key {
	case slog.TimeKey, "elapsed", "error":
		return slog.Attr{}
	case "key":
		return slog.String(a.Key, prefix(a.Value.String()))
	case "wait":
		return slog.Duration(a.Key, a.Value.Duration().Round(time.Microsecond))
	}
	return a
}
