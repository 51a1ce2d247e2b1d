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
	SlowestFault   time.Duration // the longest a slow or late fault holds a request
	// Distortions counts the queued faults that distort a success on its way out (bad_body, a 2xx
	// commit_status). At most that many answers on the wire are not what the PSP stored.
	Distortions  int
	KeyTTL       time.Duration // how long the PSP remembers a completed key
	Token        string        // the bearer token of every call
	BalanceStart int64         // cents, when the run began
	BalanceEnd   int64         // cents, once every handler had returned
	Ledger       []psp.Settlement
	Calls        []Call
	Wire         []Exchange // in the order the PSP's handler was entered
}

// Call is one Send or SendWithKey. Its slices are in order.
type Call struct {
	Payment  pix.Payment
	GivenKey string // SendWithKey's key; "" for Send
	Start    time.Time
	End      time.Time
	Deadline time.Time // the deadline of the caller's context; zero for none
	Receipt  pix.Receipt
	Err      error
	Attempts []Attempt   // the "pix attempt" records
	Summary  *Summary    // the closing record
	Trips    []Trip      // the round trips of the call's HTTP client
	Lines    []lineEvent // what the line did to each round trip
	Draws    []float64   // the jitter draws the call's client consumed
	Records  []logRecord // every record the call's logger received
	Tickets  []Ticket    // what the call asked of the run's breaker; none without one
}

// Key is the call's Idempotency-Key: the one it was given, else its first round trip's. It is ""
// when the call made no round trip.
func (c Call) Key() string {
	if c.GivenKey != "" || len(c.Trips) == 0 {
		return c.GivenKey
	}
	return c.Trips[0].Key
}

// Attempt is one "pix attempt" record. At is the instant the attempt ended.
type Attempt struct {
	At        time.Time
	Number    int
	Key       string
	Outcome   string
	Error     string // the error's text; "" on success
	Transient bool
	Wait      time.Duration
	Elapsed   time.Duration
}

// Summary is a call's closing record: "pix payment settled" or "pix payment failed".
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

// Exchange is one request as the PSP's handler saw it, and the handler's answer.
type Exchange struct {
	Trip        int64 // the number of the round trip that sent it (roundtrip.Header); 0: none
	Arrived     time.Time
	Answered    time.Time // when the status line was written; zero when none was
	Token       string
	Key         string
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
