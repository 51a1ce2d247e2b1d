package properties

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"pixretry/pix"
)

// checkFinalError is invariant 6: the final error is the last attempt's error. The call fails
// exactly when the last attempt of the phase that ended it failed, and its error says what that
// attempt's record says (pix logs the error's text). On the wire side, the error carries what the
// last round trip got (checkLastAnswer), and a *pix.Error carries the code and detail of the very
// answer the PSP wrote for that round trip, as its dialect gives them (checkProblem). A call
// whose retry the breaker refused is invariant 12's. A lookup's answer that ends it without a
// receipt, proof that nothing was paid (ErrNoSettlement) or another payment, settled, pending
// or rejected (ErrKeyReused), is invariant 16's. An answer that its payment is pending, or
// rejected, is invariant 17's.
func checkFinalError(tr Trace) error {
	var v violations
	for i, c := range tr.Calls {
		ph := c.final()
		a, ok := lastOf(ph.Attempts)
		answered := c.lookedUp() && (errors.Is(c.Err, pix.ErrNoSettlement) || errors.Is(c.Err, pix.ErrKeyReused))
		switch {
		case !ok || !c.lookedUp() && stoppedByBreaker(c):
			continue // a call the breaker ended: invariant 12 says what it returns
		case answered && (a.Error == "" || errors.Is(c.Err, pix.ErrKeyReused)):
		case (c.Err == nil) != (a.Error == ""):
			v.addf("call %d returned error %v, its last %sattempt %d error %q", i, c.Err, kind(c), a.Number, a.Error)
			continue
		case c.Err == nil:
			continue
		case !strings.Contains(c.Err.Error(), a.Error):
			v.addf("call %d returned %q, which does not say the last %sattempt's %q", i, c.Err, kind(c), a.Error)
		}
		t, ok := lastOf(ph.Trips)
		if !ok || len(ph.Trips) != len(ph.Attempts) || c.lookedUp() && errors.Is(c.Err, pix.ErrKeyReused) {
			continue // invariant 1 reports it: the attempts cannot be paired with their trips
		}
		if said := tr.lastHeard(c); said == statusPending || said == statusRejected && t.Status/100 == 2 {
			continue
		}
		s, whole := tr.saidTo(t, c.Payment)
		checkLastAnswer(&v, i, c.Err, t, s, tr.unreadable(t), c.lookedUp())
		if whole {
			checkProblem(&v, i, c.Err, s)
		}
	}
	return v.err()
}

// kind names the attempts of the phase that ended call c.
func kind(c Call) string {
	if c.lookedUp() {
		return phaseKinds[1]
	}
	return phaseKinds[0]
}

// checkLastAnswer checks that err, the error of call i, carries what its last round trip t
// got: the transport's error, the error that cut the body short, or the answer, which said s.
// A success the call did not accept (a 201, or a lookup's 200) broke the contract and may hide
// a settlement: ErrContract and ErrOutcomeUnknown. So does an Open Finance 422 the PSP did not
// sign (s.Unsigned). An Open Finance consent CONSUMED (s.Consumed) keeps the contract, and
// leaves the outcome unknown; one REJECTED (s.NoSettlement) proves nothing was paid. Any other
// answer is a *pix.Error with its status, ErrContract
// exactly when the contract never gives that status (another 2xx, a 3xx).
func checkLastAnswer(v *violations, i int, err error, t Trip, s said, unreadable, lookup bool) {
	success := http.StatusCreated
	if lookup {
		success = http.StatusOK
	}
	var pe *pix.Error
	switch {
	case t.Err != nil || t.BodyErr != nil:
		if cause := cmp.Or(t.Err, t.BodyErr); !errors.Is(err, cause) {
			v.addf("call %d: errors.Is(%v, the transport's %v) = false", i, err, cause)
		}
		if errors.Is(err, pix.ErrContract) != unreadable {
			v.addf("call %d: errors.Is(%v, ErrContract) = %t after an answer with a header of more than %d bytes: %t",
				i, err, !unreadable, headerLimit, unreadable)
		}
	case t.Status == success && s.Consumed:
		if errors.Is(err, pix.ErrContract) || !errors.Is(err, pix.ErrOutcomeUnknown) {
			v.addf("call %d: error %v after a consent CONSUMED, want ErrOutcomeUnknown and no ErrContract", i, err)
		}
	case t.Status == success && s.NoSettlement:
		if errors.Is(err, pix.ErrContract) || !errors.Is(err, pix.ErrNoSettlement) {
			v.addf("call %d: error %v after a consent REJECTED, want ErrNoSettlement and no ErrContract", i, err)
		}
	case t.Status == success || s.Unsigned:
		if !errors.Is(err, pix.ErrContract) || !errors.Is(err, pix.ErrOutcomeUnknown) {
			v.addf("call %d: error %v after a %d it did not accept, want ErrContract and ErrOutcomeUnknown", i, err, t.Status)
		}
	case !errors.As(err, &pe) || pe.Status != t.Status:
		v.addf("call %d: error %v does not carry the last answer's status %d", i, err, t.Status)
	case errors.Is(err, pix.ErrContract) != (t.Status < 400):
		v.addf("call %d: errors.Is(%v, ErrContract) = %t after a %d answer", i, err, !(t.Status < 400), t.Status)
	}
}

