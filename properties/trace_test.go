package properties

import (
	"time"

	"pixretry/internal/roundtrip"
	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

// Trace is everything one run observed, black box: the client side of every call (its log
// records and the round trips its HTTP client made), the PSP side of the wire (every request its
// handler saw and the bytes it answered), and the PSP's books at the start and at the end.
// Nothing in it comes from inside pix, retry or psp.
type Trace struct {
	Policy         retry.Policy
	AttemptTimeout time.Duration // pix.Client.AttemptTimeout; 0: none
	// SlowestFault is the longest a queued slow or late fault holds a request: it bounds an
	// attempt when AttemptTimeout is 0 or longer.
	SlowestFault time.Duration
	// Distortions is how many queued faults distort a success on its way out (bad_body, and
	// commit_status with a 2xx): at most that many answers on the wire are not what the PSP stored.
	Distortions  int
	KeyTTL       time.Duration // how long the PSP remembers a completed key
	Token        string        // the bearer token every call used
	BalanceStart int64         // cents, when the run began
	BalanceEnd   int64         // cents, once every handler had returned
	Ledger       []psp.Settlement
	Calls        []Call
	Wire         []Exchange // in the order the PSP's handler was entered
}

// Call is one Send or SendWithKey.
type Call struct {
	Payment  pix.Payment
	GivenKey string // the key passed to SendWithKey; "" for Send
	Start    time.Time
	End      time.Time
	Deadline time.Time // the deadline of the caller's context; zero for none
	Receipt  pix.Receipt
	Err      error
	Attempts []Attempt   // the "pix attempt" records, in order
	Summary  *Summary    // the closing record
	Trips    []Trip      // the round trips of the call's HTTP client, in order
	Lines    []lineEvent // what the line did to each round trip, in order
	Draws    []float64   // the jitter draws the call's client consumed, in order
	Records  []logRecord // every record the call's logger received: Attempts and Summary come from them
	Tickets  []Ticket    // what the call asked of the run's breaker, in order; none without a breaker
}

// Key is the Idempotency-Key the call used: the one it was given, else the one its first round
// trip carried; "" when it made none.
func (c Call) Key() string {
	if c.GivenKey != "" || len(c.Trips) == 0 {
		return c.GivenKey
	}
	return c.Trips[0].Key
}

// Attempt is one "pix attempt" log record.
type Attempt struct {
	At        time.Time // the record's time: the instant the attempt ended
	Number    int
	Key       string
	Outcome   string
	Error     string // the "error" attribute, the error's text; "" on success
	Transient bool
	Wait      time.Duration
	Elapsed   time.Duration
}

// Summary is the closing record of a call: "pix payment settled" or "pix payment failed".
type Summary struct {
	At             time.Time
	Message        string
	Key            string
	Attempts       int
	OutcomeUnknown bool   // failed only
	EndToEndID     string // settled only
	Replayed       bool   // settled only
}

// Trip is one round trip as the client's transport saw it. Its Number is unique in a run.
type Trip = roundtrip.Trip

// Exchange is one request as the PSP's handler saw it, and what the handler answered.
type Exchange struct {
	Trip     int64 // the number of the round trip that sent it (roundtrip.Header); 0: none
	Arrived  time.Time
	Answered time.Time // when the status line was written; zero when none was
	Token    string
	Key      string
	Request  []byte
	Status   int // 0: the connection was closed without an answer
	Body     []byte
	Replayed bool // the answer carried Idempotent-Replayed: true
	Hijacked bool // the handler took the connection over (to close it)
	// HeaderBytes is the size of the answer's header fields, as "Name: value\r\n" lines.
	HeaderBytes int
}

// exchangeOf is the request round trip t became at the PSP, paired by t's number; false when
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
