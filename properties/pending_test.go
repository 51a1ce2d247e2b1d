package properties

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"pixretry/psp"
	"pixretry/psp/webhook"
	"pixretry/retry/retrytest"
)

// Payments that complete later: the PSP accepts some payments (202 EM_PROCESSAMENTO) and ends
// them later, settled or rejected, and tells a receiver by webhooks.

// pendingFaultGen draws a pending fault: the payment ends, either way, within 3 s, or past the
// key deadline of a key that lives ttl, so that a Resume looks a pending key up.
func pendingFaultGen(ttl time.Duration) *rapid.Generator[psp.Fault] {
	ms := int(ttl / time.Millisecond)
	return rapid.Custom(func(t *rapid.T) psp.Fault {
		after := rapid.OneOf(retrytest.Millis(0, 3000), retrytest.Millis(ms/2, 2*ms)).Draw(t, "pending for")
		return psp.Pending(after, rapid.SampledFrom([]string{"settled", "rejected"}).Draw(t, "then"))
	})
}

// webhookRunGen draws a run's webhooks: a Sender of 2 to 4 tries whose waits, half their
// ceiling or more, are short or pass the receiver's window of 300 s; faults for its first
// deliveries (duplicate, delay, reorder, fail); calls of Apply that fail; up to 3 forgeries
// during the calls and up to 3 late replays.
func webhookRunGen() *rapid.Generator[*webhookRun] {
	return rapid.Custom(func(t *rapid.T) *webhookRun {
		base := rapid.OneOf(retrytest.Millis(100, 2000), retrytest.Millis(400_000, 900_000)).Draw(t, "webhook DelayBase")
		attempts := rapid.IntRange(2, 4).Draw(t, "webhook attempts")
		fault := rapid.OneOf(rapid.Just(webhook.Duplicate()), rapid.Just(webhook.Reorder()),
			rapid.Map(retrytest.Millis(0, 2000), webhook.Delay), rapid.Map(rapid.IntRange(1, attempts), webhook.Fail))
		forgeryGen := rapid.Custom(func(t *rapid.T) forgery {
			return forgery{After: shifted(6, retrytest.Millis(0, 6000)).Draw(t, "forged at"),
				Key: rapid.IntRange(0, 4).Draw(t, "forged key"), Status: rapid.SampledFrom([]string{statusSettled,
					statusRejected}).Draw(t, "forged status")}
		})
		return &webhookRun{
			Sender: webhook.Config{Attempts: attempts, DelayBase: base, Timeout: 5 * time.Second,
				WaitMax:  base + retrytest.Millis(0, 200_000).Draw(t, "webhook WaitMax-DelayBase"),
				Parallel: rapid.IntRange(1, 2).Draw(t, "webhook parallel")},
			Draws:     rapid.SliceOfN(rapid.Float64Range(0.5, 0.999), 1, 4).Draw(t, "webhook jitter"),
			Faults:    rapid.SliceOfN(fault, 0, 4).Draw(t, "webhook faults"),
			Failures:  rapid.SliceOfN(rapid.Bool(), 1, 6).Draw(t, "apply failures"),
			Forgeries: rapid.SliceOfN(forgeryGen, 0, 3).Draw(t, "forgeries"),
			Replays:   rapid.SliceOfN(rapid.IntRange(0, 9), 0, 3).Draw(t, "replays"),
		}
	})
}

// pendingScenarios are the runs of TestPendingPaymentsKeepInvariants: those of
// TestOnePaymentKeepsInvariants or TestInterleavedPaymentsKeepInvariants, with 1 to 4 pending
// faults among their payment faults, maybe every payment pending for a while (CompleteAfter),
// maybe a range of valor the PSP rejects after accepting, and webhooks. A reconciliation of a
// pending payment awaits it or resumes it. A payer awaits for 30 s at most, and its client waits
// as one that polls would (DelayBase 0.1 s or more, DelayMax 1 s or more, draws of a quarter or
// more), so that an Await through a lookup outage of minutes stays short.
func pendingScenarios() *rapid.Generator[scenario] {
	return rapid.Custom(func(t *rapid.T) scenario {
		sc := rapid.OneOf(onePaymentScenarios(), interleavedScenarios()).Draw(t, "scenario")
		sc.Faults = slices.DeleteFunc(sc.Faults, func(f psp.Fault) bool {
			return f.Target == "lookup" && (f.Breach == "valor" || f.Breach == "chave")
		}) // Await has no payment to hold a lookup's 200 to: a valor or chave it names is the receipt's
		ttl := sc.ClientKeyTTL
		sc.Policy.DelayBase = max(sc.Policy.DelayBase, 100*time.Millisecond)
		sc.Policy.DelayMax = max(sc.Policy.DelayMax, sc.Policy.DelayBase, time.Second)
		for _, f := range rapid.SliceOfN(pendingFaultGen(ttl), 1, 4).Draw(t, "pending faults") {
			at := rapid.IntRange(0, len(sc.Faults)).Draw(t, "pending fault at")
			sc.Faults = append(sc.Faults[:at], append([]psp.Fault{f}, sc.Faults[at:]...)...)
		}
		if rapid.Bool().Draw(t, "every payment pending") {
			sc.CompleteAfter = retrytest.Millis(1, 3000).Draw(t, "CompleteAfter")
		}
		if rapid.Bool().Draw(t, "a range rejected") {
			sc.RejectFromCents = rapid.Int64Range(1, max(sc.BalanceCents, 1)).Draw(t, "rejected from")
			sc.RejectToCents = sc.RejectFromCents + rapid.Int64Range(0, sc.BalanceCents).Draw(t, "rejected range")
		}
		for i := range sc.Calls {
			if sc.Calls[i].Reconcile && rapid.Bool().Draw(t, fmt.Sprintf("call %d awaits a pending payment", i)) {
				sc.Calls[i].Await = true
				sc.Calls[i].Jitter = rapid.SliceOfN(rapid.Float64Range(0.25, 0.999), 1, 4).Draw(t, fmt.Sprintf("polls of call %d", i))
				sc.Calls[i].Deadline = retrytest.Millis(0, 30_000).Draw(t, fmt.Sprintf("await %d for", i)) + deadlineOffGrid
			}
		}
		sc.Webhooks = webhookRunGen().Draw(t, "webhooks")
		return sc
	})
}

// TestPendingPaymentsKeepInvariants: runs in which the PSP accepts payments and ends them later,
// settled or rejected, keep every invariant. Payers await a pending payment or resume it, and
// pay again under a new key once it is rejected. The PSP's webhooks reach a receiver
// duplicated, late, reordered, retried after a failed Apply, and among forged ones.
func TestPendingPaymentsKeepInvariants(t *testing.T) {
	checkRuns(t, pendingScenarios(), "call: pending", "call: rejected", "call: awaited", "call: found by a lookup",
		"call: paid again under a new key", "webhook: applied", "webhook: duplicate", "webhook: retried",
		"webhook: wrong secret", "webhook: replayed late",
		"webhook: tried again past the window")
}
