package properties

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"pixretry/pix"
)

// paymentEvents are what every payment property must reach in a hundred runs.
var paymentEvents = []string{
	"call: retried", "call: settled", "call: settled on a replay", "call: outcome unknown",
	"call: budget spent", "answer: transport error", "call: the PSP broke the contract",
}

// events names what happened in tr.
func events(tr Trace) map[string]bool {
	seen := map[string]bool{}
	note := func(event string, happened bool) { seen[event] = seen[event] || happened }
	for i, c := range tr.Calls {
		if last, ok := lastOf(c.Tickets); ok && last.Refused != nil {
			note("breaker: refused a first attempt", len(c.Tickets) == 1)
			note("breaker: refused a retry", len(c.Tickets) > 1)
			note("breaker: outcome unknown when refused", errors.Is(c.Err, pix.ErrOutcomeUnknown))
		}
		for _, tk := range c.Tickets {
			for _, t := range c.admittedTrips(tk) {
				note("breaker: counted a refusal as a success", t.Status/100 == 4 && t.Status != 429 && tk.Counted == nil)
			}
		}
		note("call: "+callOutcome(c), true)
		note("call: retried", len(c.Attempts) > 1)
		note("call: budget spent", len(c.Attempts) == tr.Policy.AttemptsMax && c.Err != nil)
		note("call: the PSP broke the contract", errors.Is(c.Err, pix.ErrContract))
		note("call: SendWithKey", c.GivenKey != "" && c.Resumed == nil)
		note("call: resumed", c.Resumed != nil)
		note("call: resumed, resent", c.Resumed != nil && len(c.Trips) > 0)
		note("call: resumed, looked up", c.lookedUp())
		note("call: stopped at the key deadline", stoppedByKeyDeadline(c))
		note("call: paid again under a new key", c.Chain != i && c.GivenKey == "" && c.Key() != "")
		note("call: ended by the caller's deadline", !c.Deadline.IsZero() && errors.Is(c.Err, context.DeadlineExceeded))
		for _, l := range c.Lines {
			conn := map[bool]string{false: ", fresh connection", true: ", pooled connection"}[l.Pooled]
			if l.Fault.failsDial() {
				conn = ""
			}
			note("line: "+l.Fault.String()+conn, l.Fault != lineIntact)
		}
		for _, t := range c.Trips {
			_, err := time.Parse(http.TimeFormat, t.RetryAfter)
			note("answer: Retry-After as an HTTP-date", err == nil)
			note("answer: Retry-After", hintOf(t) > 0)
			note("answer: transport error", t.Err != nil)
			note("answer: body cut short", t.BodyErr != nil)
		}
	}
	for _, ex := range tr.Wire {
		if ex.Lookup {
			note(fmt.Sprintf("lookup: %d %s", ex.Status, problemCode(ex.Body)), true)
		}
		note("psp: key closed", problemCode(ex.Body) == "idempotency_key_closed")
		note("answer: header too long", ex.HeaderBytes > headerLimit)
		note("psp: no answer", ex.Status == 0)
		note("psp: replay", ex.Replayed)
	}
	return seen
}

// callOutcome names how a call ended.
func callOutcome(c Call) string {
	switch {
	case c.Err == nil && c.lookedUp():
		return "found by a lookup"
	case c.Err == nil && c.Receipt.Replayed:
		return "settled on a replay"
	case c.Err == nil:
		return "settled"
	case errors.Is(c.Err, pix.ErrNoSettlement):
		return "no settlement"
	case errors.Is(c.Err, pix.ErrKeyExpired):
		return "outcome unknown at the key deadline"
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
