package properties

import (
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"pixretry/pix"
	"pixretry/psp"
)

// planted is a violation planted in the baseline trace. Its invariant must report it with a
// message containing want, which names the clause that saw it.
type planted struct {
	name  string
	want  string
	plant func(*Trace)
}

// TestNoVacuousInvariant hands every invariant, clause by clause, a trace that violates it: a
// property that cannot fail proves nothing. The invariant and checkAll must both report it.
func TestNoVacuousInvariant(t *testing.T) {
	for _, inv := range invariants {
		if len(inv.planted) == 0 {
			t.Errorf("invariant %s has no planted violation", inv.name)
		}
		for _, c := range inv.planted {
			t.Run(c.name, func(t *testing.T) {
				tr := baseline(t)
				c.plant(&tr)
				if err := inv.check(tr); err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("invariant %s = %v, want a violation saying %q", inv.name, err, c.want)
				}
				if err := checkAll(tr); err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("checkAll() = %v, want it to report %q", err, c.want)
				}
			})
		}
	}
}

// attempt is the record of payment attempt n of call i, trip its round trip, answer the request
// that round trip became.
func (tr *Trace) attempt(i, n int) *Attempt { return &tr.Calls[i].Attempts[n-1] }
func (tr *Trace) trip(i, n int) *Trip       { return &tr.Calls[i].Trips[n-1] }
func (tr *Trace) answer(i, n int) *Exchange { return tr.exchange(tr.trip(i, n).Number) }

// exchange is the request that round trip number became. A missing one panics: the baseline
// pairs every round trip.
func (tr *Trace) exchange(number int64) *Exchange {
	return &tr.Wire[slices.IndexFunc(tr.Wire, func(ex Exchange) bool { return ex.Trip == number })]
}

// unknownErr is the *pix.OutcomeUnknownError of call i.
func (tr *Trace) unknownErr(i int) *pix.OutcomeUnknownError {
	return tr.Calls[i].Err.(*pix.OutcomeUnknownError)
}

// secondSettlement settles the payment of call i a second time under its key, after its first
// settlement under it.
func secondSettlement(tr *Trace, i int, after time.Duration) {
	c := tr.Calls[i]
	s := tr.Ledger[slices.IndexFunc(tr.Ledger, func(s psp.Settlement) bool {
		return s.IdempotencyKey == c.Key() && pays(s, c.Payment)
	})]
	s.EndToEndID, s.SettledAt = "E12345678202601021001abcdefghijl", s.SettledAt.Add(after)
	tr.Ledger = append(tr.Ledger, s)
}

// settle puts in the ledger a settlement of call i's payment under its key.
func settle(tr *Trace, i int) {
	c := tr.Calls[i]
	tr.Ledger = append(tr.Ledger, psp.Settlement{Token: runToken, IdempotencyKey: c.Key(),
		EndToEndID: "E12345678202601021000abcdefghijn", AmountCents: c.Payment.AmountCents,
		PixKey: c.Payment.PixKey, Description: c.Payment.Description, SettledAt: c.Start})
}

// hiddenResend makes the request of round trip n of call i arrive at the PSP twice.
func hiddenResend(tr *Trace, i, n int) { tr.Wire = append(tr.Wire, *tr.answer(i, n)) }

// rekey gives call i key everywhere the trace shows its key.
func rekey(tr *Trace, i int, key string) {
	c := &tr.Calls[i]
	for j := range c.Trips {
		tr.answer(i, j+1).Key = key
		c.Trips[j].Key, c.Attempts[j].Key = key, key
	}
	c.Summary.Key = key
}

// setWait changes the wait after attempt n of call i. The rest of the call moves in time, so
// that the next attempt still starts when the wait ends.
func setWait(tr *Trace, i, n int, wait time.Duration) {
	c := &tr.Calls[i]
	shift := wait - c.Attempts[n-1].Wait
	c.Attempts[n-1].Wait = wait
	for k := n; k < len(c.Attempts); k++ {
		c.Attempts[k].At, c.Attempts[k].Elapsed = c.Attempts[k].At.Add(shift), c.Attempts[k].Elapsed+shift
		c.Trips[k].Start, c.Trips[k].End = c.Trips[k].Start.Add(shift), c.Trips[k].End.Add(shift)
	}
	c.End = c.End.Add(shift)
}

