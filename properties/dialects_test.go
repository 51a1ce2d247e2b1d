package properties

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"pixretry/retry/retrytest"
)

// The payment properties run in each dialect: the same scenarios, spoken in the dialect by
// the clients and by the double's front end for it, keep the same invariants. A dialect's
// scenarios have no webhooks and no breaker: the webhooks are the double's own (psp/webhook,
// whose receiver is pix.WebhookHandler), and the breaker is pix's, the same in every dialect.
// Their properties run in the double's own API.

// inDialect draws the scenarios of scenarios, spoken in d: the duplicate senders' keys are
// d's (dialect.SharedKey), and the run has no webhooks and no breaker.
func inDialect(d *dialect, scenarios *rapid.Generator[scenario]) *rapid.Generator[scenario] {
	return rapid.Map(scenarios, func(sc scenario) scenario {
		sc.Dialect, sc.Webhooks, sc.Breaker = d.Name, nil, nil
		var keys []string
		calls := slices.Clone(sc.Calls)
		for i, c := range calls {
			if c.Key == "" {
				continue
			}
			k := slices.Index(keys, c.Key)
			if k < 0 {
				k, keys = len(keys), append(keys, c.Key)
			}
			calls[i].Key = d.SharedKey(k)
		}
		sc.Calls = calls
		return sc
	})
}

// dialectScenarios are the runs of the payment properties: one payment and its
// reconciliations, interleaved calls and duplicate senders, outages past the key's lifetime,
// broken connections, a gateway that answers first, and payments that end later.
func dialectScenarios() *rapid.Generator[scenario] {
	return rapid.OneOf(onePaymentScenarios(), interleavedScenarios(), outageScenarios(), pendingScenarios(),
		rapid.Custom(func(t *rapid.T) scenario {
			sc := rapid.OneOf(onePaymentScenarios(), interleavedScenarios()).Draw(t, "scenario")
			sc.Line = rapid.OneOf(rapid.SliceOfN(lineStepGen(), 1, 8), cutsAfterWriteGen()).Draw(t, "line")
			return sc
		}),
		rapid.Custom(func(t *rapid.T) scenario {
			sc := onePaymentScenarios().Draw(t, "scenario")
			sc.Gateway = rapid.SliceOfN(gatewayGen(sc.Policy), 1, 6).Draw(t, "gateway")
			return sc
		}))
}

// TestEfiKeepsInvariants: the runs of the payment properties, in Efí's dialect, keep every
// invariant.
func TestEfiKeepsInvariants(t *testing.T) {
	checkRuns(t, inDialect(efiAPI, dialectScenarios()), "call: settled on a replay", "call: pending",
		"call: found by a lookup", "call: no settlement", "call: paid again under a new key", "call: outcome unknown",
		"call: rejected", "answer: transport error", "call: the PSP broke the contract")
}

// openFinanceScenarios are dialectScenarios, with now and then a payer that resumes a payment
// more than an hour after it began: past its consent's expiry, which then proves that nothing
// was paid if no payment consumed it. A fifth of them are payments that end later, a fifth
// rejectedScenarios, and a fifth expiredConsentScenarios, which reach that proof every time.
func openFinanceScenarios() *rapid.Generator[scenario] {
	late := func(scenarios *rapid.Generator[scenario]) *rapid.Generator[scenario] {
		return rapid.Custom(func(t *rapid.T) scenario {
			sc := scenarios.Draw(t, "scenario")
			for i := range sc.Calls {
				if sc.Calls[i].Reconcile && rapid.IntRange(0, 2).Draw(t, fmt.Sprintf("call %d waits past the consent", i)) == 0 {
					sc.Calls[i].After = pastConsentGen(i).Draw(t, fmt.Sprintf("pause %d", i))
					sc.Calls[i].Await = false
				}
			}
			return sc
		})
	}
	return rapid.OneOf(late(dialectScenarios()), late(dialectScenarios()), pendingScenarios(), rejectedScenarios(),
		expiredConsentScenarios())
}

// pastConsentGen draws how long reconciliation i waits: past the hour after which a consent
// expires, on call i's shift (startGen).
func pastConsentGen(i int) *rapid.Generator[time.Duration] {
	return shifted(i, retrytest.Millis(60*60_000, 90*60_000))
}

// rejectedScenarios are runs of one valid payment in the range of valor the PSP accepts, then
// rejects 0 to 3 s later, and a payer that awaits it for up to 30 s, polling as
// pendingScenarios' do. A rejection reaches the
// payer only through a payment the PSP accepted: pendingScenarios reach it a few times in a
// hundred.
func rejectedScenarios() *rapid.Generator[scenario] {
	return rapid.Custom(func(t *rapid.T) scenario {
		sc := scenarioGen(resumedCalls(rapid.Just(1))).Draw(t, "scenario")
		sc.Calls[0].Payment = paymentGen(sc.BalanceCents).Filter(validByContract).Draw(t, "valid payment")
		cents := sc.Calls[0].Payment.AmountCents
		sc.BalanceCents, sc.RejectFromCents, sc.RejectToCents = max(sc.BalanceCents, cents), cents, cents
		sc.CompleteAfter = retrytest.Millis(0, 3000).Draw(t, "CompleteAfter")
		sc.Policy.DelayBase = max(sc.Policy.DelayBase, 100*time.Millisecond)
		sc.Policy.DelayMax = max(sc.Policy.DelayMax, sc.Policy.DelayBase)
		sc.Calls[1].Await, sc.Calls[1].Deadline = true, 30*time.Second+deadlineOffGrid
		sc.Calls[1].Jitter = rapid.SliceOfN(rapid.Float64Range(0.25, 0.999), 1, 4).Draw(t, "polls")
		return sc
	})
}

// expiredConsentScenarios are runs of one valid payment whose every attempt the PSP refuses
// before any processing (a 429 or a 5xx), so that its consent stays unconsumed. (A reset or an
// outage the front end cannot tell from a hang-up after the commit: it consumes the consent.) Its
// payer resumes it past the consent's expiry, which proves that nothing was paid, and then pays
// it again under a new key and a new consent.
func expiredConsentScenarios() *rapid.Generator[scenario] {
	return rapid.Custom(func(t *rapid.T) scenario {
		sc := scenarioGen(resumedCalls(rapid.Just(2))).Draw(t, "scenario")
		sc.Calls[0].Payment = paymentGen(sc.BalanceCents).Filter(validByContract).Draw(t, "valid payment")
		sc.BalanceCents = max(sc.BalanceCents, sc.Calls[0].Payment.AmountCents)
		unprocessed := statusFaultGen("status", rapid.SampledFrom([]int{429, 500, 502, 503, 504}))
		sc.Faults = rapid.SliceOfN(unprocessed, sc.Policy.AttemptsMax, sc.Policy.AttemptsMax).Draw(t, "unprocessed")
		sc.Calls[1].After = pastConsentGen(1).Draw(t, "pause past the consent")
		return sc
	})
}

// TestOpenFinanceKeepsInvariants: the runs of the payment properties, in Open Finance Brasil
// payments v4, some resumed past their consent's expiry, keep every invariant.
func TestOpenFinanceKeepsInvariants(t *testing.T) {
	checkRuns(t, inDialect(openFinanceAPI, openFinanceScenarios()), "call: settled", "call: pending",
		"call: found by a lookup", "call: no settlement", "call: paid again under a new key", "call: outcome unknown",
		"call: rejected", "answer: transport error", "call: the PSP broke the contract")
}
