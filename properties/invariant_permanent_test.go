package properties

import (
	"io"
	"net"
)

// checkPermanentStops is invariant 2: a permanent error is never retried, and attempts stop at
// the first permanent failure. Every attempt before the last failed and was reported transient;
// no round trip before the last got a final answer, by the wire's account (transientTrip); and
// each reported verdict is the wire's class of that round trip. A lookup's attempts are held to
// the same rule, but an Await's, which look again after an answer that says the payment is
// pending: the double's 202, Efí's 200 EM_PROCESSAMENTO, Open Finance's 200 of a payment
// pending or of a consent still AUTHORISED. pix classifies every dialect's answers by their
// status alone, as transientTrip does.
func checkPermanentStops(tr Trace) error {
	var v violations
	for i, c := range tr.Calls {
		for k := range c.phases() {
			checkStops(&v, tr, i, c, k)
		}
	}
	return v.err()
}

// checkStops checks the attempts of phase k of call i, c.
func checkStops(v *violations, tr Trace, i int, c Call, k int) {
	ph, kind := c.phases()[k], phaseKinds[k]
	for j, a := range ph.Attempts {
		last := j == len(ph.Attempts)-1
		polled := !a.Transient && again(c, a)
		switch {
		case !last && a.Error == "":
			v.addf("call %d: %sattempt %d succeeded, yet %sattempt %d followed", i, kind, a.Number, kind, a.Number+1)
		case !last && !a.Transient && !polled:
			v.addf("call %d: %sattempt %d failed permanently (%s), yet %sattempt %d followed",
				i, kind, a.Number, a.Error, kind, a.Number+1)
		}
		if j >= len(ph.Trips) {
			continue // invariant 1 reports it
		}
		t := ph.Trips[j]
		transient := transientTrip(t, tr.unreadable(t))
		if s, _ := tr.saidTo(t, c.Payment); !last && !transient && !(polled && s.State == statusPending) {
			v.addf("call %d: %sattempt %d got a final answer (%d), yet %sattempt %d followed",
				i, kind, a.Number, t.Status, kind, a.Number+1)
		}
		if a.Error != "" && a.Transient != transient {
			v.addf("call %d: %sattempt %d reported transient=%v for a round trip with status %d, error %v",
				i, kind, a.Number, a.Transient, t.Status, t.Err)
		}
	}
}

// errNoHost is the error a transport reports for a name that does not resolve.
var errNoHost = &net.OpError{Op: "dial", Net: "tcp",
	Err: &net.DNSError{Err: "no such host", Name: "psp.invalid", IsNotFound: true}}

// permanentPlanted are violations of this invariant, planted in the baseline trace.
var permanentPlanted = []planted{
	{"an answer whose header pix cannot read, retried",
		"reported transient=true for a round trip with status 0, error read tcp: read: connection reset", func(tr *Trace) {
			lostConnection(tr, callUnknown, 2, errReset)
			tr.answer(callUnknown, 2).HeaderBytes = headerLimit + 1
		}},
	{"a name that does not resolve, retried",
		"reported transient=true for a round trip with status 0, error dial tcp: lookup psp.invalid: no such host",
		func(tr *Trace) { lostConnection(tr, callUnknown, 2, errNoHost) }},
	{"an attempt after a permanent failure", "failed permanently",
		func(tr *Trace) { tr.attempt(callUnknown, 1).Transient = false }},
	{"an attempt after a success", "succeeded, yet attempt 2 followed",
		func(tr *Trace) { tr.attempt(callSettled, 1).Error = "" }},
	{"an attempt after a final answer on the wire", "got a final answer (400)",
		func(tr *Trace) { tr.trip(callUnknown, 1).Status = 400 }},
	{"a verdict that contradicts the wire", "reported transient=true for a round trip with status 422",
		func(tr *Trace) { tr.attempt(callRefused, 1).Transient = true }},
	{"a lookup's verdict that contradicts the wire",
		"lookup attempt 1 reported transient=true for a round trip with status 404",
		func(tr *Trace) {
			a := &tr.Calls[callNoSettlement].Lookup.Attempts[0]
			a.Error, a.Transient = "pix: PSP answered 404 payment_not_found", true
		}},
	{"a 201 cut short judged permanent", "reported transient=false for a round trip with status 201",
		func(tr *Trace) {
			tr.trip(callUnknown, 3).Status, tr.trip(callUnknown, 3).BodyErr = 201, io.ErrUnexpectedEOF
			tr.attempt(callUnknown, 3).Transient = false
		}},
}
