package properties

import (
	"time"

	"pixretry/internal/roundtrip"
	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

// Trace is everything one run observed from outside pix, retry and psp. It holds the client side
// of every call, the PSP side of the wire, and the PSP's books at the start and at the end.
type Trace struct {
	Policy         retry.Policy
	AttemptTimeout time.Duration // pix.Client.AttemptTimeout; 0: none
	SlowestFault   time.Duration // the longest a slow or late fault holds a payment request
	SlowestLookup  time.Duration // the longest a late fault holds a lookup
	// Distortions counts the queued payment faults that distort a success on its way out
	// (bad_body, a 2xx commit_status). At most that many answers on the wire are not what the PSP
	// stored. LookupDistortions counts the lookup faults that break a 200 (bad_body).
	Distortions       int
	LookupDistortions int
	KeyTTL            time.Duration // how long the PSP remembers a completed key
	ClientKeyTTL      time.Duration // pix.Client.KeyTTL of every call, at most KeyTTL
	Token             string        // the bearer token of every call
	BalanceStart      int64         // cents, when the run began
	BalanceEnd        int64         // cents, once every handler had returned
	Ledger            []psp.Settlement
	Calls             []Call
	Wire              []Exchange // in the order the PSP's handler was entered
}

// Call is one Send, SendWithKey or Resume. Its payment attempts are its Phase; a Resume that
// looked its key up has a second Phase, Lookup. Its slices are in order.
type Call struct {
	Payment  pix.Payment
	GivenKey string // SendWithKey's key, or the key Resume was given; "" for Send
	// Resumed is the error Resume was given; nil for Send and SendWithKey.
	Resumed *pix.OutcomeUnknownError
	// Chain is the index of the call that began this call's payment: the call itself, or the
	// one it reconciles after (a chain of reconciliations), or the one whose key and payment it
	// shares (a duplicate sender). The calls of one chain pay one payment.
	Chain    int
	Start    time.Time
	End      time.Time
	Deadline time.Time // the deadline of the caller's context; zero for none
	Receipt  pix.Receipt
	Err      error
	Phase             // the payment attempts ("pix attempt", POST)
	Lookup   Phase    // Resume's lookup attempts ("pix lookup attempt", GET); empty if none
	Tickets  []Ticket // what the call asked of the run's breaker; none without one
}

// Phase is one retried exchange of a call: its payment attempts, or its lookup attempts. The
// n-th attempt record, round trip, line event and draw are one attempt's.
type Phase struct {
	Attempts []Attempt   // the phase's attempt records
	Summary  *Summary    // its closing record; nil when the phase did not happen
	Trips    []Trip      // its round trips; a lookup's Key is the key it looked up
	Lines    []lineEvent // what the line did to each round trip
	Draws    []float64   // the jitter draws taken for its waits
}

// paired reports whether the phase has one round trip per attempt record, and a closing record.
// Invariant 1 reports a phase that has not.
func (ph Phase) paired() bool { return len(ph.Trips) == len(ph.Attempts) && ph.Summary != nil }

// Key is the call's Idempotency-Key: the one it was given, else its first round trip's. It is ""
// when the call made no round trip.
func (c Call) Key() string {
	if c.GivenKey != "" || len(c.Trips) == 0 {
		return c.GivenKey
	}
	return c.Trips[0].Key
}

// lookedUp reports whether the call ended in a lookup: Resume found its key past the key
// deadline, or reached it while resending.
func (c Call) lookedUp() bool { return c.Lookup.Summary != nil }

// phases are the call's payment phase and its lookup phase, named as in phaseKinds.
func (c Call) phases() []Phase { return []Phase{c.Phase, c.Lookup} }

// phaseKinds name the attempts of each of a call's phases in a violation.
var phaseKinds = [2]string{"", "lookup "}

// span is when phase k of the call began and ended. A lookup after payment attempts begins
// when they end, at their closing record; the phase that ended the call ends with it.
func (c Call) span(k int) (start, end time.Time) {
	start, end = c.Start, c.End
	if c.lookedUp() && c.Summary != nil {
		if k == 0 {
			end = c.Summary.At
		} else {
			start = c.Summary.At
		}
	}
	return start, end
}

// final is the phase that ended the call, whose result the call returned.
func (c Call) final() Phase {
	if c.lookedUp() {
		return c.Lookup
	}
	return c.Phase
}

// firstSent is when the call's key first left, as the call counts its key's lifetime: Resume's
// FirstSent, else the call's first payment round trip. It is zero when neither exists.
func (c Call) firstSent() time.Time {
	if c.Resumed != nil {
		return c.Resumed.FirstSent
	}
	if len(c.Trips) == 0 {
		return time.Time{}
	}
	return c.Trips[0].Start
}

// keyDeadline is the instant past which no attempt of call c under its key may be in flight:
// its first send, plus the clients' KeyTTL less a tenth (pix.Client.KeyTTL's margin).
func (tr Trace) keyDeadline(c Call) time.Time {
	return c.firstSent().Add(tr.ClientKeyTTL - tr.ClientKeyTTL/10)
}

// Attempt is one "pix attempt" or "pix lookup attempt" record. At is the instant the attempt
// ended.
type Attempt struct {
	At        time.Time
	Number    int
	Key       string
	Outcome   string
	Error     string // the error's text; "" on success, and for a lookup's "not found"
	Transient bool
	Wait      time.Duration
	Elapsed   time.Duration
}

// Summary is a phase's closing record: "pix payment settled" or "pix payment failed"; "pix
// lookup found", "pix lookup found nothing" or "pix lookup failed".
type Summary struct {
	At             time.Time
	Message        string
	Key            string
	Attempts       int
	OutcomeUnknown bool   // failed only
	EndToEndID     string // settled and found only
	Replayed       bool   // settled only
}

// Trip is one round trip as the client's transport saw it. Its Number is unique in a run.
type Trip = roundtrip.Trip

// Exchange is one request as the PSP's handler saw it, and the handler's answer.
type Exchange struct {
	Trip        int64 // the number of the round trip that sent it (roundtrip.Header); 0: none
	Arrived     time.Time
	Answered    time.Time // when the status line was written; zero when none was
	Token       string
	Lookup      bool   // a status lookup (GET), not a payment request
	Key         string // the Idempotency-Key, or the key a lookup looked up
	Request     []byte
	Status      int // 0: the connection was closed without an answer
	Body        []byte
	Replayed    bool // the answer carried Idempotent-Replayed: true
	Hijacked    bool // the handler took the connection over (to close it)
	HeaderBytes int  // the size of the answer's header fields, as "Name: value\r\n" lines
}

// exchangeOf is the request that round trip t became, paired by t's number. It is false when
// none arrived.
func (tr Trace) exchangeOf(t Trip) (Exchange, bool) {
	for _, ex := range tr.Wire {
		if ex.Trip == t.Number {
			return ex, true
		}
	}
	return Exchange{}, false
}

// headerLimit is how much of an answer's header pix reads. A longer one breaks the contract.
const headerLimit = 64 << 10

// unreadable reports whether t failed because its answer's header was longer than pix reads.
func (tr Trace) unreadable(t Trip) bool {
	ex, ok := tr.exchangeOf(t)
	return t.Err != nil && ok && ex.HeaderBytes > headerLimit
}

// scope is a key as the PSP scopes it: per bearer token.
type scope struct{ token, key string }

func (e Exchange) scope() scope { return scope{e.Token, e.Key} }

// chains returns the calls of each payment of tr (Call.Chain), in order, the payments in the
// order of their first calls.
func (tr Trace) chains() [][]int {
	var out [][]int
	at := map[int]int{} // chain → its index in out
	for i, c := range tr.Calls {
		k, ok := at[c.Chain]
		if !ok {
			k, at[c.Chain] = len(out), len(out)
			out = append(out, nil)
		}
		out[k] = append(out[k], i)
	}
	return out
}

// Ticket is one question a call's client put to the breaker, and what came of it. The round
// trips of the attempt it admitted are the call's Trips[TripsBefore:TripsAtDone].
type Ticket struct {
	Refused     error // Allow's error; nil: the attempt was admitted
	TripsBefore int   // the round trips the call had begun when Allow was asked
	TripsAtDone int   // the round trips the call had begun when done was last called
	Dones       int   // how many times done was called
	Counted     error // what done was last given: nil counts a success
}

// admittedTrips is the round trips of call c that the admitted ticket tk let through.
func (c Call) admittedTrips(tk Ticket) []Trip {
	end := min(max(tk.TripsAtDone, tk.TripsBefore), len(c.Trips))
	return c.Trips[min(tk.TripsBefore, len(c.Trips)):end]
}

// lineEvent is what the line, the network between the clients and the PSP, did to one round
// trip, and on which connection.
type lineEvent struct {
	Fault  lineFault
	Pooled bool // the connection had carried an earlier request
}

// lineFault is what the line does to one request. It breaks a connection before the request was
// written or after. A client cannot tell the two apart from the inside.
type lineFault int

const (
	lineIntact         lineFault = iota
	lineRefused                  // the dial is refused: nothing was sent
	lineCutBeforeWrite           // the connection breaks as the request is written: the PSP receives nothing
	lineCutAfterWrite            // the answer is lost: the PSP received the request and answered
	lineClosedIdle               // the peer closed the connection before the request went out
	lineNoSuchHost               // the PSP's name does not resolve: nothing was sent, and a retry will not help
)

func (f lineFault) String() string {
	return [...]string{"intact", "refused", "cut before write", "cut after write", "closed while idle",
		"no such host"}[f]
}

// reachesPSP reports whether a request the line treated this way arrives at the PSP.
func (f lineFault) reachesPSP() bool { return f == lineIntact || f == lineCutAfterWrite }

// failsDial reports whether f fails the dial, before any connection exists.
func (f lineFault) failsDial() bool { return f == lineRefused || f == lineNoSuchHost }
