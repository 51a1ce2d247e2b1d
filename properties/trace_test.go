package properties

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"pixretry/internal/pipenet"
	"pixretry/internal/roundtrip"
	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

// Trace is everything one run observed from outside pix, retry and psp. It holds the client side
// of every call, the PSP side of the wire, and the PSP's books at the start and at the end. In
// a dialect with a front end, the PSP side is two: what the front end answered (Front), and
// what reached the core (Wire).
type Trace struct {
	Dialect        *dialect // the dialect of the run: pixAPI for the double's own
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
	// Ends is each payment's terminal status as psp.Config.OnEnd reported it, in order: a
	// payment settled at once too, and one accepted pending that settled or was rejected later.
	Ends  []psp.Ended
	Calls []Call
	Wire  []Exchange // in the order the PSP's handler was entered: the core's, in its own API
	// Front is what the dialect's front end received and answered, in its order; nil for the
	// double's own API, whose front is Wire (received). Setup counts its requests that the run made
	// itself (consents), which no round trip sent.
	Front      []Exchange
	Setup      int
	Deliveries []Delivery // what reached the run's webhook receiver, in order; none without one
}

// Call is one Send, SendWithKey, Resume or Await. Its payment attempts are its Phase; a Resume
// that looked its key up, and an Await, have a second Phase, Lookup. Its slices are in order.
type Call struct {
	Payment  pix.Payment
	GivenKey string // SendWithKey's key, or the key Resume or Await was given; "" for Send
	Awaited  bool   // the call is an Await of GivenKey, the key of Payment: only lookups
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
	Attempts []Attempt       // the phase's attempt records
	Summary  *Summary        // its closing record; nil when the phase did not happen
	Trips    []Trip          // its round trips; a lookup's Key is the key it looked up
	Lines    []pipenet.Event // what the line did to each round trip
	Draws    []float64       // the jitter draws taken for its waits
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

// lookedUp reports whether the call ended in a lookup: an Await, or a Resume that found its key
// past the key deadline, or reached it while resending.
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

// Delivery is one POST that reached the run's webhook receiver, a pix.WebhookHandler, and what
// the receiver made of it. The payer's state of a key it sent is "pending" until a delivery
// applied ends it "settled" or "refused"; a key it never sent has none ("").
type Delivery struct {
	At     time.Time
	Forged string // how the run forged it (forgedSecret, forgedLate); "" for the double's own
	// ID, Key, EndToEndID and Status are the body's id, idempotencyKey, endToEndId and status.
	ID, Key, EndToEndID, Status string
	Answer                      int    // the receiver's status
	Applies                     int    // how many times the handler called Apply
	Failed                      bool   // Apply failed, as the run drew, and changed nothing
	Before, After               string // the payer's state of Key when Apply ran, and when it returned
}

// changed reports whether d changed the payer's state of its key.
func (d Delivery) changed() bool { return d.Before != d.After }

// The ways the run forges a delivery (Delivery.Forged), and the payer's states of a key it sent
// (Delivery.Before and After).
const (
	forgedSecret = "wrong secret"
	forgedLate   = "replayed late"
	statePending = "pending"
	stateSettled = "settled"
	stateRefused = "refused"
)

// payerState is the payer's state of a key whose payment ended with status.
func payerState(status string) string {
	if status == statusSettled {
		return stateSettled
	}
	return stateRefused
}

// Trip is one round trip as the client's transport saw it. Its Number is unique in a run.
type Trip = roundtrip.Trip

// Exchange is one request as the PSP's handler saw it, and the handler's answer.
type Exchange = roundtrip.Exchange

// lookup reports whether ex is a status lookup (a GET), not a payment request.
func lookup(ex Exchange) bool { return ex.Method == http.MethodGet }

// received is what the PSP received from the clients and answered them, in the run's dialect: the
// front end's exchanges, or the core's in the double's own API.
func (tr Trace) received() []Exchange {
	if tr.Dialect.Front == nil {
		return tr.Wire
	}
	return tr.Front
}

// exchangeOf is the request that round trip t became at the PSP, and the answer it got, as the
// dialect's front end wrote it (received), paired by t's number. It is false when none arrived.
func (tr Trace) exchangeOf(t Trip) (Exchange, bool) {
	for _, ex := range tr.received() {
		if ex.Trip == t.Number {
			return ex, true
		}
	}
	return Exchange{}, false
}

// saidTo is what round trip t of a call of payment p brought whole: its answer, read as the
// run's dialect says (dialect.Says). It is false when t brought nothing whole: a transport
// error, a body cut short, or an answer other than the one the PSP wrote for it.
func (tr Trace) saidTo(t Trip, p pix.Payment) (said, bool) {
	ex, ok := tr.exchangeOf(t)
	if !ok || t.Err != nil || t.BodyErr != nil || t.Status != ex.Status {
		return said{}, false
	}
	return tr.Dialect.Says(ex, p), true
}

// headerLimit is how much of an answer's header pix reads. A longer one breaks the contract.
const headerLimit = 64 << 10

// unreadable reports whether t failed because its answer's header was longer than pix reads.
func (tr Trace) unreadable(t Trip) bool {
	ex, ok := tr.exchangeOf(t)
	return t.Err != nil && ok && ex.HeaderBytes > headerLimit
}

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

// String prints the trace for a failure report: each call with its attempts and round trips,
// its lookup's after them, then the PSP's side of the wire (the front end's first, in a
// dialect with one) and its books. Instants are offsets
// from the first call.
func (tr Trace) String() string {
	var b strings.Builder
	var t0 time.Time
	if len(tr.Calls) > 0 {
		t0 = slices.MinFunc(tr.Calls, func(a, b Call) int { return a.Start.Compare(b.Start) }).Start
	}
	at := func(t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return "+" + t.Sub(t0).String()
	}
	for i, c := range tr.Calls {
		fmt.Fprintf(&b, "call %d (payment of call %d) key %q awaited=%v %s→%s receipt %+v err %v\n", i, c.Chain,
			c.Key(), c.Awaited, at(c.Start), at(c.End), c.Receipt, c.Err)
		if c.Resumed != nil {
			fmt.Fprintf(&b, "  resumes key %q first sent at %s\n", c.Resumed.Key, at(c.Resumed.FirstSent))
		}
		for k, ph := range c.phases() {
			for j, a := range ph.Attempts {
				fmt.Fprintf(&b, "  %sattempt %d at %s outcome %q transient=%v wait=%v error %q\n", phaseKinds[k], a.Number,
					at(a.At), a.Outcome, a.Transient, a.Wait, a.Error)
				if j < len(ph.Trips) {
					t := ph.Trips[j]
					fmt.Fprintf(&b, "    trip %d %s→%s status %d retry-after %q replayed=%v err %v body err %v\n",
						t.Number, at(t.Start), at(t.End), t.Status, t.RetryAfter, t.Replayed, t.Err, t.BodyErr)
				}
			}
		}
	}
	for _, ex := range tr.Front {
		fmt.Fprintf(&b, "%s %s trip %d %s key %q → %d hijacked=%v at %s %s\n", tr.Dialect.Name, at(ex.Arrived), ex.Trip,
			ex.Method, ex.Key, ex.Status, ex.Hijacked, at(ex.Answered), strings.TrimSpace(string(ex.Body)))
	}
	for _, ex := range tr.Wire {
		what := "pays"
		if lookup(ex) {
			what = "looks up"
		}
		fmt.Fprintf(&b, "psp %s trip %d %s key %q → %d replayed=%v hijacked=%v at %s %s\n", at(ex.Arrived), ex.Trip,
			what, ex.Key, ex.Status, ex.Replayed, ex.Hijacked, at(ex.Answered), strings.TrimSpace(string(ex.Body)))
	}
	for _, s := range tr.Ledger {
		fmt.Fprintf(&b, "ledger %s key %q %d cents at %s\n", s.EndToEndID, s.IdempotencyKey, s.AmountCents,
			at(s.SettledAt))
	}
	for _, e := range tr.Ends {
		fmt.Fprintf(&b, "end %s key %q %s at %s\n", e.EndToEndID, e.IdempotencyKey, e.Status, at(e.At))
	}
	for _, d := range tr.Deliveries {
		fmt.Fprintf(&b, "delivery %s at %s forged %q key %q %s %s → %d applied %d failed=%v %q→%q\n", d.ID, at(d.At),
			d.Forged, d.Key, d.EndToEndID, d.Status, d.Answer, d.Applies, d.Failed, d.Before, d.After)
	}
	fmt.Fprintf(&b, "balance %d → %d cents; keys kept %v, by the clients %v\n", tr.BalanceStart, tr.BalanceEnd,
		tr.KeyTTL, tr.ClientKeyTTL)
	return b.String()
}