// checkProblem checks that the *pix.Error of call i carries the code of s, what the PSP's
// answer to the call's last round trip said, and its detail: as it is, or within pix's own
// wording of it (a dialect that joins several errors' details). Both are empty when that
// answer was not an error.
func checkProblem(v *violations, i int, err error, s said) {
	pe, ok := errors.AsType[*pix.Error](err)
	if !ok {
		return
	}
	if s.Code != pe.Code || !strings.Contains(pe.Detail, s.Detail) || s.Detail == "" && pe.Detail != "" {
		v.addf("call %d: error carries code %q and detail %q, the PSP's answer said %q %q",
			i, pe.Code, pe.Detail, s.Code, s.Detail)
	}
}

// notContract is a *pix.Error that hides its ErrContract: what a client that took a 2xx for a
// plain failure would return.
type notContract struct{ err *pix.Error }

func (e *notContract) Error() string      { return e.err.Error() }
func (e *notContract) As(target any) bool { return errors.As(e.err, target) }
func (e *notContract) Is(target error) bool {
	return target != pix.ErrContract && errors.Is(e.err, target)
}

// finalErrorPlanted are violations of this invariant, planted in the baseline trace.
var finalErrorPlanted = []planted{
	{"an answer whose header pix cannot read, without ErrContract",
		"ErrContract) = false after an answer with a header of more than", func(tr *Trace) {
			lostConnection(tr, callUnknown, 3, tr.Calls[callUnknown].Err)
			tr.answer(callUnknown, 3).HeaderBytes = headerLimit + 1
		}},
	{"a lost connection reported as ErrContract", "ErrContract) = true after an answer with a header of more than",
		func(tr *Trace) {
			lostConnection(tr, callUnknown, 3, tr.Calls[callUnknown].Err)
			tr.Calls[callUnknown].Err = fmt.Errorf("%w: %w", pix.ErrContract, tr.Calls[callUnknown].Err)
		}},
	{"an error with another problem code than the answer's", `error carries code "invalid_request"`,
		func(tr *Trace) { tr.Calls[callRefused].Err.(*pix.Error).Code = "invalid_request" }},
	{"an error that lost the answer's detail", `and detail ""`,
		func(tr *Trace) { tr.Calls[callRefused].Err.(*pix.Error).Detail = "" }},
	{"an error that lost the body's error", "the transport's unexpected EOF",
		func(tr *Trace) {
			tr.trip(callUnknown, 3).Status, tr.trip(callUnknown, 3).BodyErr = 201, io.ErrUnexpectedEOF
		}},
	{"a 201 refused without ErrContract", "after a 201 it did not accept",
		func(tr *Trace) { tr.trip(callUnknown, 3).Status = 201 }},
	{"a 200 that is not ErrContract", "ErrContract) = false after a 200", func(tr *Trace) {
		tr.trip(callUnknown, 3).Status = 200
		tr.unknownErr(callUnknown).Err = &notContract{&pix.Error{Status: 200}}
	}},
	{"a 503 that is ErrContract", "ErrContract) = true after a 503", func(tr *Trace) {
		tr.unknownErr(callUnknown).Err = errors.Join(tr.unknownErr(callUnknown).Err, pix.ErrContract)
	}},
	{"a failure whose last attempt succeeded", `its last attempt 1 error ""`,
		func(tr *Trace) { tr.attempt(callRefused, 1).Error = "" }},
	{"an error that is not the last attempt's", "does not say the last attempt's",
		func(tr *Trace) { tr.attempt(callUnknown, 3).Error = "pix: PSP answered 502 injected_fault" }},
	{"an error that lost the last answer's status", "does not carry the last answer's status 503",
		func(tr *Trace) { tr.unknownErr(callUnknown).Err = errors.New(tr.attempt(callUnknown, 3).Error) }},
	{"ErrNoSettlement that lost the lookup's answer", "does not carry the last answer's status 404",
		func(tr *Trace) {
			tr.Calls[callNoSettlement].Err = fmt.Errorf("%w: %w", pix.ErrNoSettlement, &pix.Error{Status: 410,
				Code: "outcome_unprovable"})
		}},
	{"an error that lost the transport's error", "the transport's EOF", func(tr *Trace) {
		lostConnection(tr, callUnknown, 3, io.EOF)
		tr.attempt(callUnknown, 3).Error = errEOF.Error()
		tr.unknownErr(callUnknown).Err = errors.New(errEOF.Error())
	}},
}
