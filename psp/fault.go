package psp

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// ErrInvalidFault is wrapped by the errors of Fault.Validate and by the panic of Server.Inject.
var ErrInvalidFault = errors.New("psp: invalid fault")

// MaxFaultDuration is the longest Duration and RetryAfter a Fault may have. A server's timeouts
// can then let every slow and late fault complete.
const MaxFaultDuration = time.Hour

// FaultKind names what a Fault does to the request that consumes it.
type FaultKind string

// The fault kinds. "Before any processing" means before the token is even looked at. Waits do
// not stop when the client leaves. Aimed at lookups (TargetLookup), late holds the lookup's
// answer and down closes lookups only. A down window of a payment fault closes lookups too.
const (
	FaultStatus   FaultKind = "status"   // answers Status (injected_fault) before any processing
	FaultSlow     FaultKind = "slow"     // waits Duration before the commit, the key in flight (409)
	FaultLate     FaultKind = "late"     // commits at once, then holds the answer for Duration
	FaultDrop     FaultKind = "drop"     // commits, then closes the connection: the client reads EOF
	FaultReset    FaultKind = "reset"    // closes the connection (RST over TCP) before any processing
	FaultDown     FaultKind = "down"     // closes every connection of its target for Duration, consuming none
	FaultRedirect FaultKind = "redirect" // answers Status (3xx) with a Location and no body
	// FaultDuplicate delivers the request twice, as a gateway that repeats it would. The first
	// copy is processed as under a FaultSlow of Duration, and its answer goes nowhere. The second
	// copy is processed at once, and the client gets its answer: 409 for a new key, since the
	// first copy holds it in flight. The first copy takes no processing slot (Config.Capacity),
	// and Server.Wait waits for it.
	FaultDuplicate FaultKind = "duplicate"
	// FaultCommitStatus commits as usual, then answers Status instead of the stored answer: a
	// 5xx is a problem+json (injected_fault), a 2xx keeps the stored body. The next request
	// with the key gets the stored answer. No 4xx: a 4xx is a refusal made before the commit.
	FaultCommitStatus FaultKind = "commit_status"
	// FaultBadBody commits as usual and breaks the body of a 201 (a replay too), or of a
	// lookup's 200, as Breach says.
	FaultBadBody FaultKind = "bad_body"
)

// Target is the kind of request a Fault waits for. Each has its own queue.
type Target string

// The targets.
const (
	TargetPayment Target = ""       // a payment request (POST), the zero value
	TargetLookup  Target = "lookup" // a status lookup (GET)
)

// lookupKinds are the kinds a fault aimed at lookups may have.
var lookupKinds = map[FaultKind]bool{FaultStatus: true, FaultRedirect: true, FaultReset: true, FaultDown: true,
	FaultLate: true, FaultBadBody: true}

// Breach is how a FaultBadBody breaks the body of a 201 or of a lookup's 200.
type Breach string

// The breaches. Short and cut leave the client an unexpected EOF.
const (
	BreachNotJSON    Breach = "not_json"      // an HTML page instead of the body
	BreachShort      Breach = "short"         // the whole body's Content-Length, half the body, a close
	BreachCut        Breach = "cut"           // half the body chunked, then a close mid-body
	BreachMissing    Breach = "missing"       // Member (endToEndId, valor, chave, status or horario) left out
	BreachAmount     Breach = "valor"         // one centavo more in valor
	BreachPixKey     Breach = "chave"         // another Pix key in chave
	BreachEndToEndID Breach = "end_to_end_id" // endToEndId one character short
)

// Fault is one misbehaviour, consumed by one payment request, or by one lookup if its Target
// is TargetLookup. Make one with a constructor (Status, Slow, Late, Drop, ResetConn, Down,
// Redirect, CommitStatus, BadBody, Duplicate), set RetryAfter or Member where the kind takes
// them, and call ForLookup to aim it at lookups. The zero value is no fault and may not be
// injected.
type Fault struct {
	Kind FaultKind
	// Target is the request the fault waits for: TargetPayment, or TargetLookup for the kinds
	// status, redirect, reset, down, late and bad_body.
	Target Target
	// Status is the status a FaultStatus, FaultCommitStatus or FaultRedirect answers.
	Status int
	// RetryAfter, if positive, is sent with a FaultStatus or FaultCommitStatus as Retry-After
	// in whole seconds, rounded up. It is at most MaxFaultDuration.
	RetryAfter time.Duration
	// Duration is how long a FaultSlow, FaultLate or the first copy of a FaultDuplicate waits,
	// or how long a FaultDown lasts. It is at most MaxFaultDuration.
	Duration time.Duration
	// Breach is how a FaultBadBody breaks the body; Member is the member a BreachMissing
	// leaves out.
	Breach Breach
	Member string
}

