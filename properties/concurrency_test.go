package properties

import (
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"pixretry/internal/pipenet"
	"pixretry/psp"
)

// TestSameKeyBurstSettlesOnce is the concurrency property: k goroutines (2 to 16) send the same
// payment under the same key at the same virtual instant, some of them with another payload,
// with or without a slow fault that keeps the first request in flight. Exactly one settlement
// follows; every other answer is a 409 idempotency_key_in_use, a byte-identical replay, or a
// 422 idempotency_key_reused (for the other payloads only); the balance drops by that one
// amount. Run it under -race: it is also the PSP's data-race test.
func TestSameKeyBurstSettlesOnce(t *testing.T) {
	rapid.Check(t, sameKeyBurstSettlesOnce)
}

// sameKeyBurstSettlesOnce is the property of TestSameKeyBurstSettlesOnce.
func sameKeyBurstSettlesOnce(t *rapid.T) {
	const balance = 100_000
	base := payload{
		Valor: formatAmount(rapid.Int64Range(1, balance).Draw(t, "cents")),
		Chave: rapid.SampledFrom(modelPixKeys).Draw(t, "chave"),
	}
	payloads := burstPayloads(t, base, 16)
	slow := rapid.OneOf(rapid.Just(time.Duration(0)), msRange(1, 2000)).Draw(t, "slow first request")
	rapid.SyncTest(t, func(t *rapid.T) {
		srv, err := psp.NewServer(psp.Config{Tokens: []string{runToken}, BalanceCents: balance})
		if err != nil {
			t.Fatalf("psp.NewServer() error = %v", err)
		}
		pipe := pipenet.NewServer(srv)
		defer pipe.Close()
		if slow > 0 {
			srv.Inject(psp.Slow(slow))
		}
		replies := burst(pipe.Client(), pipe.URL, runToken, "burst-key", payloads)
		winner, err := judgeBurst(replies, payloads, nil)
		if err != nil {
			t.Logf("replies %+v", replies)
			t.Fatalf("%v", err)
		}
		if err := settledOnce(srv, payloads[winner], balance); err != nil {
			t.Fatalf("%v", err)
		}
	})
}

// settledOnce checks that the ledger holds exactly one settlement, of p, and that the balance
// dropped by its amount.
func settledOnce(srv *psp.Server, p payload, balance int64) error {
	got := srv.Settlements()
	if len(got) != 1 {
		return fmt.Errorf("the ledger holds %d settlements, want 1", len(got))
	}
	if s := got[0]; s.AmountCents != p.cents() || s.PixKey != p.Chave || s.Description != p.InfoPagador {
		return fmt.Errorf("the ledger settled %d cents to %q (%q), want the payload processed afresh %+v", s.AmountCents,
			s.PixKey, s.Description, p)
	}
	if got, want := srv.BalanceCents(), balance-p.cents(); got != want {
		return fmt.Errorf("BalanceCents() = %d, want %d", got, want)
	}
	return nil
}

// TestSameKeySendersKeepInvariants: 2 to 5 pix clients call SendWithKey with one key at the
// same virtual instant, under any policy and fault sequence, some with another payment; every
// invariant holds. Unlike the other payment properties, the order in which the PSP sees the
// requests is up to the scheduler here (that is the point), so rapid may call a failure flaky
// when it cannot replay it: the trace in the log is then the evidence.
func TestSameKeySendersKeepInvariants(t *testing.T) {
	checkPayments(t, sameInstantScenarios())
}

// sameInstantScenarios are the runs of TestSameKeySendersKeepInvariants.
func sameInstantScenarios() *rapid.Generator[scenario] { return scenarioGen(sameInstantSendersGen) }

// sameInstantSendersGen draws 2 to 5 calls of SendWithKey under one key, all starting at the
// same instant, each with the first call's payment or another.
func sameInstantSendersGen(balance int64) *rapid.Generator[[]callSpec] {
	return rapid.Custom(func(t *rapid.T) []callSpec {
		first := paymentGen(balance).Draw(t, "payment")
		calls := make([]callSpec, rapid.IntRange(2, 5).Draw(t, "senders"))
		for i := range calls {
			calls[i] = callSpec{Payment: first, Key: "same-instant-key", Jitter: jitterGen().Draw(t,
				fmt.Sprintf("jitter of call %d", i))}
			if i > 0 && rapid.Bool().Draw(t, fmt.Sprintf("call %d sends another payment", i)) {
				calls[i].Payment = paymentGen(balance).Draw(t, fmt.Sprintf("payment %d", i))
			}
		}
		return calls
	})
}
