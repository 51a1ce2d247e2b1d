package pix

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"pixretry/retry"
)

// Client sends Pix payments to a PSP.
//
// The zero Client is not usable, since BaseURL and a valid Policy are required. A Client with
// an invalid field sends nothing, and its error names the field. Set the fields before the
// first call and leave them alone afterwards. A Client is then safe for concurrent use by
// multiple goroutines.
type Client struct {
	// BaseURL is the PSP's absolute http or https URL, such as http://127.0.0.1:8080.
	// Payments go to a path under it that the Dialect gives: BaseURL + /v1/pix/payments for
	// a nil Dialect.
	BaseURL string
	// Dialect is the PSP's API (see [Dialect]). If nil, the Client speaks the API of this
	// repository's double.
	Dialect Dialect
	// Token is the bearer token sent in the Authorization header.
	Token string
	// HTTPClient sends the requests. If nil, a shared client pools connections and bounds
	// dialing (10 s), the TLS handshake (10 s), the wait for response headers (30 s) and their
	// size (64 KiB, as for the body). A client of yours keeps its settings, its Timeout and
	// MaxResponseHeaderBytes included, but never follows a redirect.
	// Each attempt is one request on the wire, since net/http is kept from resending one by
	// itself.
	HTTPClient *http.Client
	// Policy bounds the attempts and the waits between them.
	Policy retry.Policy
	// AttemptTimeout limits each attempt, from sending the request to reading the whole
	// answer. An attempt that runs out of it is a transient failure. Zero means no limit but
	// the context's and, for a payment, the key deadline. It is not negative, and it is below
	// KeyTTL less a tenth.
	AttemptTimeout time.Duration
	// KeyTTL is how long the PSP remembers a completed Idempotency-Key. It must be no longer
	// than the PSP's own. Zero means the Dialect's KeyTTL: 24 hours for a nil Dialect. It is
	// not negative, and not longer than the Dialect's.
	//
	// A resend under a key that the PSP has forgotten would pay again. So no attempt under a
	// key may still be in flight at its key deadline: FirstSent + KeyTTL − KeyTTL/10, where
	// FirstSent is when the key's first attempt left. The tenth is a margin for clock skew and
	// for a request still in transit when its attempt ended. An attempt is sent only if its
	// AttemptTimeout ends before the key deadline, and with no AttemptTimeout the key deadline
	// ends the attempt. Otherwise the payment ends with [ErrKeyExpired].
	KeyTTL time.Duration
	// Logger receives one record per attempt and one per payment, lookup or await. If nil,
	// nothing is logged. Its records say what the events of [Observer] say, and are written
	// from them.
	//
	// A payment attempt logs "pix attempt", at Info if it settled or is pending and at Warn if
	// it failed. Its attributes are attempt, key, outcome, error (on failure only), transient,
	// wait and elapsed. The outcome is "settled", "replayed", "pending", or a few words on the
	// failure, such as "timeout" or "status 503 injected_fault". The wait is the one before
	// the next attempt, or 0. The elapsed time counts from the start of the call.
	//
	// A payment ends with "pix payment settled" at Info, with key, attempts, endToEndId and
	// replayed. A pending one ends with "pix payment pending" at Info, with key, attempts and
	// error. Or it ends with "pix payment failed" at Error, with key, attempts,
	// outcome_unknown and error.
	//
	// A lookup attempt logs "pix lookup attempt" with the same attributes, at Info if the PSP
	// answered for the key with a settlement, its absence or a pending payment, and at Warn
	// otherwise. Its outcome is "found", "not found", "pending", or a few words on the
	// failure, such as "rejected". A lookup ends with "pix lookup found" at Info, with key,
	// attempts and endToEndId, "pix lookup found nothing" at Info, with key and attempts, or
	// "pix lookup pending" as a payment does. Or it ends with "pix lookup failed" at Error,
	// with key, attempts, outcome_unknown and error. An await's attempts are lookup attempts,
	// and it ends as a payment does, "pix await settled" (replayed is true), "pix await
	// pending" or "pix await failed", or as a lookup does, "pix await found nothing".
	Logger *slog.Logger
	// Jitter is the source of the uniform draws in [0, 1) that become the waits, as with
	// [retry.WithRand]. A seeded source makes every wait reproducible. If nil, retry's
	// default is used. It must be safe for concurrent use if the Client is used concurrently.
	Jitter func() float64
	// Quota limits the retries of all the Client's payments together, as with
	// [retry.WithQuota]. Share one Quota between the Clients of one PSP. If nil, only Policy
	// limits the retries.
	Quota *retry.Quota
	// Breaker, if not nil, is asked before every attempt. An attempt it refuses is not sent,
	// and the payment ends at once with [ErrCircuitOpen]. Share one Breaker between the
	// Clients of one PSP. [Breaker] says what it counts as a failure.
	Breaker Breaker
	// Observer, if not nil, learns of every call and every attempt sent, for metrics and
	// traces, and may add headers to each request (see [Observer]). Package pix/pixotel makes
	// one on OpenTelemetry. If nil, nothing is reported, at no cost.
	Observer Observer
}

