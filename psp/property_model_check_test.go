package psp_test

import (
	"fmt"
	"strconv"
	"time"

	"pgregory.net/rapid"

	"pixretry/psp"
)

// The checks of TestPSPMatchesModel. A t.Fatalf message holds no endToEndId: rapid shrinks only
// while the failure message stays the same.

// send sends s with fault f queued (the zero Fault for none) and checks the answer. A key with no
// live answer is processed afresh: the answer is fresh, with the status the balance and the
// pending rules give, and the model commits it. A closed key with no live answer is refused
// instead (wantClosedKey). A live key answers as stepKey says: its stored answer, byte for byte,
// to the same payload, with the stored status; 422 idempotency_key_reused to another. A pending
// payment's stored answer is its 202 until its end, then the answer of its end, learnt anew.
func (mc *pspMachine) send(t *rapid.T, s sent, f psp.Fault) {
	start := time.Now()
	mc.m.endDue(start)
	k, live := mc.m.live(s.scope, start)
	r := mc.post(s)
	if mc.struckFirst(t, r, start, f) {
		return
	}
	if !live && mc.m.closed[s.scope] {
		wantClosedKey(t, r, start, f)
		return
	}
	if !live {
		at := start
		if f.Kind == "slow" {
			at = start.Add(f.Duration)
		}
		mc.m.endDue(at) // a rejection due by the commit has released its valor
		k = mc.m.commit(s.scope, s.payload, at, f)
	}
	if f.Kind == "drop" {
		wantNoAnswer(t, r)
		return
	}
	wantElapsed(t, start, f, !live)
	out := classify(r)
	ok, next := out.Kind == answerFresh, keyState{Phase: keyComplete, Payload: s.payload, Answer: out.Answer}
	if !live && k.status == 202 { // accepted pending: fresh, though keyModel knows no 202
		ok, next.Answer = r.Status == 202 && !r.Replayed, fmt.Sprintf("%d %s", r.Status, r.Body)
	}
	if live {
		ok, next = stepKey(k.keyState, keyInput{Step: stepObserve, Payload: s.payload}, out)
	}
	if r.Err != nil || !ok || out.Kind != answerReused && r.Status != k.status {
		t.Logf("stored %q", k.Answer)
		t.Fatalf("a request under a key live=%v got %d %q (replayed=%v, error %v), which the contract forbids; "+
			"the stored status is %d", live, r.Status, problemCode(r.Body), r.Replayed, r.Err, k.status)
	}
	if out.Kind != answerReused && k.Answer == "" {
		mc.learn(t, k, r.Body)
	}
	k.keyState = next
}

// struckFirst checks a request sent at start that met a fault striking before any processing (an
// open down window, reset, down, status), and reports whether it did.
func (mc *pspMachine) struckFirst(t *rapid.T, r reply, start time.Time, f psp.Fault) bool {
	switch {
	case mc.m.down(start) || f.Kind == "reset" || f.Kind == "down":
		if f.Kind == "down" {
			mc.m.downUntil = start.Add(f.Duration)
		}
		wantNoAnswer(t, r)
		return true
	case f.Kind == "status":
		wantRetryAfter := ""
		if f.RetryAfter > 0 { // in whole seconds, rounded up
			wantRetryAfter = strconv.FormatInt(int64((f.RetryAfter+time.Second-1)/time.Second), 10)
		}
		if r.Err != nil || r.Status != f.Status || problemCode(r.Body) != "injected_fault" || r.Replayed ||
			r.RetryAfter != wantRetryAfter {
			t.Fatalf("status fault %d (Retry-After %q) answered %d %q, Retry-After %q, replayed=%v, error %v",
				f.Status, wantRetryAfter, r.Status, problemCode(r.Body), r.RetryAfter, r.Replayed, r.Err)
		}
		return true
	}
	return false
}

// wantClosedKey checks the answer to a payment that would have made a new entry under a key a
// lookup closed: 422 idempotency_key_closed, fresh, and nothing paid or stored.
func wantClosedKey(t *rapid.T, r reply, start time.Time, f psp.Fault) {
	if f.Kind == "drop" {
		wantNoAnswer(t, r)
		return
	}
	wantElapsed(t, start, f, false)
	if r.Err != nil || r.Status != 422 || problemCode(r.Body) != "idempotency_key_closed" || r.Replayed {
		t.Fatalf("a payment under a closed key got %d %q (replayed=%v, error %v), want 422 idempotency_key_closed",
			r.Status, problemCode(r.Body), r.Replayed, r.Err)
	}
}

