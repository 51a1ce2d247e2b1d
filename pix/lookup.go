package pix

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"pixretry/retry"
)

// codePaymentNotFound is the code of a lookup's 404 that proves the key paid nothing.
const codePaymentNotFound = "payment_not_found"

// Lookup asks the PSP for the settlement it holds under key, and returns its receipt. It never
// pays. The PSP answers from its ledger, however long ago it forgot the key.
//
// The receipt's AmountCents and PixKey are the settlement's, IdempotencyKey is key, Replayed
// is true and Attempts counts the lookup's attempts.
//
// A 404 payment_not_found proves that nothing was ever paid under the key. The PSP then closes
// the key, so nothing can be paid under it later, and the error matches [ErrNoSettlement].
// Every other answer that is not a receipt ends with an [*OutcomeUnknownError]. That includes a
// 401, a 400, another 404, the PSP's 410 outcome_unprovable, a 3xx, a 200 that breaks the
// contract ([ErrContract]), a 409 while a payment under the key is in flight, a 5xx and no
// answer at all.
//
// Transient failures are tried again as for a payment: 409, 429, 5xx, timeouts and broken
// connections. c.Policy, c.Jitter and c.Quota apply, and c.Breaker does not. Each attempt runs
// under AttemptTimeout, and ctx bounds the whole call.
//
// An invalid key fails with [ErrInvalidPayment], and nothing is sent. Nothing is sent for an
// invalid Client either. Its error is an [*OutcomeUnknownError], since the key may hold a
// settlement.
func (c *Client) Lookup(ctx context.Context, key string) (Receipt, error) {
	return c.lookup(ctx, key, nil, time.Time{})
}

// looking is what the attempts of one lookup share. It lives for one call and is used by
// that call's goroutine only, as a sending is.
type looking struct {
	probe
	client *Client
	key    string
	target string // the lookup's URL
	// payment is Resume's payment, which the settlement found must be for, or nil.
	payment *Payment
	// firstSent is Resume's FirstSent, which an unknown outcome keeps, or zero.
	firstSent time.Time

	last retry.Attempt // the last attempt that retry.Do reported, with Number 0 before the first
	info string        // the infoPagador of the settlement found
	// unknown is set once key and payment are valid: every error but ErrNoSettlement then
	// leaves the key's outcome unknown.
	unknown bool
}

// lookup makes the lookup of Lookup and Resume, a call of its own for the Observer.
func (c *Client) lookup(ctx context.Context, key string, p *Payment, firstSent time.Time) (Receipt, error) {
	ctx, w := c.watch(ctx, CallLookup, key)
	l := &looking{client: c, key: key, payment: p, firstSent: firstSent}
	r, err := l.look(ctx, w.obs)
	w.ended(r, err, true, l.last.Number)
	return r, err
}

// look checks the key, the payment if any and the Client, then makes the attempts.
func (l *looking) look(ctx context.Context, obs Observer) (Receipt, error) {
	err := validateKey(l.key)
	if err == nil && l.payment != nil {
		err = l.payment.Validate()
	}
	if err != nil {
		return Receipt{}, l.failed(err)
	}
	l.unknown = true
	c := l.client
	u, err := c.lookupURL(l.key)
	if err != nil {
		return Receipt{}, l.failed(err)
	}
	l.target = u.String()
	l.probe = newProbe(obs, l.key, http.MethodGet, l.target, u, c.Quota != nil)
	r, err := retry.Do(ctx, c.Policy, l.attempt, retry.WithClassifier(transient), retry.WithObserver(l.observe),
		retry.WithRand(c.Jitter), retry.WithQuota(c.Quota))
	if err == nil {
		err = l.forPayment(r)
	}
	if err != nil {
		return Receipt{}, l.failed(err)
	}
	r.IdempotencyKey, r.Replayed, r.Attempts = l.key, true, l.last.Number
	return r, nil
}

// lookupURL checks the Client's fields and returns the URL that looks key up.
func (c *Client) lookupURL(key string) (*url.URL, error) {
	u, err := c.endpoint()
	if err != nil {
		return nil, err
	}
	u.RawQuery = url.Values{"idempotency_key": {key}}.Encode()
	return u, nil
}

// attempt makes one lookup attempt under AttemptTimeout and turns the answer into a receipt or
// an error.
func (l *looking) attempt(ctx context.Context) (Receipt, error) {
	ctx = l.started(ctx, l.last.Number+1)
	if l.client.AttemptTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, l.client.AttemptTimeout)
		defer cancel()
	}
	a, err := l.client.get(ctx, l.obs, l.target)
	if err != nil {
		return Receipt{}, err
	}
	l.status = a.status
	if a.status == http.StatusOK {
		r, info, err := parseReceipt(a.status, a.body)
		l.info = info
		return r, err
	}
	e := decodeError(a, time.Now())
	if e.Status == http.StatusNotFound && e.Code == codePaymentNotFound {
		return Receipt{}, fmt.Errorf("%w: %w", ErrNoSettlement, e)
	}
	return Receipt{}, e
}

// forPayment returns nil if the settlement found, r, is for Resume's payment (or for any, for
// Lookup). Otherwise it returns an error wrapping ErrKeyReused.
func (l *looking) forPayment(r Receipt) error {
	p := l.payment
	if p == nil || r.AmountCents == p.AmountCents && r.PixKey == p.PixKey && l.info == p.Description {
		return nil
	}
	return fmt.Errorf("%w: the key holds a settlement of valor %q to chave %q with infoPagador %q",
		ErrKeyReused, valor(r.AmountCents), r.PixKey, l.info)
}

// observe takes note of one lookup attempt, which retry.Do reports before any wait, and
// reports its end.
func (l *looking) observe(a retry.Attempt) {
	l.last = a
	l.ended(a)
}

// failed returns the error of a lookup that found no receipt. ErrNoSettlement is the PSP's
// proof, and comes back as it is. Any other error is an OutcomeUnknownError, once the key and
// the payment are valid.
func (l *looking) failed(err error) error {
	if l.unknown && !errors.Is(err, ErrNoSettlement) {
		err = &OutcomeUnknownError{Key: l.key, Attempts: l.last.Number, FirstSent: l.firstSent, Err: err}
	}
	return err
}
