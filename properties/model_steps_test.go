package properties

import (
	"bytes"
	"strconv"
	"time"

	"pgregory.net/rapid"

	"pixretry/psp"
)

// fresh sends p under sc, a key with no live answer, with fault f queued for it (the zero
// Fault for none), and checks the reply and the model's new state. The messages of t.Fatalf
// hold no endToEndId: rapid shrinks only while the failure message stays the same.
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

// replay sends again the payload stored under sc, a live key, with fault f queued for it, and
// checks that the stored answer comes back byte for byte.
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

// struckFirst reports whether the request sent at start met a fault that strikes before any
// processing (an open down window, reset, down, status), after checking its reply and
// recording a new down window in the model.
func (mc *pspMachine) struckFirst(t *rapid.T, r reply, start time.Time, f psp.Fault) bool {
	switch {
	case mc.m.down(start) || f.Kind == faultReset || f.Kind == faultDown:
		if f.Kind == faultDown {
			mc.m.downUntil = start.Add(f.Duration)
		}
		wantClosed(t, r)
		return true
	case f.Kind == faultStatus:
		wantInjected(t, r, f)
		return true
	}
	return false
}

// learn checks body, the first answer seen for sc, against the contract and the model, and
// records it: a 201 is the receipt of the payment at its commit instant, with a fresh
// endToEndId; a 422 is insufficient_funds.
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

// wantInjected checks the answer of a status fault: its status, its problem code, and its
// Retry-After in whole seconds, rounded up.
func wantInjected(t *rapid.T, r reply, f psp.Fault) {
	wantRetryAfter := ""
	if f.RetryAfter > 0 {
		wantRetryAfter = strconv.FormatInt(int64((f.RetryAfter+time.Second-1)/time.Second), 10)
	}
	if r.Err != nil || r.Status != f.Status || problemCode(r.Body) != codeInjectedFault || r.Replayed ||
		r.RetryAfter != wantRetryAfter {
		t.Fatalf("status fault %d (Retry-After %q) answered %d %q, Retry-After %q, replayed=%v, error %v",
			f.Status, wantRetryAfter, r.Status, problemCode(r.Body), r.RetryAfter, r.Replayed, r.Err)
	}
}

// wantElapsed checks that the answer took exactly as long as fault f holds it: a late fault
// holds every answer, a slow one holds only a fresh payment (a replay is answered before the
// point where the slow fault waits).
func wantElapsed(t *rapid.T, start time.Time, f psp.Fault, replay bool) {
	var want time.Duration
	if f.Kind == faultLate || f.Kind == faultSlow && !replay {
		want = f.Duration
	}
	if got := time.Since(start); got != want {
		t.Fatalf("the answer took %v under fault %s, want %v", got, formatFaults([]psp.Fault{f}), want)
	}
}
