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

// The kinds of fault, the Kind of a Fault and the "kind" member of its JSON form. "Before any
// processing" means before the token is even looked at. Waits do not stop when the client
// leaves. Aimed at lookups, late holds the lookup's answer and down closes lookups only. A down
// window of a payment fault closes lookups too.
const (
	kindStatus   = "status"   // answers Status (injected_fault) before any processing
	kindSlow     = "slow"     // waits Duration before the commit, the key in flight (409)
	kindLate     = "late"     // commits at once, then holds the answer for Duration
	kindDrop     = "drop"     // commits, then closes the connection: the client reads EOF
	kindReset    = "reset"    // closes the connection (RST over TCP) before any processing
	kindDown     = "down"     // closes every connection of its target for Duration, consuming none
	kindRedirect = "redirect" // answers Status (3xx) with a Location and no body
	// kindDuplicate delivers the request twice, as a gateway that repeats it would. The first
	// copy is processed as under a slow fault of Duration, and its answer goes nowhere. The
	// second copy is processed at once, and the client gets its answer: 409 for a new key, since
	// the first copy holds it in flight. The first copy takes no processing slot
	// (Config.Capacity), and Server.Wait waits for it.
	kindDuplicate = "duplicate"
	// kindCommitStatus commits as usual, then answers Status instead of the stored answer: a
	// 5xx is a problem+json (injected_fault), a 2xx keeps the stored body. The next request
	// with the key gets the stored answer. No 4xx: a 4xx is a refusal made before the commit.
	kindCommitStatus = "commit_status"
	// kindBadBody commits as usual and breaks the body of a 201 (a replay too), or of a
	// lookup's 200, as Breach says.
	kindBadBody = "bad_body"
	// kindPending accepts the payment, if it would be, pending (202 EM_PROCESSAMENTO) for
	// Duration, then ends it as Then says, whatever Config.CompleteAfter and the rejected range
	// say. A request that accepts no payment (a replay, a refusal) consumes it for nothing.
	kindPending = "pending"
)

// The ends of a pending fault, its Then.
const (
	thenSettled  = "settled"  // REALIZADO: the ledger gets it
	thenRejected = "rejected" // NAO_REALIZADO: its valor is released
)

// The targets, the Target of a Fault: the kind of request it waits for. Each has its own queue.
const (
	targetPayment = ""       // a payment request (POST), the zero value
	targetLookup  = "lookup" // a status lookup (GET)
)

// lookupKinds are the kinds a fault aimed at lookups may have.
var lookupKinds = map[string]bool{kindStatus: true, kindRedirect: true, kindReset: true, kindDown: true,
	kindLate: true, kindBadBody: true}

// The breaches, the Breach of a bad_body fault: how it breaks the body of a 201 or of a
// lookup's 200. Short and cut leave the client an unexpected EOF.
const (
	breachNotJSON    = "not_json"      // an HTML page instead of the body
	breachShort      = "short"         // the whole body's Content-Length, half the body, a close
	breachCut        = "cut"           // half the body chunked, then a close mid-body
	breachMissing    = "missing"       // Member (endToEndId, valor, chave, status or horario) left out
	breachAmount     = "valor"         // one centavo more in valor
	breachPixKey     = "chave"         // another Pix key in chave
	breachEndToEndID = "end_to_end_id" // endToEndId one character short
)

// breaches are the breaches a bad_body fault may have.
var breaches = map[string]bool{breachNotJSON: true, breachShort: true, breachCut: true, breachMissing: true,
	breachAmount: true, breachPixKey: true, breachEndToEndID: true}

// Fault is one misbehaviour, consumed by one payment request, or by one lookup if its Target
// is "lookup". It is data: its fields are those of its JSON form in the control API, whose
// document (psp/control/openapi.json) lists the kinds, breaches and members. Make one with a
// constructor (Status, Slow, Late, Drop, ResetConn, Down, Redirect, CommitStatus, BadBody,
// Duplicate) or as a literal, set RetryAfter or Member where the kind takes them, and call
// ForLookup to aim it at lookups. Validate says whether it may be injected. The zero value is
// no fault and may not be injected.
type Fault struct {
	// Kind is what the fault does: status, slow, late, drop, reset, down, redirect,
	// duplicate, commit_status, bad_body or pending.
	Kind string
	// Target is the request the fault waits for: "" for payments, or "lookup" for the kinds
	// status, redirect, reset, down, late and bad_body.
	Target string
	// Status is the status a status, commit_status or redirect fault answers.
	Status int
	// RetryAfter, if positive, is sent with a status or commit_status fault as Retry-After in
	// whole seconds, rounded up. It is at most MaxFaultDuration.
	RetryAfter time.Duration
	// Duration is how long a slow or late fault or the first copy of a duplicate waits, how
	// long a down fault lasts, or how long a pending fault's payment is pending. It is at most
	// MaxFaultDuration.
	Duration time.Duration
	// Breach is how a bad_body fault breaks the body: not_json, short, cut, missing, valor,
	// chave or end_to_end_id. Member is the member a missing breach leaves out: endToEndId,
	// valor, chave, status or horario.
	Breach string
	Member string
	// Then is how a pending fault's payment ends: settled or rejected.
	Then string
}