// lookup looks up a key, used or fresh, under either token. Unless the PSP is down, it answers
// at once: 202 with the body of its 202 while its payment is pending, 200 NAO_REALIZADO while the
// key of its rejected payment lives (lookupEnded); else as pspModel.lookup says, 200 with the
// body of the settlement's 201, byte for byte, else 404 payment_not_found.
func (mc *pspMachine) lookup(t *rapid.T) {
	sc := scope{rapid.SampledFrom(modelTokens).Draw(t, "token"), rapid.SampledFrom(modelKeys).Draw(t, "key")}
	start := time.Now()
	mc.m.endDue(start)
	r := mc.get(sc)
	if mc.m.down(start) {
		wantNoAnswer(t, r)
		return
	}
	wantElapsed(t, start, psp.Fault{}, false)
	if k, live := mc.m.live(sc, start); live && (k.status == 202 || k.rejected != "") {
		mc.lookupPending(t, k, r)
		return
	}
	k := mc.m.lookup(sc)
	if k == nil {
		if r.Err != nil || r.Status != 404 || problemCode(r.Body) != "payment_not_found" {
			t.Fatalf("a lookup of a key with no settlement got %d %q (error %v), want 404 payment_not_found",
				r.Status, problemCode(r.Body), r.Err)
		}
		return
	}
	if r.Err == nil && r.Status == 200 && k.Answer == "" { // only a dropped answer has shown it
		mc.learn(t, k, r.Body)
		k.Answer = fmt.Sprintf("201 %s", r.Body)
	}
	if r.Err != nil || r.Status != 200 || fmt.Sprintf("201 %s", r.Body) != k.Answer {
		t.Logf("stored %q\ngot    %d %s", k.Answer, r.Status, r.Body)
		t.Fatalf("a lookup of a settled key got %d %q (error %v), want 200 with the body of its 201",
			r.Status, problemCode(r.Body), r.Err)
	}
}

// learn checks body, the first answer seen for k, or the first since its pending payment ended.
// A 201 is the receipt of the settlement, a 202 that of the acceptance. Either carries the
// endToEndId made at the commit: a new one, which k learns, or the one k has learnt. A 422 is
// insufficient_funds, or payment_rejected once a pending payment is rejected.
func (mc *pspMachine) learn(t *rapid.T, k *modelKey, body []byte) {
	switch {
	case k.status == 422 && k.rejected != "":
		if problemCode(body) != "payment_rejected" {
			t.Fatalf("the replay of a rejected payment has code %q, want payment_rejected", problemCode(body))
		}
		return
	case k.status == 422:
		if problemCode(body) != "insufficient_funds" {
			t.Fatalf("a stored 422 has code %q, want insufficient_funds", problemCode(body))
		}
		return
	}
	status := "REALIZADO"
	if k.status == 202 {
		status = "EM_PROCESSAMENTO"
	}
	mc.learnAbout(t, k, body, status, "")
}

// wantNoAnswer checks that the PSP closed the connection without an answer.
func wantNoAnswer(t *rapid.T, r reply) {
	if r.Err == nil {
		t.Fatalf("got %d, want the connection closed without an answer", r.Status)
	}
}

// wantElapsed checks the answer took exactly as long as f holds it: a late fault any answer, a
// slow one only a fresh payment.
func wantElapsed(t *rapid.T, start time.Time, f psp.Fault, fresh bool) {
	var want time.Duration
	if f.Kind == "late" || f.Kind == "slow" && fresh {
		want = f.Duration
	}
	if got := time.Since(start); got != want {
		t.Fatalf("the answer took %v under fault %s, want %v", got, faultName(f), want)
	}
}

// faultName names f for a failure message: its kind, and its duration if it has one.
func faultName(f psp.Fault) string {
	switch {
	case f.Kind == "":
		return "none"
	case f.Duration > 0:
		return fmt.Sprintf("%s %v", f.Kind, f.Duration)
	}
	return string(f.Kind)
}

// check compares the balance, the ledger and, unless the PSP is down, each live key's replay.
func (mc *pspMachine) check(t *rapid.T) {
	mc.m.endDue(time.Now())
	st := mc.srv.Stats()
	if st.BalanceCents != mc.m.balance || st.Pending != len(mc.m.pending) || st.Rejected != mc.m.rejected {
		t.Fatalf("Stats() has balance %d, %d pending and %d rejected; model %d, %d and %d", st.BalanceCents,
			st.Pending, st.Rejected, mc.m.balance, len(mc.m.pending), mc.m.rejected)
	}
	got := mc.srv.Settlements()
	if len(got) != len(mc.m.ledger) {
		t.Fatalf("the ledger has %d settlements, model %d", len(got), len(mc.m.ledger))
	}
	for i, s := range got {
		if e := mc.m.ledger[i]; s.Token != e.scope.token || s.IdempotencyKey != e.scope.key ||
			s.AmountCents != e.Payload.cents() || s.PixKey != e.Payload.Chave || s.Description != e.Payload.InfoPagador ||
			!s.SettledAt.Equal(e.settled) || e.endToEndID != "" && s.EndToEndID != e.endToEndID {
			t.Logf("ledger %+v\nmodel  %+v", s, e)
			t.Fatalf("settlement %d differs from the model", i)
		}
	}
	if now := time.Now(); !mc.m.down(now) {
		for _, sc := range mc.scopes(true, now) {
			mc.send(t, sent{sc, mc.m.keys[sc].Payload}, psp.Fault{})
		}
	}
}
