package properties

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
	"pgregory.net/rapid"

	"pixretry/internal/pipenet"
	"pixretry/pix"
	"pixretry/retry"
	"pixretry/retry/retrytest"
)

// TestMain fails the package if a test leaves a goroutine behind: every run closes its pipes
// and waits for the PSP's handlers, so none should outlive its bubble.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestOnePaymentKeepsInvariants: one Send, under any policy and fault sequence, then up to two
// reconciliations under its key, one after the other, keep every invariant. The calls never
// overlap: virtual time fixes the order of every event, and a failure replays exactly.
func TestOnePaymentKeepsInvariants(t *testing.T) {
	checkRuns(t, onePaymentScenarios(), paymentEvents...)
}

// TestInterleavedPaymentsKeepInvariants: up to five calls interleaved in virtual time keep every
// invariant. Some are duplicate senders that share a key, with the same payment or another; some
// reconcile the call before them. The generated start times fix which call meets which fault
// (startGen): a failure replays.
func TestInterleavedPaymentsKeepInvariants(t *testing.T) {
	checkRuns(t, interleavedScenarios(), paymentEvents...)
}

// TestBreakerKeepsInvariants: interleaved calls that share a real gobreaker two-step breaker,
// drawn at random, keep every invariant, 12 to 15 on the breaker included. The breaker trips
// after 1 to 5 consecutive failures, stays open 0 to 5 s and lets 1 to 3 probes through.
func TestBreakerKeepsInvariants(t *testing.T) {
	checkRuns(t, rapid.Custom(func(t *rapid.T) scenario {
		sc := interleavedScenarios().Draw(t, "scenario")
		sc.Breaker = &breakerSettings{Failures: rapid.Uint32Range(1, 5).Draw(t, "breaker failures"),
			Timeout:     retrytest.Millis(0, 5000).Draw(t, "breaker timeout"),
			MaxRequests: rapid.Uint32Range(1, 3).Draw(t, "breaker probes")}
		return sc
	}), "breaker: refused a first attempt", "breaker: refused a retry", "breaker: outcome unknown when refused",
		"breaker: counted a refusal as a success", "call: settled")
}

// TestOutagesPastTheTTLKeepInvariants: one Send through an outage that may outlast its key (the
// PSP down, failing before any processing, losing answers, holding requests), then three
// reconciliations after pauses that may outlast it too, keep every invariant. A reconciliation
// resumes the key, by a resend while the key deadline allows and by a lookup past it, and pays
// again under a new key once a lookup proved the old one unpaid.
func TestOutagesPastTheTTLKeepInvariants(t *testing.T) {
	checkRuns(t, outageScenarios(), "call: resumed, resent", "call: resumed, looked up", "call: found by a lookup",
		"call: no settlement", "call: paid again under a new key", "call: stopped at the key deadline")
}

// TestSameKeySendersKeepInvariants: 2 to 5 pix clients call SendWithKey with one key at once, some
// with another payment. Every invariant holds. The scheduler orders the requests, so rapid may call
// a failure flaky: the trace in the log is then the evidence.
func TestSameKeySendersKeepInvariants(t *testing.T) {
	checkRuns(t, scenarioGen(func(balance int64, _ time.Duration) *rapid.Generator[[]callSpec] {
		return rapid.Custom(func(t *rapid.T) []callSpec {
			first := paymentGen(balance).Draw(t, "payment")
			calls := make([]callSpec, rapid.IntRange(2, 5).Draw(t, "senders"))
			for i := range calls {
				calls[i] = callSpec{Payment: first, Key: "same-instant-key",
					Jitter: retrytest.Draws().Draw(t, fmt.Sprintf("jitter of call %d", i))}
				if i > 0 && rapid.Bool().Draw(t, fmt.Sprintf("call %d sends another payment", i)) {
					calls[i].Payment = paymentGen(balance).Draw(t, fmt.Sprintf("payment %d", i))
				}
			}
			return calls
		})
	}), paymentEvents...)
}

// outageScenarios are the runs of TestOutagesPastTheTTLKeepInvariants. The clients back off as a
// payer does through an outage: 2 to 8 attempts, DelayBase 0.2 to 1 s, and jitter draws of a
// half or more. Their waits, not only their pauses, then reach the key deadline.
func outageScenarios() *rapid.Generator[scenario] {
	return rapid.Custom(func(t *rapid.T) scenario {
		sc := scenarioGen(resumedCalls(rapid.Just(3))).Draw(t, "scenario")
		sc.Policy.AttemptsMax = rapid.IntRange(2, 8).Draw(t, "outage AttemptsMax")
		sc.Policy.DelayBase = retrytest.Millis(200, 1000).Draw(t, "outage DelayBase")
		sc.Policy.DelayMax = sc.Policy.DelayBase + retrytest.Millis(0, 4000).Draw(t, "outage DelayMax-DelayBase")
		for i := range sc.Calls {
			late := rapid.SliceOfN(rapid.Float64Range(0.5, 0.999), 1, 4)
			sc.Calls[i].Jitter = late.Draw(t, fmt.Sprintf("outage jitter %d", i))
		}
		sc.Faults = rapid.SliceOfN(outageFaultGen(sc.AttemptTimeout, sc.ClientKeyTTL), 1, 6).Draw(t, "outage")
		sc.Faults = append(sc.Faults, rapid.SliceOfN(lookupFaultGen(sc.AttemptTimeout, sc.ClientKeyTTL), 0, 1).
			Draw(t, "lookup faults")...)
		sc.BalanceCents = max(sc.BalanceCents, 2*sc.Calls[0].Payment.AmountCents)
		return sc
	})
}

