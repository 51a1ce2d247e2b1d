package pix

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// A Dialect is how one PSP's payment API carries a payment. It decides where the idempotency
// key goes and which keys fit there, how one attempt is written, what an answer says, how a
// payment is looked up, and how long the PSP keeps a key. [Client.Dialect] picks one. A nil
// Dialect speaks the API of this repository's double (psp -dialect pix): the key in an
// Idempotency-Key header, POST /v1/pix/payments, and a lookup by key. Packages pix/efi and
// pix/openfinance speak two real APIs.
//
// A Dialect only translates. What keeps the promise is pix's and the same for every dialect:
// the retries and their waits, which failures are transient, the key deadline, the breaker,
// the quota, and when an outcome is unknown. A Dialect is used by many calls at once, so it
// must be safe for concurrent use.
type Dialect interface {
	// NewKey returns a fresh key for [Client.Send]: random, and in a form the PSP takes.
	NewKey() string
	// CheckKey returns nil if the PSP takes key as it is. Otherwise it returns an error
	// wrapping [ErrInvalidPayment] that says which keys fit, and the call sends nothing. A key
	// is never changed to make it fit: two keys of the caller's could become one.
	CheckKey(key string) error
	// Pay returns the request of one attempt to pay p under key, to the PSP whose base URL is
	// base. pix calls it once for each attempt, so a dialect that signs its requests signs
	// each attempt anew. pix adds the Authorization header, and an Accept header if Pay set
	// none.
	Pay(ctx context.Context, base *url.URL, key string, p Payment) (*http.Request, error)
	// Paid reads the answer to a payment attempt, and returns what it says of the payment:
	// settled, pending or rejected. Any other answer is an error: an [*Error] for a refusal or
	// a failure of the PSP, or an error wrapping [ErrContract] for an answer outside the API's
	// contract. pix checks that the payment found is p's.
	Paid(a Answer, p Payment) (Found, error)
	// Look returns the request that asks the PSP what became of the payment under key, with
	// ref what is known of the PSP's own ids for it. It returns an error wrapping
	// [ErrNoLookup] when the PSP offers no way to learn it from what ref holds.
	Look(ctx context.Context, base *url.URL, key string, ref Ref) (*http.Request, error)
	// Seen reads the answer to the request Look made for ref, as Paid does. An answer that
	// proves that nothing was paid under the key, and nothing can be, is an error wrapping
	// [ErrNoSettlement].
	Seen(a Answer, ref Ref) (Found, error)
	// KeyTTL is how long the PSP keeps a key after its first use. [Client.KeyTTL] may not be
	// longer.
	KeyTTL() time.Duration
}

// ErrNoLookup reports a payment that the PSP offers no way to look up with what is known of it,
// such as an Open Finance payment whose paymentId never came back and whose consent is not
// known. Its outcome stays unknown, so an error matching it is an [*OutcomeUnknownError].
var ErrNoLookup = errors.New("pix: the PSP offers no lookup for what is known of the payment")

// Answer is one answer of the PSP as pix read it: its status, its header, and at most 64 KiB
// and one byte of its body. A longer Body breaks every contract.
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
}

// Ref holds the PSP's own ids of a payment, for a dialect that looks payments up by them
// rather than by key, such as Open Finance: the paymentId of the PSP's first answer, and the
// consent the payment was made under. A dialect that looks payments up by key needs neither.
// Keep it with the key: [Receipt] and [OutcomeUnknownError] carry the ids learned.
type Ref struct {
	PaymentID string // the PSP's id of the payment, from its first answer, or empty
	ConsentID string // the payer's consent that the payment consumes, or empty
}

// State is where a payment stands at the PSP.
type State int

// The states of a payment that an answer can report.
const (
	Settled  State = iota + 1 // the payee was paid
	Pending                   // accepted, and neither settled nor rejected yet
	Rejected                  // accepted, then rejected: nothing was paid
)

// String returns the double's word for s: REALIZADO, EM_PROCESSAMENTO or NAO_REALIZADO, or
// "State(N)" for another value.
func (s State) String() string {
	switch s {
	case Settled:
		return statusSettled
	case Pending:
		return statusPending
	case Rejected:
		return statusRejected
	}
	return "State(" + strconv.Itoa(int(s)) + ")"
}

// Found is what an answer says of a payment, as a [Dialect] read it.
type Found struct {
	State       State
	EndToEndID  string    // the payment's Pix id, E + ISPB + yyyyMMddHHmm + 11 characters
	AmountCents int64     // the amount, in centavos
	PixKey      string    // the payee's key
	Description string    // the message to the payee (infoPagador), if the answer carries it
	At          time.Time // when the payment settled, was accepted, or was rejected
	Reason      string    // why the PSP rejected it, if it says
	Replayed    bool      // the PSP answered with the outcome it stored under the key
	Ref         Ref       // the PSP's ids of the payment, if the answer carries them
	// Key is the key that the answer names, if it names one, as Efí's idEnvio. pix checks that
	// it is the call's: an answer for another key breaks the contract.
	Key string
}

// isUnder checks that f, read from an answer with code, names key or no key at all. An answer
// for another key breaks the contract, and the error wraps ErrContract.
func (f Found) isUnder(code int, key string) error {
	if f.Key != "" && f.Key != key {
		return fmt.Errorf("%w: the %d is for key %q, not %q", ErrContract, code, f.Key, key)
	}
	return nil
}

// learn returns r with the PSP's id of the payment that got, what an answer gave, holds, if
// it holds one. The consent is the payment's, never an answer's.
func (r Ref) learn(got Ref) Ref {
	r.PaymentID = cmp.Or(got.PaymentID, r.PaymentID)
	return r
}

// unsentError is the error of an attempt whose request the Dialect could not write, err. Nothing
// was sent: the attempt is not counted, reported or retried.
type unsentError struct{ err error }

func (e *unsentError) Error() string { return e.err.Error() }

func (e *unsentError) Unwrap() error { return e.err }