// The constructors of the faults of each kind. Status answers 400 to 599, Redirect 300 to 399,
// and CommitStatus 200 to 299 but 201, 204 and 205, or 500 to 599. A BreachMissing also needs
// the Member to leave out.
func Status(code int) Fault           { return Fault{Kind: FaultStatus, Status: code} }
func Slow(d time.Duration) Fault      { return Fault{Kind: FaultSlow, Duration: d} }
func Late(d time.Duration) Fault      { return Fault{Kind: FaultLate, Duration: d} }
func Drop() Fault                     { return Fault{Kind: FaultDrop} }
func ResetConn() Fault                { return Fault{Kind: FaultReset} }
func Down(d time.Duration) Fault      { return Fault{Kind: FaultDown, Duration: d} }
func Redirect(code int) Fault         { return Fault{Kind: FaultRedirect, Status: code} }
func CommitStatus(code int) Fault     { return Fault{Kind: FaultCommitStatus, Status: code} }
func BadBody(b Breach) Fault          { return Fault{Kind: FaultBadBody, Breach: b} }
func Duplicate(d time.Duration) Fault { return Fault{Kind: FaultDuplicate, Duration: d} }

// ForLookup returns f aimed at lookups: consumed by the next lookup, not the next payment.
func (f Fault) ForLookup() Fault {
	f.Target = TargetLookup
	return f
}

// receiptMembers are the members of a 201's body that the contract requires: the members a
// BreachMissing may leave out.
var receiptMembers = map[string]bool{"endToEndId": true, "valor": true, "chave": true, "status": true, "horario": true}

// Validate reports a fault that cannot be injected: an unknown kind or target, a kind a lookup
// cannot take, a status or a breach the kind does not allow, a field set that the kind does not
// use, or a negative duration or one beyond MaxFaultDuration. The error wraps ErrInvalidFault.
func (f Fault) Validate() error {
	s, b := f.Status, f.Breach
	var fits bool
	var takes string
	used := Fault{Kind: f.Kind, Target: f.Target} // f with only the fields its kind uses
	switch f.Kind {
	case FaultStatus:
		fits, takes = s >= 400 && s <= 599, "a Status of 400 to 599, and a RetryAfter if any"
		used.Status, used.RetryAfter = s, f.RetryAfter
	case FaultCommitStatus:
		fits = s/100 == 5 || s/100 == 2 && s != 201 && s != 204 && s != 205
		takes = "a Status of 200 to 299 but 201, 204 and 205, or 500 to 599, and a RetryAfter if any"
		used.Status, used.RetryAfter = s, f.RetryAfter
	case FaultRedirect:
		fits, takes = s/100 == 3, "a Status of 300 to 399"
		used.Status = s
	case FaultBadBody:
		fits = b == BreachNotJSON || b == BreachShort || b == BreachCut || b == BreachAmount ||
			b == BreachPixKey || b == BreachEndToEndID || b == BreachMissing && receiptMembers[f.Member]
		takes = "a Breach, and a Member (endToEndId, valor, chave, status or horario) with BreachMissing only"
		used.Breach = b
		if b == BreachMissing {
			used.Member = f.Member
		}
	case FaultSlow, FaultLate, FaultDown, FaultDuplicate:
		fits, takes = true, "a Duration"
		used.Duration = f.Duration
	case FaultDrop, FaultReset:
		fits, takes = true, "no other field"
	default:
		return fmt.Errorf("%w: unknown kind %q", ErrInvalidFault, f.Kind)
	}
	if err := f.validateTarget(); err != nil {
		return err
	}
	if longest := max(f.RetryAfter, f.Duration); f.RetryAfter < 0 || f.Duration < 0 || longest > MaxFaultDuration {
		return fmt.Errorf("%w: duration %v or retry after %v is negative or exceeds %v", ErrInvalidFault,
			f.Duration, f.RetryAfter, MaxFaultDuration)
	}
	if !fits || f != used {
		return fmt.Errorf("%w: kind %q takes %s", ErrInvalidFault, f.Kind, takes)
	}
	return nil
}

