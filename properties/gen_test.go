package properties

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"pgregory.net/rapid"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
	"pixretry/retry/retrytest"
)

// Every generator below shrinks toward the plainest case: one attempt, no delay, no fault, a
// small valid payment, no duplicate sender.

// policyGen draws AttemptsMax 1–8, DelayBase 0–1 s and DelayMax from DelayBase to DelayBase+4 s.
func policyGen() *rapid.Generator[retry.Policy] {
	return rapid.Custom(func(t *rapid.T) retry.Policy {
		p := retry.Policy{
			AttemptsMax: rapid.IntRange(1, 8).Draw(t, "AttemptsMax"),
			DelayBase:   retrytest.Millis(0, 1000).Draw(t, "DelayBase"),
		}
		p.DelayMax = p.DelayBase + retrytest.Millis(0, 4000).Draw(t, "DelayMax-DelayBase")
		return p
	})
}

// attemptTimeoutGen draws no limit, or 1 ms to 3 s.
func attemptTimeoutGen() *rapid.Generator[time.Duration] {
	return rapid.OneOf(rapid.Just(time.Duration(0)), retrytest.Millis(1, 3000))
}

// keyTTLGen draws the clients' KeyTTL: 2 to 30 s (often within 3 s of the shortest), as short
// as the PSPs of tests keep keys, and long enough for timeout, which must be below KeyTTL less a
// tenth. It is 2.5 ms past a grid of 10 ms, so that the key deadline (KeyTTL less a tenth after
// a key's first send) falls 0.25 ms off the grid of any other event of its call (see startGen).
func keyTTLGen(timeout time.Duration) *rapid.Generator[time.Duration] {
	lo := max(200, int(timeout/(9*time.Millisecond))+1)
	return rapid.Map(rapid.OneOf(rapid.IntRange(lo, lo+300), rapid.IntRange(lo, 3000)), func(n int) time.Duration {
		return time.Duration(n)*10*time.Millisecond + 2500*time.Microsecond
	})
}

// statusFaultGen draws a fault of kind ("status" or "commit_status") with a status from codes,
// with or without Retry-After (1–8 s, so above DelayMax as well as below).
func statusFaultGen(kind string, codes ...*rapid.Generator[int]) *rapid.Generator[psp.Fault] {
	return rapid.Custom(func(t *rapid.T) psp.Fault {
		f := psp.Fault{Kind: kind, Status: rapid.OneOf(codes...).Draw(t, kind)}
		f.RetryAfter = time.Duration(rapid.IntRange(0, 8).Draw(t, kind+" Retry-After s")) * time.Second
		return f
	})
}

// downGen draws an outage: 0 to 2 s, or 2 s to 10 minutes (longer than any retry budget and
// than any key's lifetime).
func downGen() *rapid.Generator[psp.Fault] {
	return rapid.Map(rapid.OneOf(retrytest.Millis(0, 2000), retrytest.Millis(2000, 600_000)), psp.Down)
}

// faultGen draws any payment fault: a status (the transient ones often), slow and late holds
// and duplicates (whose other copy holds the key) shorter and longer than the attempt timeout
// and the key's lifetime ttl, drop, reset, outages (downGen), and the faults that break the
// contract (contractFaultGen).
func faultGen(timeout, ttl time.Duration) *rapid.Generator[psp.Fault] {
	return rapid.OneOf(
		statusFaultGen("status", rapid.IntRange(400, 599), rapid.SampledFrom([]int{409, 429, 500, 502, 503, 504})),
		rapid.Map(holdGen(timeout, ttl), psp.Slow),
		rapid.Map(holdGen(timeout, ttl), psp.Late),
		rapid.Map(holdGen(timeout, ttl), psp.Duplicate),
		rapid.Just(psp.Drop()),
		rapid.Just(psp.ResetConn()),
		downGen(),
		contractFaultGen(),
	)
}

// lookupFaultGen draws a fault aimed at lookups, of every kind a lookup takes: a status (404,
// 409, 410 and the transient ones often), a late answer, a reset, an outage of lookups only, a
// redirect, a 200 whose body breaks the contract.
func lookupFaultGen(timeout, ttl time.Duration) *rapid.Generator[psp.Fault] {
	return rapid.Map(rapid.OneOf(
		statusFaultGen("status", rapid.IntRange(400, 599), rapid.SampledFrom([]int{404, 409, 410, 429, 500, 503})),
		rapid.Map(holdGen(timeout, ttl), psp.Late),
		rapid.Just(psp.ResetConn()),
		downGen(),
		rapid.Map(rapid.IntRange(300, 399), psp.Redirect),
		rapid.Map(rapid.SampledFrom(breaches), psp.BadBody),
	), psp.Fault.ForLookup)
}

