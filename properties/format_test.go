package properties

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// String prints the trace for a failure report: each call with its attempts and round trips,
// its lookup's after them, then the PSP's side of the wire and its books. Instants are offsets
// from the first call.
func (tr Trace) String() string {
	var b strings.Builder
	var t0 time.Time
	if len(tr.Calls) > 0 {
		t0 = slices.MinFunc(tr.Calls, func(a, b Call) int { return a.Start.Compare(b.Start) }).Start
	}
	at := func(t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return "+" + t.Sub(t0).String()
	}
	for i, c := range tr.Calls {
		fmt.Fprintf(&b, "call %d (payment of call %d) key %q %s→%s receipt %+v err %v\n", i, c.Chain, c.Key(),
			at(c.Start), at(c.End), c.Receipt, c.Err)
		if c.Resumed != nil {
			fmt.Fprintf(&b, "  resumes key %q first sent at %s\n", c.Resumed.Key, at(c.Resumed.FirstSent))
		}
		for k, ph := range c.phases() {
			for j, a := range ph.Attempts {
				fmt.Fprintf(&b, "  %sattempt %d at %s outcome %q transient=%v wait=%v error %q\n", phaseKinds[k], a.Number,
					at(a.At), a.Outcome, a.Transient, a.Wait, a.Error)
				if j < len(ph.Trips) {
					t := ph.Trips[j]
					fmt.Fprintf(&b, "    trip %d %s→%s status %d retry-after %q replayed=%v err %v body err %v\n",
						t.Number, at(t.Start), at(t.End), t.Status, t.RetryAfter, t.Replayed, t.Err, t.BodyErr)
				}
			}
		}
	}
	for _, ex := range tr.Wire {
		what := "pays"
		if ex.Lookup {
			what = "looks up"
		}
		fmt.Fprintf(&b, "psp %s trip %d %s key %q → %d replayed=%v hijacked=%v at %s %s\n", at(ex.Arrived), ex.Trip,
			what, ex.Key, ex.Status, ex.Replayed, ex.Hijacked, at(ex.Answered), strings.TrimSpace(string(ex.Body)))
	}
	for _, s := range tr.Ledger {
		fmt.Fprintf(&b, "ledger %s key %q %d cents at %s\n", s.EndToEndID, s.IdempotencyKey, s.AmountCents,
			at(s.SettledAt))
	}
	fmt.Fprintf(&b, "balance %d → %d cents; keys kept %v, by the clients %v\n", tr.BalanceStart, tr.BalanceEnd,
		tr.KeyTTL, tr.ClientKeyTTL)
	return b.String()
}
