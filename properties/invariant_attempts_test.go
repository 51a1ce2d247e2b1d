package properties

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"pixretry/pix"
	"pixretry/retry"
)

// checkAttemptBudget is invariant 1: never more than AttemptsMax attempts. It counts attempts
// three ways, and they must agree: the client's "pix attempt" records (numbered 1, 2, ... in
// order, and matching Receipt.Attempts and the closing record), the round trips its HTTP
// client made, and the requests the PSP received with the call's key. The last count catches
// a request net/http would send again by itself, which no log or budget would see.
func checkAttemptBudget(tr Trace) error {
	var v violations
	for i, c := range tr.Calls {
		n := len(c.Attempts)
		if n > tr.Policy.AttemptsMax {
			v.addf("call %d made %d attempts, AttemptsMax is %d", i, n, tr.Policy.AttemptsMax)
		}
		if len(c.Trips) != n {
			v.addf("call %d: %d round trips but %d attempt records", i, len(c.Trips), n)
		}
		for j, a := range c.Attempts {
			if a.Number != j+1 {
				v.addf("call %d: attempt record %d is numbered %d", i, j+1, a.Number)
			}
		}
		if c.Err == nil && c.Receipt.Attempts != n {
			v.addf("call %d: Receipt.Attempts = %d, but %d attempts were made", i, c.Receipt.Attempts, n)
		}
		if e, ok := errors.AsType[*pix.OutcomeUnknownError](c.Err); ok && e.Attempts != n {
			v.addf("call %d: OutcomeUnknownError.Attempts = %d, but %d attempts were made", i, e.Attempts, n)
		}
		if c.Summary != nil && c.Summary.Attempts != n {
			v.addf("call %d: closing record says %d attempts, but %d were made", i, c.Summary.Attempts, n)
		}
	}
	checkWireCount(&v, tr)
	return v.err()
}

// checkWireCount reports every key under which the PSP received another number of requests
// than the clients' transports sent, less those the line stopped before they were written.
func checkWireCount(v *violations, tr Trace) {
	sent, received := map[scope]int{}, map[scope]int{}
	for _, c := range tr.Calls {
		for j, t := range c.Trips {
			if j >= len(c.Lines) || c.Lines[j].Fault.reachesPSP() {
				sent[scope{tr.Token, t.Key}]++
			}
		}
	}
	for _, ex := range tr.Wire {
		received[ex.scope()]++
	}
	for _, s := range slices.SortedFunc(maps.Keys(keysOf(sent, received)), compareScopes) {
		if sent[s] != received[s] {
			v.addf("key %q: the clients sent %d requests, the PSP received %d", s.key, sent[s], received[s])
		}
	}
}

// compareScopes orders scopes by token, then key, for reports that read the same every run.
func compareScopes(a, b scope) int {
	return cmp.Or(strings.Compare(a.token, b.token), strings.Compare(a.key, b.key))
}

// keysOf is the union of the key sets of a and b, as a map for maps.Keys.
func keysOf(a, b map[scope]int) map[scope]bool {
	out := map[scope]bool{}
	for s := range a {
		out[s] = true
	}
	for s := range b {
		out[s] = true
	}
	return out
}

// checkPermanentStops is invariant 2: a permanent error is never retried, and attempts stop at
// the first permanent failure. It reads the client's verdicts (every attempt before the last
// failed and was logged transient) and checks them against the wire (no attempt before the
// last got a final answer: 2xx or a status that is not 5xx, 409 or 429; and each logged verdict
// matches the answer's class). The converse holds too: a call stops after a transient failure
// only when its budget is spent or the server asked for a wait above DelayMax.
func checkPermanentStops(tr Trace) error {
	var v violations
	for i, c := range tr.Calls {
		for j, a := range c.Attempts {
			last := j == len(c.Attempts)-1
			switch {
			case !last && a.Error == "":
				v.addf("call %d: attempt %d succeeded, yet attempt %d followed", i, a.Number, a.Number+1)
			case !last && !a.Transient:
				v.addf("call %d: attempt %d failed permanently (%s), yet attempt %d followed", i, a.Number, a.Error, a.Number+1)
			}
			if j >= len(c.Trips) {
				continue
			}
			t := c.Trips[j]
			if !last && !transientTrip(t, tr.unreadable(i, j)) {
				v.addf("call %d: attempt %d got a final answer (%d), yet attempt %d followed", i, a.Number, t.Status, a.Number+1)
			}
			if a.Error != "" && a.Transient != transientTrip(t, tr.unreadable(i, j)) {
				v.addf("call %d: attempt %d logged transient=%v for a round trip with status %d, error %v", i, a.Number, a.Transient, t.Status, t.Err)
			}
		}
		checkGaveUpEarly(&v, tr, i, c)
	}
	return v.err()
}

// checkGaveUpEarly reports call i if it stopped after a transient failure with budget left,
// for no reason: neither a Retry-After above DelayMax nor the caller's deadline explains it.
func checkGaveUpEarly(v *violations, tr Trace, i int, c Call) {
	a, ok := lastOf(c.Attempts)
	t, paired := lastOf(c.Trips)
	if !ok || !paired || a.Error == "" || !a.Transient || len(c.Attempts) >= tr.Policy.AttemptsMax {
		return
	}
	if hintOf(t) <= tr.Policy.DelayMax && !stoppedForDeadline(tr.Policy, c) {
		v.addf("call %d stopped after transient attempt %d of %d (%s) with no reason to", i, a.Number, tr.Policy.AttemptsMax, a.Error)
	}
}

