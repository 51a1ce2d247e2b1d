package properties

import (
	"fmt"
	"strings"
	"time"

	"pixretry/psp"
)

// GoString prints a scenario the way rapid logs a draw (%#v), one readable line per part, so
// that a shrunk counterexample reads as a story.
func (sc scenario) GoString() string {
	var b strings.Builder
	fmt.Fprintf(&b, "policy AttemptsMax=%d DelayBase=%v DelayMax=%v AttemptTimeout=%v balance=%s\n",
		sc.Policy.AttemptsMax, sc.Policy.DelayBase, sc.Policy.DelayMax, sc.AttemptTimeout, formatAmount(sc.BalanceCents))
	fmt.Fprintf(&b, "  faults %s\n", formatFaults(sc.Faults))
	if len(sc.Gateway) > 0 {
		fmt.Fprintf(&b, "  gateway %+v\n", sc.Gateway)
	}
	if len(sc.Line) > 0 {
		fmt.Fprintf(&b, "  line %v\n", sc.Line)
	}
	for i, c := range sc.Calls {
		how := "Send"
		deadline := "no deadline"
		if c.Deadline > 0 {
			deadline = fmt.Sprintf("deadline +%v", c.Deadline)
		}
		switch {
		case c.Reconcile:
			fmt.Fprintf(&b, "  call %d at +%v after call %d returns: SendWithKey(its key, its payment), %s, jitter %v\n", i,
				c.After, i-1, deadline, c.Jitter)
			continue
		case c.Key != "":
			how = fmt.Sprintf("SendWithKey(%q)", c.Key)
		}
		fmt.Fprintf(&b, "  call %d at +%v: %s %d cents to %q, description %q, %s, jitter %v\n",
			i, c.After, how, c.Payment.AmountCents, c.Payment.PixKey, c.Payment.Description, deadline, c.Jitter)
	}
	return b.String()
}

func formatFaults(faults []psp.Fault) string {
	if len(faults) == 0 {
		return "none"
	}
	parts := make([]string, len(faults))
	for i, f := range faults {
		switch f.Kind {
		case faultStatus, faultCommitStatus, faultRedirect:
			parts[i] = fmt.Sprintf("%s %d", f.Kind, f.Status)
			if f.RetryAfter > 0 {
				parts[i] += fmt.Sprintf(" retry-after %v", f.RetryAfter)
			}
		case faultSlow, faultLate, faultDown, psp.FaultDuplicate:
			parts[i] = fmt.Sprintf("%s %v", f.Kind, f.Duration)
		default:
			parts[i] = strings.TrimSpace(fmt.Sprintf("%s %s %s", f.Kind, f.Breach, f.Member))
		}
	}
	return strings.Join(parts, ", ")
}

// String prints the trace for a failure report: each call with its attempts and round trips,
// then the PSP's side of the wire and its books. Instants are offsets from the first call.
func (tr Trace) String() string {
	var b strings.Builder
	t0 := tr.origin()
	at := func(t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return "+" + t.Sub(t0).String()
	}
	for i, c := range tr.Calls {
		fmt.Fprintf(&b, "call %d key %q %s→%s receipt %+v err %v\n", i, c.Key(), at(c.Start), at(c.End), c.Receipt, c.Err)
		for j, a := range c.Attempts {
			fmt.Fprintf(&b, "  attempt %d at %s outcome %q transient=%v wait=%v error %q\n", a.Number, at(a.At), a.Outcome,
				a.Transient, a.Wait, a.Error)
			if j < len(c.Trips) {
				t := c.Trips[j]
				fmt.Fprintf(&b, "    trip %s→%s status %d retry-after %q replayed=%v err %v body err %v\n", at(t.Start),
					at(t.End), t.Status, t.RetryAfter, t.Replayed, t.Err, t.BodyErr)
			}
		}
	}
	for _, ex := range tr.Wire {
		fmt.Fprintf(&b, "psp %s key %q → %d replayed=%v hijacked=%v at %s %s\n", at(ex.Arrived), ex.Key, ex.Status,
			ex.Replayed, ex.Hijacked, at(ex.Answered), strings.TrimSpace(string(ex.Body)))
	}
	for _, s := range tr.Ledger {
		fmt.Fprintf(&b, "ledger %s key %q %d cents at %s\n", s.EndToEndID, s.IdempotencyKey, s.AmountCents, at(s.SettledAt))
	}
	fmt.Fprintf(&b, "balance %d → %d cents\n", tr.BalanceStart, tr.BalanceEnd)
	return b.String()
}

// origin is the earliest call start, the zero of the instants String prints.
func (tr Trace) origin() time.Time {
	var t0 time.Time
	for _, c := range tr.Calls {
		if t0.IsZero() || c.Start.Before(t0) {
			t0 = c.Start
		}
	}
	return t0
}