// validateTarget reports an unknown target or a kind a lookup cannot take.
func (f Fault) validateTarget() error {
	switch {
	case f.Target != TargetPayment && f.Target != TargetLookup:
		return fmt.Errorf("%w: unknown target %q", ErrInvalidFault, f.Target)
	case f.Target == TargetLookup && !lookupKinds[f.Kind]:
		return fmt.Errorf("%w: kind %q cannot target lookups; a lookup fault is status, redirect, reset, down, "+
			"late or bad_body", ErrInvalidFault, f.Kind)
	}
	return nil
}

// retryAfter is a Retry-After header field of d in whole seconds, rounded up.
func retryAfter(d time.Duration) http.Header {
	s := int64(d / time.Second)
	if d%time.Second != 0 {
		s++
	}
	return http.Header{"Retry-After": {strconv.FormatInt(s, 10)}}
}

// faultAnswer is the answer of a status or redirect fault, or the answer a commit_status fault
// gives instead of stored, the processed request's answer.
func faultAnswer(f Fault, stored answer) answer {
	a := stored
	switch {
	case f.Kind == FaultRedirect:
		return answer{status: f.Status, contentType: "text/plain; charset=utf-8",
			header: http.Header{"Location": {PaymentsPath}}}
	case f.Status/100 == 2:
		a.status = f.Status
	case f.Kind == FaultCommitStatus:
		a = problemAnswer(f.Status, CodeInjectedFault,
			"fault injected: the PSP processed the request, then answered "+strconv.Itoa(f.Status), nil)
	default:
		a = problemAnswer(f.Status, CodeInjectedFault,
			"fault injected: the PSP answers "+strconv.Itoa(f.Status)+" before any processing", nil)
	}
	if f.RetryAfter > 0 {
		h := retryAfter(f.RetryAfter)
		maps.Copy(h, a.header)
		a.header = h
	}
	return a
}

// misdeliver writes a with its body broken as breach says, if a is a receipt (a payment's 201
// or a lookup's 200); else as it is.
func misdeliver(w http.ResponseWriter, a answer, rawKey string, breach Breach, member string) {
	half := a.body[:len(a.body)/2]
	switch {
	case a.status != http.StatusCreated && a.status != http.StatusOK:
		a.write(w, rawKey)
	case breach == BreachShort: // net/http closes the connection after the short body
		a.writeHeader(w, rawKey, strconv.Itoa(len(a.body)))
		w.Write(half)
	case breach == BreachCut:
		a.writeHeader(w, rawKey, "")
		w.Write(half)
		http.NewResponseController(w).Flush()
		hangUp(w, false)
	case breach == BreachNotJSON:
		a.body = []byte("<html><body><h1>" + strconv.Itoa(a.status) + " " + http.StatusText(a.status) + "</h1></body></html>\n")
		a.write(w, rawKey)
	default:
		a.body = brokenReceipt(a.body, breach, member)
		a.write(w, rawKey)
	}
}

// brokenReceipt is body, a receipt this package encoded, with a member broken or left out.
func brokenReceipt(body []byte, breach Breach, member string) []byte {
	var r receipt
	json.Unmarshal(body, &r) // body is one of this package's receipts
	switch breach {
	case BreachAmount:
		cents, _ := ParseBalance(r.Valor)
		r.Valor = FormatAmount(cents + 1)
	case BreachPixKey:
		r.Chave = "0" + r.Chave
	case BreachEndToEndID:
		r.EndToEndID = r.EndToEndID[:len(r.EndToEndID)-1]
	case BreachMissing:
		var members map[string]jsontext.Value
		json.Unmarshal(body, &members)
		delete(members, member)
		return marshal(members)
	}
	return marshal(r)
}
