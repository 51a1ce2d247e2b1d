package properties

import (
	"bytes"
	"net/http"
	"slices"
	"testing"
	"time"

	"pixretry/pix"
)

// stored reports whether ex is an answer the PSP stores under its key: a 201 or a pending 202
// that keeps the contract for its request, or a 422 whose problem code is insufficient_funds or
// payment_rejected (an injected 422 or idempotency_key_reused is not).
func stored(ex Exchange) bool {
	switch ex.Status {
	case http.StatusCreated, http.StatusAccepted:
		return keepsContract(ex)
	case http.StatusUnprocessableEntity:
		code := problemCode(ex.Body)
		return code == "insufficient_funds" || code == "payment_rejected"
	}
	return false
}

// scope is a key as the PSP scopes it: per bearer token.
type scope struct{ token, key string }

func scopeOf(e Exchange) scope { return scope{e.Token, e.Key} }

// checkReplays is invariant 8: replays are byte-identical to the first answer for that key.
// An answer a fault distorted on its way out (a 2xx that is not a 201 keeping the contract)
// is not what the PSP stored, and is left out, up to the number of faults that distort. For
// each token and key, the first answer is the stored answer the handler wrote for the request
// that was not a replay, the most recent one to arrive before the replay was written (a key is
// new again KeyTTL after it completed). A replay must have its status and every byte of its
// body. When that answer never reached the wire (a drop fault), every replay must equal the
// first replay. A payment accepted pending has two stored answers: its 202 until it ends, and
// the answer of its end after, which every later replay repeats as the first replay did. A key
// may be answered afresh only once per lifetime. A lookup's 200 carries the
// body of the key's first answer, when that was a 201, byte for byte, up to the number of
// lookup faults that distort it.
//
// The rule holds on what reaches the core in every dialect. A front end's answers are not the
// core's bytes: Efí's first 201 says EM_PROCESSAMENTO and a replay the payout's status now, and
// Open Finance signs each answer anew. What stands in for them is that a key's answers name one
// payment (checkOnePaymentSaid).
func checkReplays(tr Trace) error {
	var v violations
	firsts := map[scope][]Exchange{} // per key, the fresh stored answers, in arrival order
	for _, ex := range tr.Wire {
		if !ex.Replayed && !lookup(ex) && stored(ex) {
			if prev, ok := lastOf(firsts[scopeOf(ex)]); ok && ex.Arrived.Sub(prev.Arrived) < tr.KeyTTL {
				v.addf("key %q answered afresh twice (%d at %v, %d at %v)", ex.Key, prev.Status, prev.Arrived, ex.Status,
					ex.Arrived)
			}
			firsts[scopeOf(ex)] = append(firsts[scopeOf(ex)], ex)
		}
	}
	firstReplay := map[scope]Exchange{}
	budget := tr.Distortions
	for _, ex := range tr.Wire {
		if !ex.Replayed {
			continue
		}
		if distorted(ex) && budget > 0 {
			budget--
			continue
		}
		if !stored(ex) {
			v.addf("key %q: %d %q is marked as a replay, but the PSP stores no such answer", ex.Key, ex.Status, ex.Body)
		}
		want, ok := firstAnswer(firsts[scopeOf(ex)], ex)
		if ok && want.Status == http.StatusAccepted && ex.Status != http.StatusAccepted {
			ok = false // its payment has ended, and its end is stored since
		}
		if !ok {
			if want, ok = firstReplay[scopeOf(ex)]; !ok || want.Status == http.StatusAccepted {
				firstReplay[scopeOf(ex)] = ex
				continue
			}
		}
		if ex.Status != want.Status || !bytes.Equal(ex.Body, want.Body) {
			v.addf("key %q replayed %d %q, the first answer was %d %q", ex.Key, ex.Status, ex.Body, want.Status, want.Body)
		}
	}
	checkLookupBodies(&v, tr, firsts)
	checkOnePaymentSaid(&v, tr)
	return v.err()
}

// checkOnePaymentSaid checks that, at a dialect's front end, every answer to a payment request
// under a key that names a payment (said.ID: Efí's e2eId, Open Finance's paymentId) names the
// one the key's first such answer named, within KeyTTL of it, but for as many answers as faults
// distort.
func checkOnePaymentSaid(v *violations, tr Trace) {
	if tr.Dialect.Front == nil {
		return
	}
	type named struct {
		id string
		at time.Time
	}
	first, budget := map[scope]named{}, tr.Distortions
	for _, ex := range tr.Front {
		p, ok := tr.paymentOf(ex.Trip)
		id := tr.Dialect.Says(ex, p).ID
		if lookup(ex) || !ok || id == "" {
			continue
		}
		f, seen := first[scopeOf(ex)]
		switch {
		case !seen || ex.Arrived.Sub(f.at) >= tr.KeyTTL:
			first[scopeOf(ex)] = named{id, ex.Arrived}
		case id != f.id && budget > 0:
			budget--
		case id != f.id:
			v.addf("key %q: an answer at %v names payment %s, the key's first named %s", ex.Key, ex.Arrived, id, f.id)
		}
	}
}