// contractFaultGen draws a fault that breaks the response contract: a status after the commit
// (any 5xx, 501 and 505 among them, with or without Retry-After; or a 2xx other than 201), a
// 201 whose body breaks the contract in any of the ways psp offers, or a redirect before any
// processing.
func contractFaultGen() *rapid.Generator[psp.Fault] {
	commit := statusFaultGen("commit_status", rapid.IntRange(500, 599), rapid.SampledFrom([]int{500, 502, 503, 504}),
		rapid.SampledFrom([]int{200, 202, 203, 206}))
	body := rapid.OneOf(
		rapid.Map(rapid.SampledFrom(breaches), psp.BadBody),
		rapid.Map(rapid.SampledFrom([]string{"endToEndId", "valor", "chave", "status", "horario"}), badBodyWithout),
	)
	return rapid.OneOf(commit, body, rapid.Map(rapid.IntRange(300, 399), psp.Redirect))
}

// The breaches a bad_body fault can make.
var breaches = []string{"not_json", "short", "cut", "valor", "chave", "end_to_end_id"}

// badBodyWithout is a bad_body fault whose 201 lacks member m.
func badBodyWithout(m string) psp.Fault {
	return psp.Fault{Kind: "bad_body", Breach: "missing", Member: m}
}

// outageFaultGen draws a payment fault of an outage that may outlast a key: the PSP down for up
// to twice ttl, failing before any processing (a 503, a reset), or processing and losing the
// answer (drop), or holding the request up to past ttl (slow, late, duplicate).
func outageFaultGen(timeout, ttl time.Duration) *rapid.Generator[psp.Fault] {
	ms := int(ttl / time.Millisecond)
	return rapid.OneOf(
		rapid.Map(retrytest.Millis(0, 2*ms), psp.Down),
		rapid.Map(retrytest.Millis(ms/2, 2*ms), psp.Down),
		rapid.Just(psp.Status(503)),
		rapid.Just(psp.ResetConn()),
		rapid.Just(psp.Drop()),
		rapid.Map(holdGen(timeout, ttl), psp.Slow),
		rapid.Map(holdGen(timeout, ttl), psp.Late),
		rapid.Map(holdGen(timeout, ttl), psp.Duplicate),
	)
}

// holdGen draws how long a slow or late fault holds a request: shorter than the attempt
// timeout or longer, up to 3 s past it, or past the key's lifetime ttl; with no timeout, up to
// 3 s or past ttl. Never exactly the timeout: the answer and the deadline would then fall at
// the same virtual instant, and which wins would depend on the scheduler, not on the input
// (see startGen).
func holdGen(timeout, ttl time.Duration) *rapid.Generator[time.Duration] {
	past := int((ttl + 3*time.Second) / time.Millisecond)
	if timeout == 0 {
		return rapid.OneOf(retrytest.Millis(0, 3000), retrytest.Millis(3000, past))
	}
	ms := int(timeout / time.Millisecond)
	return rapid.OneOf(retrytest.Millis(0, ms-1), retrytest.Millis(ms+1, ms+3000), retrytest.Millis(ms+1, past))
}

// startGen draws when call i starts: 0 to 3 s, on a millisecond grid shifted by 2^i
// microseconds (shifted). Fault durations, timeouts and delays are whole milliseconds and every
// call (and every chain of calls that reconcile one another, whose shifts add up: sums of
// distinct powers of two differ) sits on its own shift, so the events of different calls never
// fall at the same virtual instant. In a synctest bubble, goroutines that wake at one instant
// run in an order the scheduler picks, and a run must depend on its input alone for rapid to
// replay and shrink it.
func startGen(i int) *rapid.Generator[time.Duration] { return shifted(i, retrytest.Millis(0, 3000)) }

// shifted draws from ms, shifted by 2^i microseconds (see startGen).
func shifted(i int, ms *rapid.Generator[time.Duration]) *rapid.Generator[time.Duration] {
	return rapid.Map(ms, func(d time.Duration) time.Duration { return d + time.Duration(1<<i)*time.Microsecond })
}

// pauseGen draws how long reconciliation i waits after the call it reconciles: as startGen
// does, or from half to three key lifetimes ttl, as a payer that restarts after an outage
// would. The key deadline and the PSP's TTL then pass, or nearly, while it waits.
func pauseGen(i int, ttl time.Duration) *rapid.Generator[time.Duration] {
	ms := int(ttl / time.Millisecond)
	return rapid.OneOf(startGen(i), shifted(i, retrytest.Millis(ms/2, 3*ms)))
}

