package properties

import (
	"cmp"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"

	"pixretry/pix"
)

// checkKeys is invariant 4: the same Idempotency-Key on every attempt of a payment, and two
// payments never share a key. Every round trip of a call, its lookups included, every attempt it
// reported, its receipt and its *pix.OutcomeUnknownError carry the call's key (the one
// SendWithKey or Resume was given, if any); a key Send made is one of the dialect's
// (dialect.MadeKey: a UUID version 4 in the double's own API) that no other Send made. (A
// caller may hand a Send's key to Resume on purpose, to reconcile: that is the same payment.)
//
// The key is where the dialect carries it: Efí's idEnvio in the path. Open Finance has no
// lookup by key: what stands in is that a lookup names the call's payment, by the paymentId
// the PSP answered under the call's key, or by the consent of the call's payment (lookupKey).
// And since its client signs each attempt anew, the same payment under a key is the same data
// claim: every attempt of a payment under a key, a resend's included, carries the data of the
// first, and no two requests of a run carry one jti (checkSignedAnew).
func checkKeys(tr Trace) error {
	var v violations
	sends := map[string][]int{} // key → the Send calls that made it
	for i, c := range tr.Calls {
		key := c.Key()
		if key == "" {
			if len(c.Trips) > 0 || len(c.Attempts) > 0 {
				v.addf("call %d made attempts without an Idempotency-Key", i)
			}
			continue
		}
		if c.GivenKey == "" {
			sends[key] = append(sends[key], i)
		}
		checkCallKey(&v, tr, i, c, key)
	}
	for _, key := range slices.Sorted(maps.Keys(sends)) {
		if len(sends[key]) > 1 {
			v.addf("calls %v all made key %q", sends[key], key)
		}
	}
	checkSignedAnew(&v, tr)
	return v.err()
}

// checkSignedAnew checks the signed requests of a dialect whose client signs them
// (dialect.Claims): each jti once in the run, and every attempt of one payment under one key
// with the data claim of the first.
func checkSignedAnew(v *violations, tr Trace) {
	if tr.Dialect.Claims == nil {
		return
	}
	type paying struct {
		key string
		p   pix.Payment
	}
	jtis, data := map[string]int64{}, map[paying]string{}
	for _, ex := range tr.Front {
		jti, d, ok := tr.Dialect.Claims(ex)
		if !ok {
			continue
		}
		if n, seen := jtis[jti]; seen {
			v.addf("requests %d and %d carry one jti %q", n, ex.Trip, jti)
		}
		jtis[jti] = ex.Trip
		p, ok := tr.paymentOf(ex.Trip)
		if !ok {
			continue // the run's own, a consent
		}
		k := paying{ex.Key, p}
		if first, seen := data[k]; seen && first != d {
			v.addf("request %d under key %q carries another data claim than its payment's first: %s, then %s", ex.Trip,
				ex.Key, first, d)
		}
		data[k] = cmp.Or(data[k], d)
	}
}

// checkCallKey reports every place where call i shows a key other than key.
func checkCallKey(v *violations, tr Trace, i int, c Call, key string) {
	for k, ph := range c.phases() {
		for j, t := range ph.Trips {
			if got := tr.lookupKey(t.Method, t.Key); got != key {
				v.addf("call %d: %sround trip %d sent key %q, the call's key is %q", i, phaseKinds[k], j+1, got, key)
			}
		}
		for _, a := range ph.Attempts {
			if a.Key != key {
				v.addf("call %d: %sattempt %d reported key %q, the call's key is %q", i, phaseKinds[k], a.Number, a.Key, key)
			}
		}
		if ph.Summary != nil && ph.Summary.Key != key {
			v.addf("call %d: %sclosing record has key %q, the call's key is %q", i, phaseKinds[k], ph.Summary.Key, key)
		}
	}
	if c.Err == nil && c.Receipt.IdempotencyKey != key {
		v.addf("call %d: Receipt.IdempotencyKey = %q, the call's key is %q", i, c.Receipt.IdempotencyKey, key)
	}
	if e, ok := errors.AsType[*pix.OutcomeUnknownError](c.Err); ok && e.Key != key {
		v.addf("call %d: OutcomeUnknownError.Key = %q, the call's key is %q", i, e.Key, key)
	}
	if c.GivenKey == "" && !tr.Dialect.MadeKey(key) {
		v.addf("call %d: Send made key %q, not %s", i, key, tr.Dialect.KeyForm)
	}
}

// lookupKey is the key that a request of method carrying key names: key itself, but for an
// Open Finance lookup, which carries the PSP's id of the payment or of its consent. That is
// the key of the payment the PSP answered under it with that paymentId, or the key of the
// calls whose payment consumes that consent; "" if none.
func (tr Trace) lookupKey(method, key string) string {
	if method != http.MethodGet || !tr.Dialect.LooksUpByID {
		return key
	}
	for _, c := range tr.Calls {
		if c.Payment.ConsentID == key && c.Key() != "" {
			return c.Key()
		}
	}
	for _, ex := range tr.Front {
		if !lookup(ex) && ex.Trip != 0 && tr.Dialect.Says(ex, pix.Payment{}).ID == key {
			return ex.Key
		}
	}
	return ""
}

// rekey gives call i key everywhere the trace shows its key.
func rekey(tr *Trace, i int, key string) {
	c := &tr.Calls[i]
	for j := range c.Trips {
		tr.answer(i, j+1).Key = key
		c.Trips[j].Key, c.Attempts[j].Key = key, key
	}
	c.Summary.Key = key
}

// keysPlanted are violations of this invariant, planted in the baseline trace.
var keysPlanted = []planted{
	{"another key on a retry", "round trip 2 sent key",
		func(tr *Trace) { tr.trip(callSettled, 2).Key = tr.Calls[callRefused].Key() }},
	{"another key looked up", "lookup round trip 1 sent key \"other\"",
		func(tr *Trace) { tr.lookupTrip(callFound, 1).Key = "other" }},
	{"another key in an attempt event", "attempt 2 reported key",
		func(tr *Trace) { tr.attempt(callUnknown, 2).Key = "other" }},
	{"another key in the closing record", "closing record has key",
		func(tr *Trace) { tr.Calls[callRefused].Summary.Key = "other" }},
	{"another key in the receipt", "Receipt.IdempotencyKey",
		func(tr *Trace) { tr.Calls[callSettled].Receipt.IdempotencyKey = "other" }},
	{"another key in OutcomeUnknownError", "OutcomeUnknownError.Key",
		func(tr *Trace) { tr.unknownErr(callUnknown).Key = "other" }},
	{"a key that is not a UUID v4", "not a lower-case UUID v4",
		func(tr *Trace) { rekey(tr, callRefused, "payment-0001") }},
	{"an upper-case UUID", "not a lower-case UUID v4",
		func(tr *Trace) { rekey(tr, callRefused, strings.ToUpper(tr.Calls[callRefused].Key())) }},
	{"two Sends with one key", "calls [1 2] all made key",
		func(tr *Trace) { rekey(tr, callRefused, tr.Calls[callUnknown].Key()) }},
	{"attempts without a key", "without an Idempotency-Key", func(tr *Trace) { rekey(tr, callUnknown, "") }},
}