// stoppedForDeadline reports whether the caller's deadline explains why call c made no attempt
// after its last one, a transient failure: the deadline had passed, or the wait drawn after
// that attempt would have ended at or after it (retry does not start such a wait).
func stoppedForDeadline(p retry.Policy, c Call) bool {
	a, _ := lastOf(c.Attempts)
	t, _ := lastOf(c.Trips)
	n := len(c.Attempts)
	switch {
	case c.Deadline.IsZero():
		return false
	case !a.At.Before(c.Deadline):
		return true
	case len(c.Draws) < n:
		return false
	}
	wait := max(fullJitterOf(ceilingOf(p, n), c.Draws[n-1]), hintOf(t))
	return !a.At.Add(wait).Before(c.Deadline)
}

// checkFinalError is invariant 6: the final error is the last attempt's error. The call fails
// exactly when its last attempt failed, and its error says what that attempt's record says
// (pix logs the error's text, so the text is what the record can show). The values are
// checked on the wire side: an answer's status stays reachable as a *pix.Error with that
// status, and a transport failure as the very error the transport returned, with errors.As and
// errors.Is.
func checkFinalError(tr Trace) error {
	var v violations
	for i, c := range tr.Calls {
		a, ok := lastOf(c.Attempts)
		if !ok {
			continue
		}
		switch {
		case (c.Err == nil) != (a.Error == ""):
			v.addf("call %d returned error %v, its last attempt %d error %q", i, c.Err, a.Number, a.Error)
			continue
		case c.Err == nil:
			continue
		case !strings.Contains(c.Err.Error(), a.Error):
			v.addf("call %d returned %q, which does not say the last attempt's %q", i, c.Err, a.Error)
		}
		t, ok := lastOf(c.Trips)
		if !ok || len(c.Trips) != len(c.Attempts) {
			continue // invariant 1 reports it; the attempts cannot be paired with their trips
		}
		checkLastAnswer(&v, i, c.Err, t, tr.unreadable(i, len(c.Trips)-1))
		checkProblem(&v, tr, i, c.Err, t)
	}
	return v.err()
}

// checkProblem checks that the *pix.Error of call i carries the problem's code and detail as
// the PSP's answer to its last round trip t said them on the wire, or none when that answer was
// not a problem. The answer is one of the exchanges under t's key that arrived as t began, with
// t's status; when several fit, one that agrees is enough.
func checkProblem(v *violations, tr Trace, i int, err error, t Trip) {
	pe, ok := errors.AsType[*pix.Error](err)
	if !ok || t.Err != nil || t.BodyErr != nil {
		return
	}
	var said []string
	for _, ex := range tr.Wire {
		if ex.Key != t.Key || !ex.Arrived.Equal(t.Start) || ex.Status != t.Status {
			continue
		}
		var p struct{ Code, Detail string }
		if json.Unmarshal(ex.Body, &p) != nil {
			p.Code, p.Detail = "", ""
		}
		if p.Code == pe.Code && p.Detail == pe.Detail {
			return
		}
		said = append(said, fmt.Sprintf("%q %q", p.Code, p.Detail))
	}
	if len(said) > 0 {
		v.addf("call %d: error carries code %q and detail %q, the PSP's answer said %s", i, pe.Code, pe.Detail, strings.Join(said, " or "))
	}
}

// checkLastAnswer checks that err, the error of call i, carries what its last round trip t
// got: the transport's error, the error that cut the body short, or the answer. A 201 the call
// did not accept broke the contract and may hide a settlement: ErrContract and
// ErrOutcomeUnknown. Any other answer is a *pix.Error with its status, ErrContract exactly when
// the contract never gives that status (a 2xx other than 201, a 3xx).
func checkLastAnswer(v *violations, i int, err error, t Trip, unreadable bool) {
	var pe *pix.Error
	switch {
	case t.Err != nil || t.BodyErr != nil:
		if cause := cmp.Or(t.Err, t.BodyErr); !errors.Is(err, cause) {
			v.addf("call %d: errors.Is(%v, the transport's %v) = false", i, err, cause)
		}
		if errors.Is(err, pix.ErrContract) != unreadable {
			v.addf("call %d: errors.Is(%v, ErrContract) = %t after an answer with a header of more than %d bytes: %t", i, err, !unreadable, headerLimit, unreadable)
		}
	case t.Status == http.StatusCreated:
		if !errors.Is(err, pix.ErrContract) || !errors.Is(err, pix.ErrOutcomeUnknown) {
			v.addf("call %d: error %v after a 201 it did not accept, want ErrContract and ErrOutcomeUnknown", i, err)
		}
	case !errors.As(err, &pe) || pe.Status != t.Status:
		v.addf("call %d: error %v does not carry the last answer's status %d", i, err, t.Status)
	case errors.Is(err, pix.ErrContract) != (t.Status < 400):
		v.addf("call %d: errors.Is(%v, ErrContract) = %t after a %d answer", i, err, !(t.Status < 400), t.Status)
	}
}
