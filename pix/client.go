package pix

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/google/uuid"

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
	// Payments go to BaseURL + /v1/pix/payments.
	BaseURL string
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
	// the context's. It is not negative.
	AttemptTimeout time.Duration
	// Logger receives one record per attempt and one per payment. If nil, nothing is logged.
	//
	// An attempt logs "pix attempt", at Info if it settled and at Warn if it failed. Its
	// attributes are attempt, key, outcome, error (on failure only), transient, wait and
	// elapsed. The outcome is "settled", "replayed", or a few words on the failure, such as
	// "timeout" or "status 503 injected_fault". The wait is the one before the next attempt,
	// or 0. The elapsed time counts from the start of the call.
	//
	// A payment ends with "pix payment settled" at Info, with key, attempts, endToEndId and
	// replayed. Or it ends with "pix payment failed" at Error, with key, attempts,
	// outcome_unknown and error.
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
}

// errInvalidClient is wrapped by the error of a Send on a misconfigured Client.
var errInvalidClient = errors.New("pix: invalid Client")

// Send pays p under a new Idempotency-Key, a random UUID, and returns the PSP's receipt.
//
// Nothing is sent for an invalid Client, nor for an invalid payment, whose error wraps
// [ErrInvalidPayment]. Each attempt runs under AttemptTimeout, and ctx bounds the whole call.
// A refusal by the PSP is an [*Error], which errors.Is matches against [ErrInsufficientFunds],
// [ErrKeyReused] and [ErrInvalidPayment]. A payment that c.Breaker stops ends at once with
// [ErrCircuitOpen]. When the PSP may hold a settlement, the error is an
// [*OutcomeUnknownError]. The last attempt's error, or ctx's, stays reachable with errors.Is
// and errors.As.
func (c *Client) Send(ctx context.Context, p Payment) (Receipt, error) {
	return c.send(ctx, uuid.NewString(), p, false)
}

// SendWithKey is [Client.Send] under the caller's Idempotency-Key. Use it to resume a payment
// whose key was stored with it, or to learn the outcome of an [*OutcomeUnknownError]. The PSP
// replays the outcome stored under the key, or makes the payment once.
//
// The key is 1 to 255 visible ASCII characters (0x21 to 0x7E). Any other key fails with
// [ErrInvalidPayment], and nothing is sent. The same key with another payment fails with
// [ErrKeyReused].
//
// The key may already hold this payment's settlement. So every error is an
// [*OutcomeUnknownError], unless the payment or key is invalid or the PSP answered
// definitively for the key. That holds even when no attempt was made, or when the PSP refused
// the first attempt with, say, a 401.
func (c *Client) SendWithKey(ctx context.Context, key string, p Payment) (Receipt, error) {
	return c.send(ctx, key, p, true)
}

// endpoint checks the Client's fields and returns the URL payments are posted to.
func (c *Client) endpoint() (string, error) {
	u, err := url.Parse(c.BaseURL)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("%w: BaseURL %q is not an absolute http or https URL", errInvalidClient, c.BaseURL)
	}
	if c.AttemptTimeout < 0 {
		return "", fmt.Errorf("%w: AttemptTimeout is %v, want 0 (none) or more", errInvalidClient, c.AttemptTimeout)
	}
	if err := c.Policy.Validate(); err != nil {
		return "", fmt.Errorf("%w: %w", errInvalidClient, err)
	}
	return u.JoinPath("v1/pix/payments").String(), nil
}

// attemptContext is the context one attempt runs under.
func (c *Client) attemptContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.AttemptTimeout == 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, c.AttemptTimeout)
}

// logger is c.Logger, or one that discards.
func (c *Client) logger() *slog.Logger {
	if c.Logger == nil {
		return discard
	}
	return c.Logger
}

var discard = slog.New(slog.DiscardHandler)