// stopAfter ends call i at its attempt n, logged as a permanent failure and returned. The later
// round trips never happened.
func stopAfter(tr *Trace, i, n int) {
	c := &tr.Calls[i]
	forgetAfter(tr, i, n)
	c.Draws = c.Draws[:n-1]
	c.Attempts[n-1].Transient, c.Attempts[n-1].Wait = false, 0
	c.End, c.Summary.At, c.Summary.Attempts = c.Attempts[n-1].At, c.Attempts[n-1].At, n
	c.Err = &pix.OutcomeUnknownError{Key: c.Key(), Attempts: n, Err: errors.New(c.Attempts[n-1].Error)}
}

// expiredAfter ends call i after its attempt n and the wait logged after it, as the key
// deadline does: attempt n+1 was not sent, and the call returned pix.ErrKeyExpired. The later
// round trips never happened.
func expiredAfter(tr *Trace, i, n int) {
	c := &tr.Calls[i]
	forgetAfter(tr, i, n)
	a := c.Attempts[n-1]
	c.Draws, c.Tickets = c.Draws[:n], c.Tickets[:n]
	c.End, c.Summary.At, c.Summary.Attempts = a.At.Add(a.Wait), a.At.Add(a.Wait), n
	c.Err = &pix.OutcomeUnknownError{Key: c.Key(), Attempts: n, FirstSent: c.Trips[0].Start,
		Err: fmt.Errorf("%w; last error: %w", pix.ErrKeyExpired, errors.New(a.Error))}
}

// forgetAfter removes the attempts of call i after its attempt n, and their round trips on both
// sides of the wire.
func forgetAfter(tr *Trace, i, n int) {
	c := &tr.Calls[i]
	for j := n + 1; j <= len(c.Trips); j++ {
		tr.answer(i, j).Trip = -1
	}
	tr.Wire = slices.DeleteFunc(tr.Wire, func(ex Exchange) bool { return ex.Trip == -1 })
	c.Attempts, c.Trips, c.Lines = c.Attempts[:n], c.Trips[:n], c.Lines[:n]
}

// resumedFrom makes Resume call i count its key's lifetime from first, as if the key had first
// left then.
func resumedFrom(tr *Trace, i int, first time.Time) {
	r := *tr.Calls[i].Resumed
	r.FirstSent = first
	tr.Calls[i].Resumed = &r
}

// lookupTrip is the round trip of lookup attempt n of call i.
func (tr *Trace) lookupTrip(i, n int) *Trip { return &tr.Calls[i].Lookup.Trips[n-1] }

// lostConnection turns round trip n of call i into a connection lost after the request was
// written, with err.
func lostConnection(tr *Trace, i, n int, err error) {
	t := tr.trip(i, n)
	*t = Trip{Number: t.Number, Start: t.Start, End: t.End, Key: t.Key, Err: err}
}

// The errors a transport reports for a reset connection and a name that does not resolve.
var (
	errReset  = &net.OpError{Op: "read", Net: "tcp", Err: errors.New("read: connection reset by peer")}
	errNoHost = &net.OpError{Op: "dial", Net: "tcp",
		Err: &net.DNSError{Err: "no such host", Name: "psp.invalid", IsNotFound: true}}
)

// notContract is a *pix.Error that hides its ErrContract: what a client that took a 2xx for a
// plain failure would return.
type notContract struct{ err *pix.Error }

func (e *notContract) Error() string      { return e.err.Error() }
func (e *notContract) As(target any) bool { return errors.As(e.err, target) }
func (e *notContract) Is(target error) bool {
	return target != pix.ErrContract && errors.Is(e.err, target)
}

// rewriteAnswer replaces old by new in the body of the answer to round trip n of call i.
func rewriteAnswer(tr *Trace, i, n int, old, new string) {
	tr.answer(i, n).Body = withBody(tr.answer(i, n).Body, old, new)
}

// withBody returns body with old replaced by new.
func withBody(body []byte, old, new string) []byte {
	return []byte(strings.Replace(string(body), old, new, 1))
}

// errEOF is the error of a call whose connection was lost.
var errEOF = fmt.Errorf("pix: Post %q: %w", "http://pipe/v1/pix/payments", io.EOF)
