package psp

import (
	"errors"
	"fmt"
	"time"
)

// ErrInvalidFault is wrapped by the errors of Fault.MarshalJSON and Fault.UnmarshalJSON and by
// the panic of Server.Inject.
var ErrInvalidFault = errors.New("psp: invalid fault")

// ErrTooManyFaults is wrapped by the panic of Server.Inject when the faults would not fit in
// the queue.
var ErrTooManyFaults = errors.New("psp: too many faults queued")

// Bounds of the fault queue.
const (
	// MaxFaultDuration is the longest Duration and RetryAfter a Fault may have. A server's
	// timeouts can then let every slow and late fault complete.
	MaxFaultDuration = time.Hour
	// MaxQueuedFaults is the most faults the queue holds at once.
	MaxQueuedFaults = 10_000
)

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
// StatusRetryAfter, Slow, Late, Drop, ResetConn, Down, CommitStatus, CommitStatusRetryAfter,
// BadBody, BadBodyWithout or Redirect. The zero value is no fault and may not be injected. Its
// JSON form is the one the control API takes, such as
// {"kind":"status","status":503,"retry_after_s":2}, {"kind":"late","delay_ms":1500} or
// {"kind":"bad_body","breach":"missing","member":"horario"}.
type Fault struct {
	Kind FaultKind
	// Status is the status a FaultStatus, FaultCommitStatus or FaultRedirect answers.
	Status int
	// RetryAfter, if positive, is sent with a FaultStatus or FaultCommitStatus as Retry-After
	// in whole seconds, rounded up. It is at most MaxFaultDuration.
	RetryAfter time.Duration
	// Duration is how long a FaultSlow or FaultLate waits, or how long a FaultDown lasts. It is
	// at most MaxFaultDuration.
	Duration time.Duration
	// Breach is how a FaultBadBody breaks the body; Member is the member a BreachMissing
	// leaves out.
	Breach Breach
	Member string
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
	FaultStatus:       `"status" (400 to 599) and optionally "retry_after_s" (whole seconds, 1 to 3600)`,
	FaultSlow:         `"delay_ms" (milliseconds, 0 to 3600000)`,
	FaultLate:         `"delay_ms" (milliseconds, 0 to 3600000)`,
	FaultDrop:         "no parameters",
	FaultReset:        "no parameters",
	FaultDown:         `"duration_ms" (milliseconds, 0 to 3600000)`,
	FaultCommitStatus: `"status" (200 to 299 but 201, 204 and 205, or 500 to 599) and optionally "retry_after_s" (whole seconds, 1 to 3600)`,
	FaultBadBody:      `"breach" (not_json, short, cut, missing, valor, chave or end_to_end_id), and "member" (endToEndId, valor, chave, status or horario) with missing only`,
	FaultRedirect:     `"status" (300 to 399)`,
}

// validate reports a fault that cannot be injected: an unknown kind, a status or a breach the
// kind does not allow, a negative duration or one beyond MaxFaultDuration, or a field set that
// the kind does not use.
func (f Fault) validate() error {
	// Conditions are in if statements, not switch cases, so that coverage (and so mutation
	// testing) sees them.
	usage, known := faultUsage[f.Kind]
	if !known {
		return fmt.Errorf("%w: unknown kind %q", ErrInvalidFault, f.Kind)
	}
	if !f.statusAllowed() || !f.breachAllowed() {
		return fmt.Errorf("%w: kind %q takes %s", ErrInvalidFault, f.Kind, usage)
	}
	if f.RetryAfter < 0 || f.Duration < 0 {
		return fmt.Errorf("%w: negative duration", ErrInvalidFault)
	}
	if longest := max(f.RetryAfter, f.Duration); longest > MaxFaultDuration {
		return fmt.Errorf("%w: duration %v exceeds the maximum %v", ErrInvalidFault, longest, MaxFaultDuration)
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
	case FaultStatus, FaultCommitStatus:
		u.Status, u.RetryAfter = f.Status, f.RetryAfter
	case FaultSlow, FaultLate, FaultDown:
		u.Duration = f.Duration
	case FaultRedirect:
		u.Status = f.Status
	case FaultBadBody:
		u.Breach = f.Breach
		if f.Breach == BreachMissing {
			u.Member = f.Member
		}
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
