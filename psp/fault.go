package psp

import (
	"errors"
	"fmt"
	"time"
)

// ErrInvalidFault is wrapped by the errors of Fault.MarshalJSON and Fault.UnmarshalJSON and by
// the panic of Server.Inject.
var ErrInvalidFault = errors.New("psp: invalid fault")

// FaultKind names what a Fault does to the payment request that consumes it.
type FaultKind string

// The fault kinds. "Before any processing" means before the token is even looked at.
const (
	// FaultStatus answers Status with a problem+json body before any processing. It sends
	// Retry-After if RetryAfter is set. Nothing is stored.
	FaultStatus FaultKind = "status"
	// FaultSlow makes processing take Duration before the commit, with the key in flight. A
	// concurrent request with the same key gets 409 meanwhile. A request that never reaches the
	// commit (rejected, 409, 422, replay) is not delayed. The wait does not stop if the client
	// leaves.
	FaultSlow FaultKind = "slow"
	// FaultLate commits at once, then holds the answer for Duration before writing it. The wait
	// does not stop if the client leaves.
	FaultLate FaultKind = "late"
	// FaultDrop processes the request, so a payment settles and is stored. Then it closes the
	// connection without answering. The client sees EOF, a lost response.
	FaultDrop FaultKind = "drop"
	// FaultReset closes the connection before any processing. Over TCP it is a reset (RST), and
	// the client sees "connection reset by peer".
	FaultReset FaultKind = "reset"
	// FaultDown closes the connection like FaultReset, and so does every payment request for
	// Duration from then on. Requests refused while the PSP is down consume no fault.
	FaultDown FaultKind = "down"
)

// Fault is one misbehaviour, consumed by one payment request. Make one with Status,
// StatusRetryAfter, Slow, Late, Drop, ResetConn or Down. The zero value is no fault and may not
// be injected. Its JSON form is the one the control API takes, such as
// {"kind":"status","status":503,"retry_after_s":2} or {"kind":"late","delay_ms":1500}.
type Fault struct {
	Kind FaultKind
	// Status is the status a FaultStatus answers, 400 to 599.
	Status int
	// RetryAfter, if positive, is sent with a FaultStatus as Retry-After in whole seconds,
	// rounded up.
	RetryAfter time.Duration
	// Duration is how long a FaultSlow or FaultLate waits, or how long a FaultDown lasts.
	Duration time.Duration
}

// Status answers code (400 to 599) before any processing.
func Status(code int) Fault { return Fault{Kind: FaultStatus, Status: code} }

// StatusRetryAfter answers code with a Retry-After of after, in whole seconds rounded up.
func StatusRetryAfter(code int, after time.Duration) Fault {
	return Fault{Kind: FaultStatus, Status: code, RetryAfter: after}
}

// Slow delays the commit by d, the key being in flight meanwhile.
func Slow(d time.Duration) Fault { return Fault{Kind: FaultSlow, Duration: d} }

// Late commits at once and holds the answer for d.
func Late(d time.Duration) Fault { return Fault{Kind: FaultLate, Duration: d} }

// Drop commits and closes the connection without answering.
func Drop() Fault { return Fault{Kind: FaultDrop} }

// ResetConn closes the connection without processing.
func ResetConn() Fault { return Fault{Kind: FaultReset} }

// Down closes the connection of every payment request for d, starting with the one that
// consumes it.
func Down(d time.Duration) Fault { return Fault{Kind: FaultDown, Duration: d} }

// faultUsage says what each kind takes, in the JSON form; it is also the set of known kinds.
var faultUsage = map[FaultKind]string{
	FaultStatus: `"status" (400 to 599) and optionally "retry_after_s" (whole seconds, at least 1)`,
	FaultSlow:   `"delay_ms" (milliseconds, at least 0)`,
	FaultLate:   `"delay_ms" (milliseconds, at least 0)`,
	FaultDrop:   "no parameters",
	FaultReset:  "no parameters",
	FaultDown:   `"duration_ms" (milliseconds, at least 0)`,
}

// validate reports a fault that cannot be injected: an unknown kind, a status outside 400 to
// 599, a negative duration, or a field set that the kind does not use.
func (f Fault) validate() error {
	// Conditions are in if statements, not switch cases, so that coverage (and so mutation
	// testing) sees them.
	usage, known := faultUsage[f.Kind]
	if !known {
		return fmt.Errorf("%w: unknown kind %q", ErrInvalidFault, f.Kind)
	}
	if f.Kind == FaultStatus && (f.Status < 400 || f.Status > 599) {
		return fmt.Errorf("%w: status %d is not in 400..599", ErrInvalidFault, f.Status)
	}
	if f.RetryAfter < 0 || f.Duration < 0 {
		return fmt.Errorf("%w: negative duration", ErrInvalidFault)
	}
	if f != f.used() {
		return fmt.Errorf("%w: kind %q takes %s", ErrInvalidFault, f.Kind, usage)
	}
	return nil
}

// used is f with only the fields its kind uses.
func (f Fault) used() Fault {
	u := Fault{Kind: f.Kind}
	switch f.Kind {
	case FaultStatus:
		u.Status, u.RetryAfter = f.Status, f.RetryAfter
	case FaultSlow, FaultLate, FaultDown:
		u.Duration = f.Duration
	}
	return u
}

// wholeSeconds is d in seconds, rounded up.
func wholeSeconds(d time.Duration) int64 {
	s := int64(d / time.Second)
	if d%time.Second != 0 {
		s++
	}
	return s
}