// deadlineGen draws the caller's deadline: none (half the time), or 1 ms to 6 s on a grid
// shifted by half a millisecond, which no other event of a run sits on (see startGen).
func deadlineGen() *rapid.Generator[time.Duration] {
	return rapid.OneOf(rapid.Just(time.Duration(0)), rapid.Map(retrytest.Millis(0, 6000), func(d time.Duration) time.Duration {
		return d + deadlineOffGrid
	}))
}

// deadlineOffGrid shifts a caller's deadline off the grid of every other event (deadlineGen).
const deadlineOffGrid = 500 * time.Microsecond

// amountGen draws amounts around balance: affordable alone, at the edge (balance ± 2), or
// anywhere up to twice the balance.
func amountGen(balance int64) *rapid.Generator[int64] {
	return rapid.OneOf(
		rapid.Int64Range(1, max(balance, 1)),
		rapid.Int64Range(max(balance-2, 1), balance+2),
		rapid.Int64Range(1, 2*balance+2),
	)
}

// pixKeyGen draws valid Pix keys of the five types, e-mails around the 77-byte limit included
// (some of those are too long, and both sides must refuse them).
func pixKeyGen() *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.StringMatching(`[0-9]{11}`),
		rapid.StringMatching(`[0-9]{14}`),
		rapid.StringMatching(`\+[1-9][0-9]{1,14}`),
		rapid.StringMatching(`[a-z0-9._+-]{1,20}@[a-z0-9]{1,10}\.(com|br)`),
		rapid.StringMatching(`[a-z]{60,66}@example\.com`),
		rapid.StringMatching(`[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}`),
	)
}

// Inputs that break the contract, one field at a time.
var (
	invalidAmounts = []int64{0, -1, -15000, 1_000_000_000_000}
	invalidPixKeys = []string{
		"", "1234567890", "123456789012", "+0551199999999", "+", "Pagador@Example.com",
		"123e4567-E89B-42d3-a456-426614174000", "00000000000 ", "pix@", "a@-b.com",
		strings.Repeat("a", 70) + "@example.com",
	}
	invalidDescriptions = []string{strings.Repeat("a", 141), strings.Repeat("ç", 141), "caf\xe9"}
)

// descriptionGen draws valid descriptions: none, plain text, any Unicode up to 140 characters,
// and 140 two-byte characters (280 bytes: the limit counts characters).
func descriptionGen() *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.Just(""),
		rapid.StringMatching(`[A-Za-z0-9 .,-]{1,40}`),
		rapid.StringN(0, 140, -1),
		rapid.Just(strings.Repeat("ç", 140)),
	)
}

// paymentGen draws a payment around balance, valid seven times in eight; otherwise one field
// breaks the contract.
func paymentGen(balance int64) *rapid.Generator[pix.Payment] {
	return rapid.Custom(func(t *rapid.T) pix.Payment {
		p := pix.Payment{
			AmountCents: amountGen(balance).Draw(t, "AmountCents"),
			PixKey:      pixKeyGen().Draw(t, "PixKey"),
			Description: descriptionGen().Draw(t, "Description"),
		}
		switch rapid.IntRange(0, 23).Draw(t, "broken field") {
		case 21:
			p.AmountCents = rapid.SampledFrom(invalidAmounts).Draw(t, "invalid AmountCents")
		case 22:
			p.PixKey = rapid.SampledFrom(invalidPixKeys).Draw(t, "invalid PixKey")
		case 23:
			p.Description = rapid.SampledFrom(invalidDescriptions).Draw(t, "invalid Description")
		}
		return p
	})
}

// interleavedCalls draws 1 to 5 calls, each starting 0–3 s into the run (startGen), with its own jitter
// draws and maybe a caller's deadline. From the second on, a call may reconcile the one before
// it (see callSpec.Reconcile), maybe after a pause past the key's lifetime ttl (pauseGen), or be
// a duplicate sender: it shares an earlier call's key (both then use SendWithKey), with the
// same payment or another, and runs concurrently with it.
func interleavedCalls(balance int64, ttl time.Duration) *rapid.Generator[[]callSpec] {
	return rapid.Custom(func(t *rapid.T) []callSpec {
		calls := make([]callSpec, rapid.IntRange(1, 5).Draw(t, "number of calls"))
		for i := range calls {
			p := paymentGen(balance).Draw(t, fmt.Sprintf("payment %d", i))
			calls[i] = timedCall(t, i)
			calls[i].Payment = p
			if i == 0 {
				continue
			}
			switch rapid.IntRange(0, 2).Draw(t, fmt.Sprintf("call %d is independent, reconciles, duplicates", i)) {
			case 1:
				calls[i].Reconcile = true
				calls[i].After = pauseGen(i, ttl).Draw(t, fmt.Sprintf("pause before call %d", i))
			case 2:
				duplicate(t, calls, i, ttl)
			}
		}
		return calls
	})
}

