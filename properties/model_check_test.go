package properties

import (
	"bytes"
	"time"

	"pgregory.net/rapid"

	"pixretry/psp"
)

// modelFaultGen draws a fault for the model test: any status with or without Retry-After,
// slow, late, drop, reset, down.
func modelFaultGen() *rapid.Generator[psp.Fault] {
	return rapid.OneOf(
		rapid.Map(rapid.IntRange(400, 599), psp.Status),
		rapid.Custom(func(t *rapid.T) psp.Fault {
			status := rapid.IntRange(400, 599).Draw(t, "status")
			return psp.Fault{Kind: psp.FaultStatus, Status: status, RetryAfter: msRange(1, 5000).Draw(t, "Retry-After")}
		}),
		rapid.Map(msRange(0, 5000), psp.Slow),
		rapid.Map(msRange(0, 5000), psp.Late),
		rapid.Just(psp.Drop()),
		rapid.Just(psp.ResetConn()),
		rapid.Map(msRange(0, 10_000), psp.Down),
	)
}

// fault queues one fault and sends the request that consumes it: a fresh payment, or a replay
// of a live key (late and drop act on replays too). While the PSP is down a request consumes
// no fault, so the action waits for the window to close.
func (mc *pspMachine) fault(t *rapid.T) {
	if mc.m.down(time.Now()) {
		t.Skip("the PSP is down: the fault would stay queued")
	}
	f := modelFaultGen().Draw(t, "fault")
	live := mc.m.liveScopes(time.Now())
	if len(live) > 0 && rapid.Bool().Draw(t, "on a replay") {
		sc := rapid.SampledFrom(live).Draw(t, "live key")
		mc.srv.Inject(f)
		mc.replay(t, sc, f)
		return
	}
	sc := mc.freeScope(t)
	p := payloadGen(mc.m.start).Draw(t, "payload")
	mc.srv.Inject(f)
	mc.fresh(t, sc, p, f)
}

// burst sends one key from 2 to 8 goroutines at the same instant, some with another payload,
// optionally behind a slow fault that keeps the first request in flight, and checks the
// replies with judgeBurst.
func (mc *pspMachine) burst(t *rapid.T) {
	if mc.m.down(time.Now()) {
		t.Skip("the PSP is down")
	}
	sc := scope{rapid.SampledFrom(modelTokens).Draw(t, "token"), rapid.SampledFrom(modelKeys).Draw(t, "key")}
	known, live := mc.m.live(sc, time.Now())
	base := payloadGen(mc.m.start).Draw(t, "payload")
	if live {
		base = known.payload
	} else {
		known = nil
	}
	payloads := burstPayloads(t, base, 8)
	if rapid.Bool().Draw(t, "slow first request") {
		mc.srv.Inject(psp.Slow(msRange(1, 1000).Draw(t, "slow")))
	}
	replies := burst(mc.client, mc.url, sc.token, sc.key, payloads)
	winner, err := judgeBurst(replies, payloads, known)
	if err != nil {
		t.Logf("replies %+v", replies)
		t.Fatalf("burst: %v", err)
	}
	if winner >= 0 {
		if status := mc.m.commit(sc, payloads[winner], replies[winner].At); status != replies[winner].Status {
			t.Fatalf("burst: the request processed afresh got %d, the balance says %d", replies[winner].Status, status)
		}
		mc.learn(t, sc, replies[winner].Body)
	}
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

// check compares the PSP with the model: the balance, the ledger (endToEndIds where an answer
// has shown them) and, unless the PSP is down, every live key's stored answer, replayed.
func (mc *pspMachine) check(t *rapid.T) {
	if got, want := mc.srv.BalanceCents(), mc.m.balance; got != want {
		t.Fatalf("BalanceCents() = %d, model %d", got, want)
	}
	got := mc.srv.Settlements()
	if len(got) != len(mc.m.ledger) {
		t.Fatalf("the ledger has %d settlements, model %d", len(got), len(mc.m.ledger))
	}
	for i, s := range got {
		if !modelHolds(mc.m.ledger[i], s) {
			t.Logf("ledger %+v\nmodel  %+v", s, mc.m.ledger[i])
			t.Fatalf("settlement %d differs from the model", i)
		}
	}
	if mc.m.down(time.Now()) {
		return
	}
	for _, sc := range mc.m.liveScopes(time.Now()) {
		k := mc.m.keys[sc]
		r := mc.post(sc, k.payload)
		if r.Err != nil || r.Status != k.status || !r.Replayed || k.body != nil && !bytes.Equal(r.Body, k.body) {
			t.Logf("replay %d %s (error %v)\nfirst  %d %s", r.Status, r.Body, r.Err, k.status, k.body)
			t.Fatalf("the answer stored under a live key differs from the model")
		}
		if k.body == nil {
			mc.learn(t, sc, r.Body)
		}
	}
}

// modelHolds reports whether ledger entry s is the model's entry e.
func modelHolds(e modelSettlement, s psp.Settlement) bool {
	return s.Token == e.scope.token && s.IdempotencyKey == e.scope.key &&
		s.AmountCents == e.payload.cents() && s.PixKey == e.payload.Chave &&
		s.Description == e.payload.InfoPagador && s.SettledAt.Equal(e.at) &&
		(e.endToEndID == "" || s.EndToEndID == e.endToEndID)
}
