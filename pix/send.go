package pix

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"pixretry/retry"
)

// sending is what the attempts of one payment share. It lives for one call to Send
// and is used by that call's goroutine only (retry.Do calls the attempt and the observer
// synchronously).
type sending struct {
	probe
	client  *Client
	key     string
	payment Payment
	base    *url.URL // the PSP's base URL
	// ref holds the PSP's ids of the payment that its answers gave, and the payment's consent.
	ref Ref
	// firstSent is when the key's first attempt left: Resume's, or this call's first attempt.
	// Zero until then.
	firstSent time.Time

	last retry.Attempt // the last attempt sent that retry.Do reported, with Number 0 before the first
	// permit is the breaker's done for the first attempt, from admitFirst until the attempt.
	permit func(error)
	// mayHaveSettled is set once the PSP may hold this payment's settlement.
	mayHaveSettled bool
}

// send makes a call of kind to pay p under key: Send, SendWithKey, or Resume's resend.
// firstSent is when the key's first attempt left, and ref the PSP's ids of the payment, for a
// key resumed by Resume, or zero.
func (c *Client) send(ctx context.Context, kind CallKind, key string, p Payment, firstSent time.Time, ref Ref) (Receipt, error) {
	ctx, w := c.watch(ctx, kind, key)
	ref.ConsentID = cmp.Or(ref.ConsentID, p.ConsentID)
	s := &sending{client: c, key: key, payment: p, firstSent: firstSent, ref: ref}
	r, err := s.pay(ctx, w.obs, kind != CallSend)
	w.ended(r, err, false, s.last.Number)
	return r, err
}

// pay checks the key and the payment, then the Client, then makes the attempts. A fresh key
// has no history at the PSP. A key of the caller's (resumed) may already hold this payment's
// settlement, so the outcome stays unknown until the PSP answers definitively for it. An
// invalid payment or key is the exception, since the PSP could never have accepted it.
func (s *sending) pay(ctx context.Context, obs Observer, resumed bool) (Receipt, error) {
	err := s.client.dialect().CheckKey(s.key)
	if err == nil {
		err = s.payment.Validate()
	}
	if err != nil {
		return Receipt{}, s.failed(err)
	}
	s.mayHaveSettled = resumed
	if s.base, err = s.client.endpoint(); err != nil {
		return Receipt{}, s.failed(err)
	}
	s.probe = newProbe(obs, s.key, false, s.client.Quota != nil)
	if err := s.admitFirst(ctx); err != nil {
		return Receipt{}, s.failed(err)
	}
	c := s.client
	r, err := retry.Do(ctx, c.Policy, s.attempt, retry.WithClassifier(transient), retry.WithObserver(s.observe), retry.WithRand(c.Jitter),
		retry.WithQuota(c.Quota))
	s.release(err)
	if err != nil {
		return Receipt{}, s.failed(err)
	}
	r.IdempotencyKey, r.Attempts, r.Ref = s.key, s.last.Number, s.ref
	return r, nil
}

// attempt makes one attempt under its own deadline, if the key deadline and the breaker admit
// it, and tells the breaker how it went. The Dialect writes the attempt's request first: one it
// cannot write is not sent.
func (s *sending) attempt(ctx context.Context) (Receipt, error) {
	req, err := s.client.dialect().Pay(ctx, s.base, s.key, s.payment)
	if err != nil {
		return Receipt{}, &unsentError{fmt.Errorf("pix: writing the request: %w", err)}
	}
	done, err := s.admit()
	if err != nil {
		return Receipt{}, err
	}
	if s.firstSent.IsZero() {
		s.firstSent = time.Now()
	}
	s.aim(req)
	ctx = s.started(ctx, s.last.Number+1)
	ctx, cancel := s.attemptContext(ctx)
	defer cancel()
	r, err := s.exchange(req.WithContext(ctx))
	done(counted(err))
	return r, err
}

