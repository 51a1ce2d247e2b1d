package properties

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// TestSameKeyBurstSettlesOnce: 2 to 16 goroutines send under one key at the same virtual instant,
// some with another payload, maybe behind a slow fault. judgeBurst checks every answer. Exactly one
// settlement follows, and the PSP matches pspModel. Under -race it is the PSP's data-race test.
func TestSameKeyBurstSettlesOnce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		const balance = 100_000
		base := payload{
			Valor: formatAmount(rapid.Int64Range(1, balance).Draw(t, "cents")),
			Chave: rapid.SampledFrom(modelPixKeys).Draw(t, "chave"),
		}
		rapid.SyncTest(t, func(t *rapid.T) {
			mc := newPSPMachine(t, balance, defaultKeyTTL)
			mc.burst(t, scope{modelTokens[0], "burst-key"}, base, 16)
			if got := len(mc.srv.Settlements()); got != 1 {
				t.Fatalf("the ledger holds %d settlements, want 1", got)
			}
			mc.check(t)
		})
	})
}

// TestSameKeySendersKeepInvariants: 2 to 5 pix clients call SendWithKey with one key at once, some
// with another payment. Every invariant holds. The scheduler orders the requests, so rapid may call
// a failure flaky: the trace in the log is then the evidence.
func TestSameKeySendersKeepInvariants(t *testing.T) {
	checkPayments(t, scenarioGen(func(balance int64) *rapid.Generator[[]callSpec] {
		return rapid.Custom(func(t *rapid.T) []callSpec {
			first := paymentGen(balance).Draw(t, "payment")
			calls := make([]callSpec, rapid.IntRange(2, 5).Draw(t, "senders"))
			for i := range calls {
				calls[i] = callSpec{Payment: first, Key: "same-instant-key",
					Jitter: jitterGen().Draw(t, fmt.Sprintf("jitter of call %d", i))}
				if i > 0 && rapid.Bool().Draw(t, fmt.Sprintf("call %d sends another payment", i)) {
					calls[i].Payment = paymentGen(balance).Draw(t, fmt.Sprintf("payment %d", i))
				}
			}
			return calls
		})
	}))
}

// burstPayloads draws 2 to n payloads: base, or another payload.
func burstPayloads(t *rapid.T, base payload, n int) []payload {
	other := rapid.SliceOfN(rapid.Bool(), 2, n).Draw(t, "senders with another payload")
	payloads := make([]payload, len(other))
	for i, o := range other {
		payloads[i] = base
		if o {
			payloads[i] = otherPayload(base)
		}
	}
	return payloads
}

// timedReply is a reply and the instant it came back.
type timedReply struct {
	reply
	At time.Time
}

// burst sends payloads[i] from goroutine i under token and key, all at the same virtual instant.
func burst(client *http.Client, baseURL, token, key string, payloads []payload) []timedReply {
	replies := make([]timedReply, len(payloads))
	var ready, done sync.WaitGroup
	gate := make(chan struct{})
	for i, p := range payloads {
		ready.Add(1)
		done.Go(func() {
			ready.Done()
			<-gate
			r := post(context.Background(), client, baseURL, token, key, p)
			replies[i] = timedReply{reply: r, At: time.Now()}
		})
	}
	ready.Wait()
	close(gate)
	done.Wait()
	return replies
}

// judgeBurst checks a burst's replies under keyModel from known, and returns the index of the
// request processed afresh (-1 for none). All start at once, so the replies are legal if and only
// if this order is: the fresh reserve, every 409, its commit, the rest. No fault here drops.
func judgeBurst(replies []timedReply, payloads []payload, known keyState) (int, error) {
	outs, winner := make([]keyOutput, len(replies)), -1
	for i, r := range replies {
		if r.Err != nil {
			return -1, fmt.Errorf("request %d: transport error %v", i, r.Err)
		}
		if outs[i] = classify(r.reply); outs[i].Kind != answerFresh {
			continue
		}
		if winner >= 0 {
			return -1, fmt.Errorf("requests %d and %d were both processed afresh", winner, i)
		}
		winner = i
	}
	if winner < 0 && known.Phase == keyFree {
		return -1, fmt.Errorf("no request of the burst was processed afresh")
	}
	order := []keyInput{}
	add := func(step keyStep, keep func(answerKind) bool) {
		for i := range replies {
			if keep(outs[i].Kind) {
				order = append(order, keyInput{Request: i, Step: step, Payload: payloads[i]})
			}
		}
	}
	add(stepReserve, func(k answerKind) bool { return k == answerFresh })
	add(stepObserve, func(k answerKind) bool { return k == answerInUse })
	add(stepCommit, func(k answerKind) bool { return k == answerFresh })
	add(stepObserve, func(k answerKind) bool { return k != answerFresh && k != answerInUse })
	s := known
	for _, in := range order {
		var ok bool
		if ok, s = stepKey(s, in, outs[in.Request]); !ok {
			r := replies[in.Request]
			return -1, fmt.Errorf("request %d got %d %q (replayed=%v), which the contract forbids here", in.Request,
				r.Status, problemCode(r.Body), r.Replayed)
		}
	}
	return winner, nil
}