// paymentOf is the payment of the call whose round trip number is, and false if no call's is.
func (tr Trace) paymentOf(number int64) (pix.Payment, bool) {
	for _, c := range tr.Calls {
		for _, t := range slices.Concat(c.Trips, c.Lookup.Trips) {
			if t.Number == number {
				return c.Payment, true
			}
		}
	}
	return pix.Payment{}, false
}

// checkLookupBodies checks that each lookup answered 200 carries the body of the 201 that first
// answered its key, given firsts, the fresh stored answers of each key.
func checkLookupBodies(v *violations, tr Trace, firsts map[scope][]Exchange) {
	budget := tr.LookupDistortions
	for _, ex := range tr.Wire {
		if !lookup(ex) || ex.Status != http.StatusOK {
			continue
		}
		want, ok := firstAnswer(firsts[scopeOf(ex)], ex)
		switch {
		case !ok || want.Status != http.StatusCreated || bytes.Equal(ex.Body, want.Body):
		case budget > 0:
			budget--
		default:
			v.addf("key %q: a lookup answered %q, the settlement's 201 was %q", ex.Key, ex.Body, want.Body)
		}
	}
}

// firstAnswer returns, among the fresh stored answers for a key, the latest that arrived before
// replay was written. The wire cannot show a fresh answer that was dropped, so a key whose
// answer was dropped in one lifetime and written in an earlier one would be compared with the
// earlier one. Runs outlive keys, but a client sends a key only within its lifetime (invariant
// 5e), and psp's model property checks lifetimes itself.
func firstAnswer(firsts []Exchange, replay Exchange) (Exchange, bool) {
	var found Exchange
	ok := false
	for _, f := range firsts {
		if f.Arrived.After(replay.Answered) {
			break
		}
		found, ok = f, true
	}
	return found, ok
}

// distorted reports whether ex is a success the contract does not allow: a 2xx other than a
// 201 or a 202 that keeps the contract.
func distorted(ex Exchange) bool {
	return ex.Status/100 == 2 && !((ex.Status == http.StatusCreated || ex.Status == http.StatusAccepted) && keepsContract(ex))
}

// replaysPlanted are violations of this invariant, planted in the baseline trace.
var replaysPlanted = []planted{
	{"a replay with another body", "replayed 201",
		func(tr *Trace) { rewriteAnswer(tr, callSettled, 2, "150.00", "150.01") }},
	{"a replay with another status", "replayed 200", func(tr *Trace) { tr.answer(callSettled, 2).Status = 200 }},
	{"a key answered afresh twice", "answered afresh twice",
		func(tr *Trace) { tr.answer(callSettled, 2).Replayed = false }},
	{"a replay of an answer the PSP does not store", "the PSP stores no such answer",
		func(tr *Trace) { tr.answer(callUnknown, 1).Replayed = true }},
	{"a lookup that answers another body than the 201", "a lookup answered", func(tr *Trace) {
		ex := *tr.answer(callSettled, 1)
		ex.Method, ex.Status, ex.Request = http.MethodGet, http.StatusOK, nil
		ex.Arrived, ex.Answered = ex.Answered.Add(time.Minute), ex.Answered.Add(time.Minute)
		ex.Body = withBody(ex.Body, `Z"`, `+00:00"`) // the same instant, written otherwise
		tr.Wire = append(tr.Wire, ex)
	}},
	{"replays that differ after a dropped answer", "replayed 201", func(tr *Trace) {
		first := tr.answer(callSettled, 1)
		first.Status, first.Body, first.Hijacked = 0, nil, true
		again := *tr.answer(callSettled, 2)
		again.Body = withBody(again.Body, `Z"`, `+00:00"`) // the same instant, written otherwise
		tr.Wire = append(tr.Wire, again)
	}},
}

// TestKeepsContractSeesEveryBreach: the suite's reading of a 201 accepts the PSP's own and
// refuses each breach psp can make.
func TestKeepsContractSeesEveryBreach(t *testing.T) {
	tr := baseline(t)
	ok, id := *tr.answer(callSettled, 2), tr.Calls[callSettled].Receipt.EndToEndID
	if !keepsContract(ok) || distorted(ok) {
		t.Fatalf("keepsContract(the PSP's 201) = false, want true")
	}
	for name, body := range map[string][]byte{
		"not JSON":             []byte("<html></html>"),
		"cut short":            ok.Body[:40],
		"another amount":       withBody(ok.Body, "150.00", "150.01"),
		"another Pix key":      withBody(ok.Body, `"pix@`, `"0pix@`),
		"endToEndId too short": withBody(ok.Body, id, id[:len(id)-1]),
		"no status":            withBody(ok.Body, `"status":"REALIZADO",`, ""),
		"no horario":           withBody(ok.Body, `"horario"`, `"hora"`),
	} {
		ex := ok
		ex.Body = body
		if keepsContract(ex) || !distorted(ex) {
			t.Errorf("%s: keepsContract() = true, want false", name)
		}
	}
	if ex := (Exchange{Status: 200, Request: ok.Request, Body: ok.Body}); !distorted(ex) {
		t.Errorf("distorted(200 with a receipt) = false, want true")
	}
}
