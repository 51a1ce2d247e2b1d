package main

import (
	"context"
	"fmt"
	"io"

	"pixretry/durable"
)

// shownPending is how many pending intents the summary names, each with why it waits.
const shownPending = 5

// summarize writes to w what the database holds once run has ended: its intents by status,
// then the first pending ones, each with the error that keeps it waiting.
func summarize[TTx any](ctx context.Context, p *durable.Payer[TTx], w io.Writer) error {
	s, err := p.Stats(ctx)
	if err != nil {
		return err
	}
	n := s.Intents
	pending := n[durable.StatusPending] + n[durable.StatusOverdue]
	fmt.Fprintf(w, "pixpay: run ended; the database holds %d settled, %d refused and %d pending intents",
		n[durable.StatusSettled], n[durable.StatusRefused], pending)
	if n[durable.StatusOverdue] > 0 {
		fmt.Fprintf(w, " (%d overdue)", n[durable.StatusOverdue])
	}
	fmt.Fprintln(w)
	if pending == 0 {
		return nil
	}
	shown := 0
	for in, err := range p.Intents(ctx) {
		if err != nil {
			return err
		}
		if in.Status != durable.StatusPending && in.Status != durable.StatusOverdue {
			continue
		}
		if shown == shownPending {
			break
		}
		shown++
		fmt.Fprintf(w, "pixpay: %s %s waits: %s\n", in.Status, in.ID, why(in))
	}
	if more := pending - int64(shown); more > 0 {
		fmt.Fprintf(w, "pixpay: and %d more pending; pixpay list shows them all\n", more)
	}
	fmt.Fprintln(w, "pixpay: pending intents keep their keys: run again resumes them, and pays each at most once")
	return nil
}

// why says why the pending intent in waits.
func why(in durable.Intent) string {
	if in.Error != "" {
		return in.Error
	}
	if in.Attempts == 0 {
		return "never sent yet"
	}
	return "its last attempt was cut short by the run's end"
}
