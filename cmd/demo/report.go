package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"pixretry/pix"
	"pixretry/psp"
)

// keyShownLen is how much of an idempotency key the output shows.
const keyShownLen = 8

// printStart says which PSP the demo runs against, in which dialect, with which policy, and
// from which balance. The dialect goes unsaid when it is the default, pix.
func printStart(t *target, start int64) {
	against := "an in-process PSP"
	if t.External {
		against = "the PSP at " + t.BaseURL
	}
	if t.Dialect.Name != dialects[0].Name {
		against += ", in dialect " + t.Dialect.Name
	}
	fmt.Fprintf(t.Out, "pix retry demo against %s (seed %d)\n", against, t.Seed)
	fmt.Fprintf(t.Out, "policy: %d attempts, waits in [0, %v·2^(n-1)] capped at %v, %v per attempt (worst case %v)\n",
		policy.AttemptsMax, policy.DelayBase, policy.DelayMax, attemptTimeout, worstCaseBudget(policy, attemptTimeout))
	fmt.Fprintf(t.Out, "PSP reset (a re-run starts clean): keys, ledger, faults and balance back to the start; balance %s\n",
		psp.FormatAmount(start))
}

// printResult writes how a scenario's payment ended, after a line saying that Send ended it
// pending if it did. A failure comes with the root cause of its error.
func printResult(w io.Writer, r result) {
	if r.awaited() {
		fmt.Fprintf(w, "=> pending after %d attempt(s) (pix.ErrPending): the PSP accepted it; the demo awaits it\n",
			r.Pending.Attempts)
	}
	switch {
	case r.settled() && r.awaited():
		fmt.Fprintf(w, "=> settled %s to %s as %s (lookups %d)\n", psp.FormatAmount(r.Receipt.AmountCents),
			r.Receipt.PixKey, r.Receipt.EndToEndID, r.Receipt.Attempts)
	case r.settled():
		fmt.Fprintf(w, "=> settled %s to %s as %s (attempts %d, replayed %t)\n", psp.FormatAmount(r.Receipt.AmountCents),
			r.Receipt.PixKey, r.Receipt.EndToEndID, r.Receipt.Attempts, r.Receipt.Replayed)
	case errors.Is(r.Err, pix.ErrInsufficientFunds):
		fmt.Fprintf(w, "=> refused after %d attempt(s), not retried (pix.ErrInsufficientFunds): %v\n", len(r.Sent), rootCause(r.Err))
	case errors.Is(r.Err, pix.ErrRejected):
		fmt.Fprintf(w, "=> refused after %d attempt(s), not retried (pix.ErrRejected): %v\n", len(r.Sent), rootCause(r.Err))
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
// then the client's metrics. A row counts the payment requests (attempts) and, in a dialect
// that looks payments up, the lookups that the client sent for its payment, which reached the
// PSP (the check holds its own count to them).
func printSummary(t *target, results []result, settlements int, start, final int64, metrics clientMetrics) {
	fmt.Fprintln(t.Out, "\n== Summary")
	tw := tabwriter.NewWriter(t.Out, 0, 0, 2, ' ', 0)
	// row writes the cells of a row, without the lookups (the third) in a dialect that makes none.
	row := func(cells ...string) {
		if !t.Dialect.looksUp() {
			cells = slices.Delete(cells, 2, 3)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	row("scenario", "attempts", "lookups", "outcome", "key", "replayed")
	for i, r := range results {
		replayed := "-"
		if r.settled() {
			replayed = map[bool]string{false: "no", true: "yes"}[r.Receipt.Replayed]
		}
		row(strconv.Itoa(i+1), strconv.Itoa(len(r.Sent)), strconv.Itoa(len(r.Looked)), outcomeOf(r), t.Dialect.Short(r.key()),
			replayed)
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
	case errors.Is(r.Err, pix.ErrRejected):
		return "refused: rejected"
	case errors.Is(r.Err, pix.ErrOutcomeUnknown):
		return "failed: outcome unknown"
	}
	return fmt.Sprintf("failed: %v", r.Err)
}

// prefix is the start of an idempotency key, keyShownLen characters: enough to tell random
// keys apart in the output.
func prefix(key string) string {
	return key[:min(len(key), keyShownLen)]
}

// suffix is the end of an idempotency key, keyShownLen characters: enough to tell apart keys
// that open with their time, such as UUIDv7s.
func suffix(key string) string {
	return key[max(0, len(key)-keyShownLen):]
}

// newLogger returns the logger of the demo's pix.Client: slog text lines on w, trimmed by
// compact, with keys cut by short.
func newLogger(w io.Writer, short func(key string) string) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		return compact(a, short)
	}}))
}

// compact trims a record so that, for a given seed, it reads the same on every run. It drops the
// time, the elapsed time and the error text, which names the PSP's port and the client's (the
// outcome attribute names the reason, and the demo prints each payment's final error itself).
// It cuts keys with short and rounds waits to the microsecond.
func compact(a slog.Attr, short func(key string) string) slog.Attr {
	switch a.Key {
	case slog.TimeKey, "elapsed", "error":
		return slog.Attr{}
	case "key":
		return slog.String(a.Key, short(a.Value.String()))
	case "wait":
		return slog.Duration(a.Key, a.Value.Duration().Round(time.Microsecond))
	}
	return a
}