// attemptContext is the context one attempt runs under. It ends at the key deadline, or
// AttemptTimeout from now if that is sooner.
func (s *sending) attemptContext(ctx context.Context) (context.Context, context.CancelFunc) {
	deadline := s.client.keyDeadline(s.firstSent)
	if end := time.Now().Add(s.client.AttemptTimeout); s.client.AttemptTimeout > 0 && end.Before(deadline) {
		deadline = end
	}
	return context.WithDeadline(ctx, deadline)
}

// exchange sends req, one attempt that the Dialect wrote, and turns the answer into a receipt
// or an error. A pending or rejected payment is an error wrapping ErrPending or ErrRejected, which
// is not retried: the PSP answered.
func (s *sending) exchange(req *http.Request) (Receipt, error) {
	a, err := s.client.transmit(req, s.obs)
	if err != nil {
		return Receipt{}, err
	}
	s.status = a.Status
	f, err := s.client.dialect().Paid(a, s.payment)
	if err != nil {
		return Receipt{}, withRetryAfter(err, a)
	}
	s.ref = s.ref.learn(f.Ref)
	if err := f.isUnder(a.Status, s.key); err != nil {
		return Receipt{}, err
	}
	if err := f.isFor(a.Status, s.payment); err != nil {
		return Receipt{}, err
	}
	if f.State != Settled {
		return Receipt{}, f.notSettled()
	}
	s.replayed = f.Replayed
	r := f.receipt()
	r.Replayed = f.Replayed
	return r, nil
}

// observe takes note of one attempt, which retry.Do reports before any wait, and reports its
// end. An attempt that the breaker or the key deadline refused was not sent: it is neither
// counted nor reported, and the call ends with its refusal.
func (s *sending) observe(a retry.Attempt) {
	if _, unsent := errors.AsType[*unsentError](a.Err); unsent || errors.Is(a.Err, ErrCircuitOpen) ||
		errors.Is(a.Err, ErrKeyExpired) {
		return
	}
	s.last = a
	s.ended(a)
	if a.Err != nil && !provesNothingSettled(a.Err) {
		s.mayHaveSettled = true
	}
}

// provesNothingSettled reports whether a failed attempt proves that the PSP did not settle the
// payment. Two kinds of failure do. One is a connection that could not be made, since the
// request never left. The other is a 4xx other than 409 and 429, since the PSP refused the
// request before processing it or answered with a stored refusal. A key that a lookup closed
// (422 idempotency_key_closed) is one such refusal. A 409 says the key is in
// flight and may settle yet, and a 429 is taken as conservatively. Everything else may hide a
// settlement, such as a timeout, a lost connection, a 5xx, a 2xx other than 201, a 3xx, or a 201
// whose body broke the contract.
func provesNothingSettled(err error) bool {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Status/100 == 4 && e.Status != http.StatusConflict && e.Status != http.StatusTooManyRequests
	}
	e, ok := errors.AsType[*net.OpError](err)
	return ok && e.Op == "dial"
}

// failed returns the error of a payment that did not settle. The error is an
// OutcomeUnknownError when the PSP may hold the settlement and its last word is not
// definitive for this key and this payment. Three refusals are definitive. Insufficient funds
// and a rejection are the key's stored outcome, and key reused means the key holds another
// payment. A pending answer is not: the payment may settle yet. A key deadline that stopped
// the attempts always leaves the outcome unknown, so that the caller reconciles with Resume.
func (s *sending) failed(err error) error {
	unknown := (s.mayHaveSettled || errors.Is(err, ErrKeyExpired)) &&
		!errors.Is(err, ErrInsufficientFunds) && !errors.Is(err, ErrKeyReused) && !errors.Is(err, ErrRejected)
	if unknown {
		err = &OutcomeUnknownError{Key: s.key, Attempts: s.last.Number, FirstSent: s.firstSent, Ref: s.ref, Err: err}
	}
	return err
}