// errInvalidClient is wrapped by the error of a Send on a misconfigured Client.
var errInvalidClient = errors.New("pix: invalid Client")

// Send pays p under a new Idempotency-Key, the Dialect's NewKey (a random UUID for a nil
// Dialect), and returns the PSP's receipt.
//
// Nothing is sent for an invalid Client, nor for an invalid payment, whose error wraps
// [ErrInvalidPayment]. Each attempt runs under AttemptTimeout, and ctx bounds the whole call.
// A refusal by the PSP is an [*Error], which errors.Is matches against [ErrInsufficientFunds],
// [ErrKeyReused], [ErrInvalidPayment] and [ErrRejected]. A 202 pending answer ends the call
// with an [*OutcomeUnknownError] matching [ErrPending]: [Client.Await] learns how the payment
// ends. Only a 201 whose status is REALIZADO settles. A payment that c.Breaker stops ends at
// once with [ErrCircuitOpen]. A retry that would not end before the key deadline is not sent,
// and the payment ends with [ErrKeyExpired] (see [Client.KeyTTL]). When the PSP may hold a settlement,
// the error is an [*OutcomeUnknownError]. The last attempt's error, or ctx's, stays reachable
// with errors.Is and errors.As.
func (c *Client) Send(ctx context.Context, p Payment) (Receipt, error) {
	return c.send(ctx, CallSend, c.dialect().NewKey(), p, time.Time{}, Ref{})
}

// SendWithKey is [Client.Send] under the caller's Idempotency-Key, for a payment whose key
// was stored before it left. The PSP replays the outcome stored under the key, or makes the
// payment once. The key counts as not yet sent: its key deadline counts from this call's first
// attempt. To learn the outcome of a key that left before, call [Client.Resume].
//
// The key is one the Dialect takes as it is (see [Dialect.CheckKey]): for a nil Dialect, 1 to
// 255 visible ASCII characters (0x21 to 0x7E). Any other key fails with [ErrInvalidPayment],
// and nothing is sent. The same key with another payment fails with
// [ErrKeyReused].
//
// The key may already hold this payment's settlement. So every error is an
// [*OutcomeUnknownError], unless the payment or key is invalid or the PSP answered
// definitively for the key. That holds even when no attempt was made, or when the PSP refused
// the first attempt with, say, a 401.
func (c *Client) SendWithKey(ctx context.Context, key string, p Payment) (Receipt, error) {
	return c.send(ctx, CallSendWithKey, key, p, time.Time{}, Ref{})
}

// NewKey returns a fresh key in the Dialect's form, as [Client.Send] makes one: for a caller
// that stores the key before the payment leaves, then pays with [Client.SendWithKey]. It sends
// nothing.
func (c *Client) NewKey() string { return c.dialect().NewKey() }

// KeyRotated reports to c.Observer, if any, that the caller gave the key from up for a new key,
// to, after a lookup proved that nothing was paid under from ([ErrNoSettlement]). It sends
// nothing, and c.Logger logs nothing of it.
func (c *Client) KeyRotated(ctx context.Context, from, to string) {
	if o := c.observer(); o != nil {
		o.KeyRotated(ctx, from, to)
	}
}

// defaultKeyTTL is the KeyTTL of a Client that sets none, the PSP's usual.
const defaultKeyTTL = 24 * time.Hour

// Validate reports the error that Send, SendWithKey, Lookup, Resume and Await return for c,
// with nothing sent, when a field of c is invalid, or nil. The error names the field. It sends
// nothing.
func (c *Client) Validate() error {
	_, err := c.endpoint()
	return err
}

// dialect is c.Dialect, or the double's API if it is nil.
func (c *Client) dialect() Dialect {
	if c.Dialect == nil {
		return doubleAPI{}
	}
	return c.Dialect
}

// endpoint checks the Client's fields and returns the PSP's base URL.
func (c *Client) endpoint() (*url.URL, error) {
	u, err := url.Parse(c.BaseURL)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("%w: BaseURL %q is not an absolute http or https URL", errInvalidClient, c.BaseURL)
	}
	if c.AttemptTimeout < 0 {
		return nil, fmt.Errorf("%w: AttemptTimeout is %v, want 0 (none) or more", errInvalidClient, c.AttemptTimeout)
	}
	if c.KeyTTL < 0 {
		return nil, fmt.Errorf("%w: KeyTTL is %v, want 0 (24h) or more", errInvalidClient, c.KeyTTL)
	}
	if ttl := c.dialect().KeyTTL(); c.KeyTTL > ttl {
		return nil, fmt.Errorf("%w: KeyTTL %v is longer than the PSP's, %v", errInvalidClient, c.KeyTTL, ttl)
	}
	if window := c.keyWindow(); c.AttemptTimeout >= window {
		return nil, fmt.Errorf("%w: AttemptTimeout %v is not below %v, KeyTTL less a tenth", errInvalidClient,
			c.AttemptTimeout, window)
	}
	if err := c.Policy.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", errInvalidClient, err)
	}
	return u, nil
}
