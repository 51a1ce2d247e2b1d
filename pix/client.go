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

// Client sends Pix payments to a PSP, retrying transient failures under Policy with one
// Idempotency-Key per payment.
//
// Set the fields before the first call and leave them alone afterwards: a Client is then safe
// for concurrent use by many goroutines. The zero Client is not usable: BaseURL and a valid
// Policy are required. A Client with an invalid field sends nothing and returns an error that
// names the field.
type Client struct {
	// BaseURL is the PSP's absolute http or https URL, e.g. http://127.0.0.1:8080; payments
	// go to BaseURL + /v1/pix/payments.
	BaseURL string
	// Token is the bearer token sent in Authorization.
	Token string
	// HTTPClient sends the requests. nil: a shared client that bounds dialing (10 s), the TLS
	// handshake (10 s) and the wait for response headers (30 s), and pools connections. A
	// client of yours keeps its settings (its Timeout, if any, also bounds each attempt) except
	// CheckRedirect: redirects are never followed, and a 3xx answer is an *Error.
	HTTPClient *http.Client
	// Policy bounds the attempts and the waits between them (see retry.Policy).
	Policy retry.Policy
	// AttemptTimeout limits each attempt, from sending the request to reading the whole
	// answer; an attempt that runs out of it is transient. 0: no limit but ctx's. Not negative.
	AttemptTimeout time.Duration
	// Logger receives one record per attempt and one per payment (see Send). nil: discard.
	Logger *slog.Logger
	// Jitter is the source of the uniform draws in [0, 1) that retry turns into waits
	// (retry.WithRand): a seeded source makes every wait reproducible. nil: retry's default.
	// It must be safe for concurrent use if the Client is used concurrently.
	Jitter func() float64
	// Quota limits the retries of all the Client's payments together (retry.WithQuota).
	// Share one Quota between the Clients of one PSP. nil: no limit but Policy's.
	Quota *retry.Quota
}

// errInvalidClient is wrapped by the error of a Send on a misconfigured Client.
var errInvalidClient = errors.New("pix: invalid Client")

// Send pays p under a new Idempotency-Key (a random UUID) that every attempt carries, and
// returns the PSP's receipt; [Receipt.Replayed] says that an earlier attempt had settled it
// and its answer was lost.
//
// Nothing is sent for an invalid payment (an error wrapping [ErrInvalidPayment]) or an
// invalid Client. Otherwise each attempt runs under its own deadline (AttemptTimeout) within
// ctx, and the attempts follow Policy: a transient failure is tried again, any other answer
// ends the call. ctx bounds the whole call, waits included: when it ends the call returns an
// error that satisfies errors.Is(err, ctx.Err()).
//
// The error is an [*OutcomeUnknownError] (errors.Is(err, [ErrOutcomeUnknown])) whenever the
// PSP may hold a settlement; an error that is not means the PSP holds no settlement for this
// key and this payment. A refusal is a [*Error]; check it with errors.Is against
// [ErrInsufficientFunds], [ErrKeyReused] and [ErrInvalidPayment], or read its Status and Code
// with errors.As. The last attempt's error is always reachable with errors.Is and errors.As.
//
// Each attempt is logged at Info (success) or Warn (failure) as "pix attempt" with attempt,
// key, outcome ("settled", "replayed", or why it failed: "timeout", "status 503 ...",
// "connection closed" ...), error (on failure), transient, wait (before the next attempt, 0
// if none) and elapsed (since Send began). The call ends with "pix payment settled" at Info
// (key, attempts, endToEndId, replayed) or "pix payment failed" at Error (key, attempts,
// outcome_unknown, error).
func (c *Client) Send(ctx context.Context, p Payment) (Receipt, error) {
	return c.send(ctx, uuid.NewString(), p, false)
}

// SendWithKey is Send under the caller's Idempotency-Key: 1 to 255 visible ASCII characters
// (0x21 to 0x7E), or the call fails with [ErrInvalidPayment] and sends nothing. Use it to
// resume a payment whose key was stored with it, or to learn the outcome of one that ended in
// [ErrOutcomeUnknown]: the PSP replays the stored outcome, or makes the payment once. The
// same key with a different payment fails with [ErrKeyReused].
//
// The key may already hold this payment's settlement (that is what resuming means), so the
// promise is kept differently than in Send: unless the PSP answers for the key definitively
// (a receipt, [ErrInsufficientFunds] or [ErrKeyReused]) the error is an [*OutcomeUnknownError],
// even when no attempt was made (ctx already ended, an invalid Client) or the first attempt
// was refused with, say, a 401. Only an invalid payment or key ([ErrInvalidPayment], nothing
// sent) is not: the PSP could never have accepted it.
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