// checkRuns checks every run of scenarios, and that the runs reach every one of events.
func checkRuns(t *testing.T, scenarios *rapid.Generator[scenario], events ...string) {
	var cov retrytest.Coverage
	rapid.Check(t, checkScenarios(scenarios, &cov))
	cov.Require(t, 100, events...)
}

// onePaymentScenarios are the runs of TestOnePaymentKeepsInvariants.
func onePaymentScenarios() *rapid.Generator[scenario] {
	return scenarioGen(resumedCalls(rapid.IntRange(0, 3)))
}

// interleavedScenarios are the runs of TestInterleavedPaymentsKeepInvariants.
func interleavedScenarios() *rapid.Generator[scenario] { return scenarioGen(interleavedCalls) }

// checkScenarios is the property: it plays a drawn scenario in a synctest bubble and checks every
// invariant over its trace. rapid shrinks only while the failure message stays the same. The
// message names the broken invariants; the details, with their random keys, go to the log.
func checkScenarios(gen *rapid.Generator[scenario], cov *retrytest.Coverage) func(*rapid.T) {
	return func(t *rapid.T) {
		sc := gen.Draw(t, "scenario")
		rapid.SyncTest(t, func(t *rapid.T) {
			tr, err := runScenario(sc)
			if err != nil {
				t.Fatalf("%v", err)
			}
			cov.Add(events(tr))
			if broken, err := checkAll(tr); err != nil {
				t.Logf("%v\ntrace:\n%s", err, tr)
				t.Fatalf("invariants broken: %s", strings.Join(broken, "; "))
			}
		})
	}
}

// edgePayments are payments at both sides of each edge of the contract: the largest amount, an
// e-mail key of 77 bytes and one of 78, 140 characters of description, and every broken input
// the generators know.
func edgePayments() []pix.Payment {
	const key = "pix@example.com"
	edges := []pix.Payment{{AmountCents: 1, PixKey: key}, {AmountCents: 999_999_999_999, PixKey: key},
		{AmountCents: 1, PixKey: strings.Repeat("a", 65) + "@example.com"}, // 77 bytes
		{AmountCents: 1, PixKey: strings.Repeat("a", 66) + "@example.com"}, // 78 bytes
		{AmountCents: 1, PixKey: key, Description: strings.Repeat("ç", 140)}}
	for _, a := range invalidAmounts {
		edges = append(edges, pix.Payment{AmountCents: a, PixKey: key})
	}
	for _, k := range invalidPixKeys {
		edges = append(edges, pix.Payment{AmountCents: 1, PixKey: k})
	}
	for _, d := range invalidDescriptions {
		edges = append(edges, pix.Payment{AmountCents: 1, PixKey: key, Description: d})
	}
	return edges
}

// TestEdgePaymentsKeepInvariants: each edge payment, sent once to a PSP whose balance covers the
// largest amount, keeps every invariant: pix's validation and the PSP's agree at every edge, on
// every run. A random payment reaches a given edge only now and then.
func TestEdgePaymentsKeepInvariants(t *testing.T) {
	for _, p := range edgePayments() {
		synctest.Test(t, func(t *testing.T) {
			tr, err := runScenario(scenario{Policy: retry.Policy{AttemptsMax: 1}, BalanceCents: 999_999_999_999,
				Calls: []callSpec{{Payment: p, Jitter: []float64{0}}}})
			if err == nil {
				_, err = checkAll(tr)
			}
			if err != nil {
				t.Fatalf("payment %+v:\n%v\ntrace:\n%s", p, err, tr)
			}
		})
	}
}

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
		note("call: awaited", c.Awaited)
		note("call: ended by the caller's deadline", !c.Deadline.IsZero() && errors.Is(c.Err, context.DeadlineExceeded))
		for _, l := range c.Lines {
			conn := map[bool]string{false: ", fresh connection", true: ", pooled connection"}[l.Pooled]
			if l.Fault.FailsDial() {
				conn = ""
			}
			note("line: "+l.Fault.String()+conn, l.Fault != pipenet.Intact)
		}
		for _, t := range c.Trips {
			_, err := time.Parse(http.TimeFormat, t.RetryAfter)
			note("answer: Retry-After as an HTTP-date", err == nil)
			note("answer: Retry-After", hintOf(t) > 0)
			note("answer: transport error", t.Err != nil)
			note("answer: body cut short", t.BodyErr != nil)
		}
	}
	firstTry := map[string]time.Time{}
	for _, d := range tr.Deliveries {
		if at, ok := firstTry[d.ID]; !ok {
			firstTry[d.ID] = d.At
		} else {
			note("webhook: tried again past the window", d.Forged == "" && d.At.Sub(at) > signatureWindow)
		}
		note("webhook: applied", d.changed())
		note("webhook: duplicate", d.Forged == "" && d.Applies > 0 && !d.changed())
		note("webhook: retried", d.Failed)
		note("webhook: "+d.Forged, d.Forged != "")
	}
	for _, c := range tr.Calls {
		for _, t := range slices.Concat(c.Trips, c.Lookup.Trips) {
			if s, ok := tr.saidTo(t, c.Payment); ok && tr.Dialect.Front != nil {
				note("said: "+s.State, s.State != "")
				note("said: no settlement", s.NoSettlement)
				note("said: consent consumed", s.Consumed)
				note("said: a 422 the PSP did not sign", s.Unsigned)
				note("said: another payment", s.Foreign)
			}
		}
	}
	for _, ex := range tr.Wire {
		if lookup(ex) {
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
	case errors.Is(c.Err, pix.ErrPending):
		return "pending"
	case errors.Is(c.Err, pix.ErrRejected):
		return "rejected"
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