// timedCall draws call i's start (startGen), its caller's deadline, if any, and its jitter draws.
func timedCall(t *rapid.T, i int) callSpec {
	return callSpec{
		After:    startGen(i).Draw(t, fmt.Sprintf("start of call %d", i)),
		Deadline: deadlineGen().Draw(t, fmt.Sprintf("deadline of call %d", i)),
		Jitter:   retrytest.Draws().Draw(t, fmt.Sprintf("jitter of call %d", i)),
	}
}

// duplicate makes call i a duplicate sender of an earlier call, unless that call reconciles
// another (its key is known only when it starts). Call i starts less than a tenth of the key's
// lifetime ttl after the first sender of the key. Each sender counts the key's lifetime from
// its own first attempt (SendWithKey), and the tenth the client keeps as a margin covers that
// difference: past it, a sender could still resend once the PSP has forgotten the key, which
// the promise does not cover.
func duplicate(t *rapid.T, calls []callSpec, i int, ttl time.Duration) {
	j := rapid.IntRange(0, i-1).Draw(t, fmt.Sprintf("call %d duplicates", i))
	if calls[j].Reconcile {
		return
	}
	if calls[j].Key == "" {
		calls[j].Key = fmt.Sprintf("shared-key-%d", j)
	}
	first := calls[slices.IndexFunc(calls, func(c callSpec) bool { return c.Key == calls[j].Key })]
	margin := int(ttl/10/time.Millisecond) - 1
	calls[i].After = first.After.Truncate(time.Millisecond) +
		shifted(i, retrytest.Millis(0, margin)).Draw(t, fmt.Sprintf("start of call %d after the key's first sender", i))
	calls[i].Key = calls[j].Key
	if rapid.Bool().Draw(t, fmt.Sprintf("call %d sends the same payment", i)) {
		calls[i].Payment = calls[j].Payment
	}
}

// resumedCalls draws one Send followed by as many calls as n draws that reconcile the call
// before them, one after the other, each maybe after a pause past the key's lifetime ttl, and
// each maybe with a caller's deadline: a run whose order of events is fixed by virtual time.
func resumedCalls(n *rapid.Generator[int]) callsOf {
	return func(balance int64, ttl time.Duration) *rapid.Generator[[]callSpec] {
		return rapid.Custom(func(t *rapid.T) []callSpec {
			calls := make([]callSpec, 1+n.Draw(t, "reconciliations"))
			for i := range calls {
				calls[i] = timedCall(t, i)
				if i > 0 {
					calls[i].Reconcile = true
					calls[i].After = pauseGen(i, ttl).Draw(t, fmt.Sprintf("pause before call %d", i))
				}
			}
			calls[0].Payment = paymentGen(balance).Draw(t, "payment")
			return calls
		})
	}
}

// callsOf draws the calls of a run for a PSP balance and the clients' KeyTTL.
type callsOf func(balance int64, ttl time.Duration) *rapid.Generator[[]callSpec]

// scenarioGen draws a whole run whose calls calls draws for the balance and the clients'
// KeyTTL. The PSP keeps keys as long as the clients think, or up to 5 s longer. Up to 10 faults
// await the payment requests, and up to 2 the lookups.
func scenarioGen(calls callsOf) *rapid.Generator[scenario] {
	return rapid.Custom(func(t *rapid.T) scenario {
		sc := scenario{
			Policy:         policyGen().Draw(t, "policy"),
			AttemptTimeout: attemptTimeoutGen().Draw(t, "AttemptTimeout"),
			BalanceCents:   rapid.Int64Range(0, 200_000).Draw(t, "balance"),
		}
		ttl := keyTTLGen(sc.AttemptTimeout).Draw(t, "client KeyTTL")
		sc.ClientKeyTTL = ttl
		sc.KeyTTL = ttl + rapid.OneOf(rapid.Just(time.Duration(0)), retrytest.Millis(1, 5000)).Draw(t, "PSP KeyTTL beyond")
		sc.Faults = rapid.SliceOfN(faultGen(sc.AttemptTimeout, ttl), 0, 10).Draw(t, "faults")
		lookups := rapid.SliceOfN(lookupFaultGen(sc.AttemptTimeout, ttl), 0, 2).Draw(t, "lookup faults")
		sc.Faults = append(sc.Faults, lookups...)
		sc.Calls = calls(sc.BalanceCents, ttl).Draw(t, "calls")
		return sc
	})
}
