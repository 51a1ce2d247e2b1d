package psp

import (
	"errors"
	"fmt"
	"time"
)

// ErrInvalidFault is wrapped by the errors of Fault.Validate and by the panic of Server.Inject.
var ErrInvalidFault = errors.New("psp: invalid fault")

// MaxFaultDuration is the longest Duration and RetryAfter a Fault may have. A server's timeouts
// can then let every slow and late fault complete.
const MaxFaultDuration = time.Hour

// FaultKind names what a Fault does to the payment request that consumes it.
type FaultKind string

// The fault kinds. "Before any processing" means before the token is even looked at.
const (
	// FaultStatus answers Status with a problem+json body (code injected_fault) before any
	// processing. It sends Retry-After if RetryAfter is set. Nothing is stored.
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
	// FaultRedirect answers Status (300 to 399) with a Location and no body, before any
	// processing. Nothing is stored.
	FaultRedirect FaultKind = "redirect"
	// FaultCommitStatus processes the request as usual (a payment may settle and is stored),
	// then answers Status instead of the stored answer: a 5xx is a problem+json (code
	// injected_fault), a 2xx other than 201, 204 and 205 keeps the stored answer's body.
	// Retry-After is sent if RetryAfter is set. A later request with the key gets the stored
	// answer. A 4xx is not offered: the contract makes a 4xx a refusal made before the commit,
	// which no client could tell from a lie.
	FaultCommitStatus FaultKind = "commit_status"
	// FaultBadBody processes the request as usual and, if the answer is a 201 (fresh or a
	// replay), breaks its body as Breach says; any other answer is written as it is.
	FaultBadBody FaultKind = "bad_body"
)

// Breach is how a FaultBadBody breaks the body of a 201.
type Breach string

// The breaches.
const (
	// BreachNotJSON replaces the body with an HTML page.
	BreachNotJSON Breach = "not_json"
	// BreachShort sends the whole body's Content-Length and half the body; the connection then
	// closes. The client reads an unexpected EOF.
	BreachShort Breach = "short"
	// BreachCut sends half the body chunked, then closes the connection mid-body. The client
	// reads an unexpected EOF.
	BreachCut Breach = "cut"
	// BreachMissing leaves Member (endToEndId, valor, chave, status or horario) out of the body.
	BreachMissing Breach = "missing"
	// BreachAmount puts another amount in valor: one centavo more.
	BreachAmount Breach = "valor"
	// BreachPixKey puts another Pix key in chave.
	BreachPixKey Breach = "chave"
	// BreachEndToEndID cuts the last character off endToEndId, which breaks its format.
	BreachEndToEndID Breach = "end_to_end_id"
)

// Fault is one misbehaviour, consumed by one payment request. Make one with a constructor
// (Status, Slow, Late, Drop, ResetConn, Down, Redirect, CommitStatus, BadBody) and set
// RetryAfter or Member where the kind takes them. The zero value is no fault and may not be
// injected.
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

// Redirect answers code (300 to 399) before any processing.
func Redirect(code int) Fault { return Fault{Kind: FaultRedirect, Status: code} }

// CommitStatus processes the request, then answers code: 200 to 299 but 201, 204 and 205, or
// 500 to 599.
func CommitStatus(code int) Fault { return Fault{Kind: FaultCommitStatus, Status: code} }

// BadBody processes the request, then breaks the body of a 201 as b says. A BreachMissing
// also needs the Member to leave out.
func BadBody(b Breach) Fault { return Fault{Kind: FaultBadBody, Breach: b} }

// kindTakes says what each kind takes.
var kindTakes = map[FaultKind]string{
	FaultStatus:       "a Status of 400 to 599, and a RetryAfter if any",
	FaultSlow:         "a Duration",
	FaultLate:         "a Duration",
	FaultDrop:         "no other field",
	FaultReset:        "no other field",
	FaultDown:         "a Duration",
	FaultRedirect:     "a Status of 300 to 399",
	FaultCommitStatus: "a Status of 200 to 299 but 201, 204 and 205, or 500 to 599, and a RetryAfter if any",
	FaultBadBody:      "a Breach, and a Member (endToEndId, valor, chave, status or horario) with BreachMissing only",
}

// receiptMembers are the members of a 201's body that the contract requires: the members a
// BreachMissing may leave out.
var receiptMembers = map[string]bool{"endToEndId": true, "valor": true, "chave": true, "status": true, "horario": true}

// Validate reports a fault that cannot be injected: an unknown kind, a status or a breach the
// kind does not allow, a field set that the kind does not use, or a negative duration or one
// beyond MaxFaultDuration. The error wraps ErrInvalidFault.
func (f Fault) Validate() error {
	s, fits := f.Status, false
	switch f.Kind {
	case FaultStatus:
		fits = s >= 400 && s <= 599
	case FaultRedirect:
		fits = s/100 == 3
	case FaultCommitStatus:
		fits = s/100 == 5 || s/100 == 2 && s != 201 && s != 204 && s != 205
	case FaultBadBody:
		fits = f.Breach == BreachNotJSON || f.Breach == BreachShort || f.Breach == BreachCut ||
			f.Breach == BreachAmount || f.Breach == BreachPixKey || f.Breach == BreachEndToEndID ||
			f.Breach == BreachMissing && receiptMembers[f.Member]
	case FaultSlow, FaultLate, FaultDrop, FaultReset, FaultDown:
		fits = true
	default:
		return fmt.Errorf("%w: unknown kind %q", ErrInvalidFault, f.Kind)
	}
	if longest := max(f.RetryAfter, f.Duration); f.RetryAfter < 0 || f.Duration < 0 || longest > MaxFaultDuration {
		return fmt.Errorf("%w: duration %v or retry after %v is negative or exceeds %v", ErrInvalidFault,
			f.Duration, f.RetryAfter, MaxFaultDuration)
	}
	if !fits || f != f.used() {
		return fmt.Errorf("%w: kind %q takes %s", ErrInvalidFault, f.Kind, kindTakes[f.Kind])
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