// The constructors of the faults of each kind. Status answers 400 to 599, Redirect 300 to 399,
// and CommitStatus 200 to 299 but 201, 204 and 205, or 500 to 599. A missing breach also needs
// the Member to leave out.
func Status(code int) Fault           { return Fault{Kind: kindStatus, Status: code} }
func Slow(d time.Duration) Fault      { return Fault{Kind: kindSlow, Duration: d} }
func Late(d time.Duration) Fault      { return Fault{Kind: kindLate, Duration: d} }
func Drop() Fault                     { return Fault{Kind: kindDrop} }
func ResetConn() Fault                { return Fault{Kind: kindReset} }
func Down(d time.Duration) Fault      { return Fault{Kind: kindDown, Duration: d} }
func Redirect(code int) Fault         { return Fault{Kind: kindRedirect, Status: code} }
func CommitStatus(code int) Fault     { return Fault{Kind: kindCommitStatus, Status: code} }
func BadBody(breach string) Fault     { return Fault{Kind: kindBadBody, Breach: breach} }
func Duplicate(d time.Duration) Fault { return Fault{Kind: kindDuplicate, Duration: d} }

// Pending returns a fault that leaves the next payment pending for after, then ends it as then
// says: "settled" or "rejected".
func Pending(after time.Duration, then string) Fault {
	return Fault{Kind: kindPending, Duration: after, Then: then}
}

// ForLookup returns f aimed at lookups: consumed by the next lookup, not the next payment.
func (f Fault) ForLookup() Fault {
	f.Target = targetLookup
	return f
}

// receiptMembers are the members of a 201's body that the contract requires: the members a
// missing breach may leave out.
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
	case kindStatus:
		fits, takes = s >= 400 && s <= 599, "a Status of 400 to 599, and a RetryAfter if any"
		used.Status, used.RetryAfter = s, f.RetryAfter
	case kindCommitStatus:
		fits = s/100 == 5 || s/100 == 2 && s != 201 && s != 204 && s != 205
		takes = "a Status of 200 to 299 but 201, 204 and 205, or 500 to 599, and a RetryAfter if any"
		used.Status, used.RetryAfter = s, f.RetryAfter
	case kindRedirect:
		fits, takes = s/100 == 3, "a Status of 300 to 399"
		used.Status = s
	case kindBadBody:
		fits = breaches[b] && (b != breachMissing || receiptMembers[f.Member])
		takes = "a Breach, and a Member (endToEndId, valor, chave, status or horario) with missing only"
		used.Breach = b
		if b == breachMissing {
			used.Member = f.Member
		}
	case kindSlow, kindLate, kindDown, kindDuplicate:
		fits, takes = true, "a Duration"
		used.Duration = f.Duration
	case kindPending:
		fits, takes = f.Then == thenSettled || f.Then == thenRejected, `a Duration and a Then, "settled" or "rejected"`
		used.Duration, used.Then = f.Duration, f.Then
	case kindDrop, kindReset:
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
	case f.Target != targetPayment && f.Target != targetLookup:
		return fmt.Errorf("%w: unknown target %q", ErrInvalidFault, f.Target)
	case f.Target == targetLookup && !lookupKinds[f.Kind]:
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
	case f.Kind == kindRedirect:
		return answer{status: f.Status, contentType: "text/plain; charset=utf-8",
			header: http.Header{"Location": {PaymentsPath}}}
	case f.Status/100 == 2:
		a.status = f.Status
	case f.Kind == kindCommitStatus:
		a = problemAnswer(f.Status, codeInjectedFault,
			"fault injected: the PSP processed the request, then answered "+strconv.Itoa(f.Status), nil)
	default:
		a = problemAnswer(f.Status, codeInjectedFault,
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
func misdeliver(w http.ResponseWriter, a answer, rawKey string, breach, member string) {
	half := a.body[:len(a.body)/2]
	switch {
	case a.status != http.StatusCreated && a.status != http.StatusOK:
		a.write(w, rawKey)
	case breach == breachShort: // net/http closes the connection after the short body
		a.writeHeader(w, rawKey, strconv.Itoa(len(a.body)))
		w.Write(half)
	case breach == breachCut:
		a.writeHeader(w, rawKey, "")
		w.Write(half)
		http.NewResponseController(w).Flush()
		hangUp(w, false)
	case breach == breachNotJSON:
		a.body = []byte("<html><body><h1>" + strconv.Itoa(a.status) + " " + http.StatusText(a.status) + "</h1></body></html>\n")
		a.write(w, rawKey)
	default:
		a.body = brokenReceipt(a.body, breach, member)
		a.write(w, rawKey)
	}
}

// brokenReceipt is body, a receipt this package encoded, with a member broken or left out.
func brokenReceipt(body []byte, breach, member string) []byte {
	var r receipt
	json.Unmarshal(body, &r) // body is one of this package's receipts
	switch breach {
	case breachAmount:
		cents, _ := ParseBalance(r.Valor)
		r.Valor = FormatAmount(cents + 1)
	case breachPixKey:
		r.Chave = "0" + r.Chave
	case breachEndToEndID:
		r.EndToEndID = r.EndToEndID[:len(r.EndToEndID)-1]
	case breachMissing:
		var members map[string]jsontext.Value
		json.Unmarshal(body, &members)
		delete(members, member)
		return marshal(members)
	}
	return marshal(r)
}
