package properties

import (
	"errors"
	"maps"
	"slices"

	"github.com/google/uuid"

	"pixretry/pix"
)

// checkKeys is invariant 4: the same Idempotency-Key on every attempt of a payment, and two
// payments never share a key. Every round trip of a call, every record it logged, its receipt
// and its *pix.OutcomeUnknownError carry the call's key (the one SendWithKey was given, if
// any); a key Send made is a UUID version 4 that no other Send made. (A caller may hand a
// Send's key to SendWithKey on purpose, to reconcile: that is the same payment.)
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
		checkCallKey(&v, i, c, key)
	}
	for _, key := range slices.Sorted(maps.Keys(sends)) {
		if len(sends[key]) > 1 {
			v.addf("calls %v all made key %q", sends[key], key)
		}
	}
	return v.err()
}

// checkCallKey reports every place where call i shows a key other than key.
func checkCallKey(v *violations, i int, c Call, key string) {
	for j, t := range c.Trips {
		if t.Key != key {
			v.addf("call %d: round trip %d sent key %q, the call's key is %q", i, j+1, t.Key, key)
		}
	}
	for _, a := range c.Attempts {
		if a.Key != key {
			v.addf("call %d: attempt %d logged key %q, the call's key is %q", i, a.Number, a.Key, key)
		}
	}
	if c.Summary != nil && c.Summary.Key != key {
		v.addf("call %d: closing record has key %q, the call's key is %q", i, c.Summary.Key, key)
	}
	if c.Err == nil && c.Receipt.IdempotencyKey != key {
		v.addf("call %d: Receipt.IdempotencyKey = %q, the call's key is %q", i, c.Receipt.IdempotencyKey, key)
	}
	if e, ok := errors.AsType[*pix.OutcomeUnknownError](c.Err); ok && e.Key != key {
		v.addf("call %d: OutcomeUnknownError.Key = %q, the call's key is %q", i, e.Key, key)
	}
	if u, err := uuid.Parse(key); c.GivenKey == "" && (err != nil || u.Version() != 4 || u.String() != key) {
		v.addf("call %d: Send made key %q, not a lower-case UUID v4", i, key)
	}
}
