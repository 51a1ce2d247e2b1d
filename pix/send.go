package pix

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"pixretry/retry"
)

// sending is one payment on its way: what its attempts share. It lives for one call to Send
// and is used by that call's goroutine only (retry.Do calls the attempt and the observer
// synchronously).
type sending struct {
	client   *Client
	ctx      context.Context // the caller's, for the log records
	log      *slog.Logger
	start    time.Time
	key      string
	payment  Payment
	endpoint string
	body     []byte

	attempts int
	// mayHaveSettled: an attempt ended without proof that the PSP did not settle.
	mayHaveSettled bool
	last           Receipt // the last attempt's receipt, for its log record
}

// send checks the key and the payment, then the Client, then makes the attempts. A fresh key
// has no history at the PSP; a key of the caller's (resumed) may already hold this payment's
// settlement, so until the PSP gives a definitive answer for it the outcome is unknown. An
// invalid payment or key is the exception: the PSP could never have accepted it.
func (c *Client) send(ctx context.Context, key string, p Payment, resumed bool) (Receipt, error) {
	s := &sending{client: c, ctx: ctx, log: c.logger(), start: time.Now(), key: key, payment: p}
	err := validateKey(key)
	if err == nil {
		err = p.validate()
	}
	if err != nil {
		return Receipt{}, s.failed(err)
	}
	s.mayHaveSettled = resumed
	endpoint, err := c.endpoint()
	if err != nil {
		return Receipt{}, s.failed(err)
	}
	s.endpoint, s.body = endpoint, p.body()
	r, err := retry.Do(ctx, c.Policy, s.attempt, retry.WithClassifier(transient), retry.WithObserver(s.observe), retry.WithRand(c.Jitter),
		retry.WithQuota(c.Quota))
	if err != nil {
		return Receipt{}, s.failed(err)
	}
	s.log.LogAttrs(ctx, slog.LevelInfo, "pix payment settled", slog.String("key", key),
		slog.Int("attempts", s.attempts), slog.String("endToEndId", r.EndToEndID), slog.Bool("replayed", r.Replayed))
	return r, nil
}

// attempt makes one attempt under its own deadline.
func (s *sending) attempt(ctx context.Context) (Receipt, error) {
	s.attempts++
	ctx, cancel := s.client.attemptContext(ctx)
	defer cancel()
	r, err := s.exchange(ctx)
	if err != nil && mayHaveSettled(err) {
		s.mayHaveSettled = true
	}
	s.last = r
	return r, err
}

// exchange posts the payment and turns the answer into a receipt or an error.
func (s *sending) exchange(ctx context.Context) (Receipt, error) {
	a, err := s.client.post(ctx, s.endpoint, s.key, s.body)
	if err != nil {
		return Receipt{}, err
	}
	if a.status != http.StatusCreated {
		return Receipt{}, decodeError(a, time.Now())
	}
	r, err := settled(a.body, s.payment)
	if err != nil {
		return Receipt{}, err
	}
	r.IdempotencyKey = s.key
	r.Replayed = a.header.Get("Idempotent-Replayed") == "true"
	r.Attempts = s.attempts
	return r, nil
}

// mayHaveSettled reports whether a failed attempt leaves open that the PSP settled the
// payment. Only two kinds of failure prove it did not: a connection that could not be made
// (the request never left), and a 4xx answer other than 409 and 429 (the PSP refused the
// request before processing it, or answered with a stored refusal). A 409 says the key is in
// flight and may settle yet; a 429 is taken as conservatively. Everything else may hide a
// settlement: a timeout, a lost connection, a 5xx, a 2xx other than 201, a 3xx, a 201 whose
// body broke the contract.
func mayHaveSettled(err error) bool {
	if e, ok := errors.AsType[*Error](err); ok {
		refused := e.Status/100 == 4 && e.Status != http.StatusConflict && e.Status != http.StatusTooManyRequests
		return !refused
	}
	e, ok := errors.AsType[*net.OpError](err)
	return !ok || e.Op != "dial"
}

// failed logs the end of a payment that did not settle and returns its error: an
// OutcomeUnknownError when the PSP may hold its settlement (an attempt may have settled it, or
// the key came with a history) and the PSP's last word is not definitive for this key and this
// payment. Two refusals are: insufficient funds (the key's stored outcome) and key reused (the
// key holds another payment, so none of this one).
func (s *sending) failed(err error) error {
	unknown := s.mayHaveSettled && !errors.Is(err, ErrInsufficientFunds) && !errors.Is(err, ErrKeyReused)
	if unknown {
		err = &OutcomeUnknownError{Key: s.key, Attempts: s.attempts, Err: err}
	}
	s.log.LogAttrs(s.ctx, slog.LevelError, "pix payment failed", slog.String("key", s.key),
		slog.Int("attempts", s.attempts), slog.Bool("outcome_unknown", unknown), slog.String("error", err.Error()))
	return err
}
