package properties

import (
	"bytes"
	"strconv"
	"time"

	"pgregory.net/rapid"

	"pixretry/psp"
)

// The checks of TestPSPMatchesModel. A t.Fatalf message holds no endToEndId: rapid shrinks only
// while the failure message stays the same.

// fresh sends p under sc, a key with no live answer, with fault f queued (the zero Fault for none).
func (mc *pspMachine) fresh(t *rapid.T, sc scope, p payload, f psp.Fault) {
	start := time.Now()
	r := mc.post(sc, p)
	if mc.struckFirst(t, r, start, f) {
		return
	}
	commitAt := start
	if f.Kind == faultSlow {
		commitAt = start.Add(f.Duration)
	}
	status := mc.m.commit(sc, p, commitAt)
	if f.Kind == faultDrop {
		wantClosed(t, r)
		return
	}
	wantElapsed(t, start, f, false)
	if r.Err != nil || r.Status != status || r.Replayed {
		t.Fatalf("a fresh payment got %d (replayed=%v, error %v), want %d", r.Status, r.Replayed, r.Err, status)
	}
	mc.learn(t, sc, r.Body)
}

// replay sends sc's stored payload again, with fault f queued: the stored answer, byte for byte.
func (mc *pspMachine) replay(t *rapid.T, sc scope, f psp.Fault) {
	k := mc.m.keys[sc]
	start := time.Now()
	r := mc.post(sc, k.payload)
	if mc.struckFirst(t, r, start, f) {
		return
	}
	if f.Kind == faultDrop {
		wantClosed(t, r)
		return
	}
	wantElapsed(t, start, f, true)
	if r.Err != nil || r.Status != k.status || !r.Replayed {
		t.Fatalf("a replay got %d (replayed=%v, error %v), want the stored %d replayed", r.Status, r.Replayed, r.Err,
			k.status)
	}
	if k.body != nil && !bytes.Equal(r.Body, k.body) {
		t.Logf("replay %s\nfirst  %s", r.Body, k.body)
		t.Fatalf("a replay differs from the first answer")
	}
	if k.body == nil {
		mc.learn(t, sc, r.Body)
	}
}

// struckFirst checks a request sent at start that met a fault striking before any processing (an
// open down window, reset, down, status), and reports whether it did.
func (mc *pspMachine) struckFirst(t *rapid.T, r reply, start time.Time, f psp.Fault) bool {
	switch {
	case mc.m.down(start) || f.Kind == faultReset || f.Kind == faultDown:
		if f.Kind == faultDown {
			mc.m.downUntil = start.Add(f.Duration)
		}
		wantClosed(t, r)
		return true
	case f.Kind == faultStatus:
		wantRetryAfter := ""
		if f.RetryAfter > 0 { // in whole seconds, rounded up
			wantRetryAfter = strconv.FormatInt(int64((f.RetryAfter+time.Second-1)/time.Second), 10)
		}
		if r.Err != nil || r.Status != f.Status || problemCode(r.Body) != codeInjectedFault || r.Replayed ||
			r.RetryAfter != wantRetryAfter {
			t.Fatalf("status fault %d (Retry-After %q) answered %d %q, Retry-After %q, replayed=%v, error %v",
				f.Status, wantRetryAfter, r.Status, problemCode(r.Body), r.RetryAfter, r.Replayed, r.Err)
		}
		return true
	}
	return false
}

// learn checks body, the first answer seen for sc, and records it. A 201 is the receipt of the
// commit, with a new endToEndId. A 422 is insufficient_funds.
func (mc *pspMachine) learn(t *rapid.T, sc scope, body []byte) {
	k := mc.m.keys[sc]
	if k.status == 422 {
		if problemCode(body) != codeInsufficientFunds {
			t.Fatalf("a stored 422 has code %q, want insufficient_funds", problemCode(body))
		}
		mc.m.learn(sc, body, "")
		return
	}
	got, ok := wantReceipt(body, k.payload, k.settled)
	if !ok {
		t.Logf("body %s", body)
		t.Fatalf("a 201 is not the receipt of %+v settled at %v", k.payload, k.settled)
	}
	if mc.seen[got.EndToEndID] {
		t.Fatalf("an endToEndId was answered for two settlements")
	}
	mc.seen[got.EndToEndID] = true
	mc.m.learn(sc, body, got.EndToEndID)
}

// wantClosed checks that the PSP closed the connection without an answer.
func wantClosed(t *rapid.T, r reply) {
	if r.Err == nil {
		t.Fatalf("got %d, want the connection closed without an answer", r.Status)
	}
}

// wantElapsed checks the answer took exactly as long as f holds it: a late fault any answer, a
// slow one only a fresh payment.
func wantElapsed(t *rapid.T, start time.Time, f psp.Fault, replay bool) {
	var want time.Duration
	if f.Kind == faultLate || f.Kind == faultSlow && !replay {
		want = f.Duration
	}
	if got := time.Since(start); got != want {
		t.Fatalf("the answer took %v under fault %s, want %v", got, formatFaults([]psp.Fault{f}), want)
	}
}

// burst sends base (a live key's payload instead) from 2 to n goroutines under sc at once, some
// with another payload, maybe behind a slow fault. The request processed afresh is committed.
func (mc *pspMachine) burst(t *rapid.T, sc scope, base payload, n int) {
	if mc.m.down(time.Now()) {
		t.Skip("the PSP is down")
	}
	var before keyState
	if k, live := mc.m.live(sc, time.Now()); live {
		base, before = k.payload, k.state()
	}
	payloads := burstPayloads(t, base, n)
	if rapid.Bool().Draw(t, "slow first request") {
		mc.srv.Inject(psp.Slow(msRange(1, 2000).Draw(t, "slow")))
	}
	replies := burst(mc.client, mc.url, sc.token, sc.key, payloads)
	winner, err := judgeBurst(replies, payloads, before)
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

// check compares the balance, the ledger and, unless the PSP is down, each live key's replay.
func (mc *pspMachine) check(t *rapid.T) {
	if got, want := mc.srv.Stats().BalanceCents, mc.m.balance; got != want {
		t.Fatalf("Stats().BalanceCents = %d, model %d", got, want)
	}
	got := mc.srv.Settlements()
	if len(got) != len(mc.m.ledger) {
		t.Fatalf("the ledger has %d settlements, model %d", len(got), len(mc.m.ledger))
	}
	for i, s := range got {
		if e := mc.m.ledger[i]; s.Token != e.scope.token || s.IdempotencyKey != e.scope.key ||
			s.AmountCents != e.payload.cents() || s.PixKey != e.payload.Chave || s.Description != e.payload.InfoPagador ||
			!s.SettledAt.Equal(e.at) || e.endToEndID != "" && s.EndToEndID != e.endToEndID {
			t.Logf("ledger %+v\nmodel  %+v", s, e)
			t.Fatalf("settlement %d differs from the model", i)
		}
	}
	if !mc.m.down(time.Now()) {
		for _, sc := range mc.m.liveScopes(time.Now()) {
			mc.replay(t, sc, psp.Fault{})
		}
	}
}
