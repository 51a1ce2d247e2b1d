package pix

import (
	"context"
	"errors"
	"fmt"
	"math"
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
// the key, so nothing can be paid under it later, and the error matches [ErrNoSettlement]. A
// 200 whose status is NAO_REALIZADO proves it too: the PSP accepted the payment, then rejected
// it, and the error matches [ErrRejected]. Every other answer that is not a receipt ends with
// an [*OutcomeUnknownError]. That includes a 202 pending ([ErrPending]: call [Client.Await]), a
// 401, a 400, another 404, the PSP's 410 outcome_unprovable, a 3xx, a 200 or 202 that breaks
// the contract ([ErrContract]), a 409 while a payment under the key is in flight, a 5xx and no
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
	return c.lookup(ctx, key, Ref{}, nil, time.Time{})
}

// LookupRef is [Client.Lookup] for a Dialect that looks payments up by the PSP's ids, which
// ref holds, such as the Ref of an [*OutcomeUnknownError]. The Dialect decides how: with a
// nil Dialect, ref is not needed. When the PSP offers no lookup with what ref holds, the error
// matches [ErrNoLookup] and is an [*OutcomeUnknownError], and nothing is sent.
func (c *Client) LookupRef(ctx context.Context, key string, ref Ref) (Receipt, error) {
	return c.lookup(ctx, key, ref, nil, time.Time{})
}

// looking is what the attempts of one lookup share. It lives for one call and is used by
// that call's goroutine only, as a sending is.
type looking struct {
	probe
	client *Client
	key    string
	ref    Ref      // the PSP's ids of the payment, for a Dialect that looks it up by them
	base   *url.URL // the PSP's base URL
	// payment is Resume's payment, which the settlement found must be for, or nil.
	payment *Payment
	// firstSent is Resume's FirstSent, which an unknown outcome keeps, or zero.
	firstSent time.Time

	// polls says that the lookups are Await's, which look again while the payment is pending.
	polls bool

	last retry.Attempt // the last attempt that retry.Do reported, with Number 0 before the first
	// found is what the current attempt read of the payment, settled, pending or rejected, or
	// the zero Found.
	found Found
	// unknown is set once key and payment are valid: every error but ErrNoSettlement and
	// ErrRejected then leaves the key's outcome unknown.
	unknown bool
}

// lookup makes the lookup of Lookup and Resume, a call of its own for the Observer.
func (c *Client) lookup(ctx context.Context, key string, ref Ref, p *Payment, firstSent time.Time) (Receipt, error) {
	ctx, w := c.watch(ctx, CallLookup, key)
	l := &looking{client: c, key: key, ref: ref, payment: p, firstSent: firstSent}
	r, err := l.look(ctx, w.obs)
	w.ended(r, err, true, l.last.Number)
	return r, err
}

// look checks the key, the payment if any and the Client, then makes the attempts.
func (l *looking) look(ctx context.Context, obs Observer) (Receipt, error) {
	c := l.client
	err := c.dialect().CheckKey(l.key)
	if err == nil && l.payment != nil {
		err = l.payment.Validate()
	}
	if err != nil {
		return Receipt{}, l.failed(err)
	}
	l.unknown = true
	if l.base, err = c.endpoint(); err != nil {
		return Receipt{}, l.failed(err)
	}
	policy, again, err := l.policy()
	if err != nil {
		return Receipt{}, l.failed(err)
	}
	l.probe = newProbe(obs, l.key, true, c.Quota != nil)
	r, err := retry.Do(ctx, policy, l.attempt, retry.WithClassifier(again), retry.WithObserver(l.observe),
		retry.WithRand(c.Jitter), retry.WithQuota(c.Quota))
	if err = l.forPayment(err); err != nil {
		return Receipt{}, l.failed(l.stillPending(ctx, err))
	}
	r.IdempotencyKey, r.Replayed, r.Attempts, r.Ref = l.key, true, l.last.Number, l.ref.learn(r.Ref)
	return r, nil
}

// policy returns the policy and the classifier of the lookups: the Client's Policy and
// transient, or for Await's the Policy without its bound on attempts, since a lookup never
// pays, and pollAgain. Await needs a DelayBase above 0: every wait would be 0 otherwise, and it
// would look the key up again at once, without end.
func (l *looking) policy() (retry.Policy, func(error) bool, error) {
	p := l.client.Policy
	switch {
	case !l.polls:
		return p, transient, nil
	case p.DelayBase <= 0:
		return p, nil, fmt.Errorf("%w: Await needs a Policy.DelayBase above 0, not to look the key up again at once, "+
			"without end", errInvalidClient)
	}
	p.AttemptsMax = math.MaxInt
	return p, pollAgain, nil
}

// pollAgain is Await's classifier: a pending payment is looked up again, as a transient
// failure is.
func pollAgain(err error) bool { return errors.Is(err, ErrPending) || transient(err) }

// attempt makes one lookup attempt, which the Dialect writes, under AttemptTimeout, and turns
// the answer into a receipt or an error: a payment settled is a receipt, a rejected one an error
// wrapping ErrRejected, and a pending one an error wrapping ErrPending.
func (l *looking) attempt(ctx context.Context) (Receipt, error) {
	l.found = Found{}
	d := l.client.dialect()
	req, err := d.Look(ctx, l.base, l.key, l.ref)
	if err != nil { // ErrNoLookup: what is known of the payment is not enough
		return Receipt{}, &unsentError{err}
	}
	l.aim(req)
	ctx = l.started(ctx, l.last.Number+1)
	if l.client.AttemptTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, l.client.AttemptTimeout)
		defer cancel()
	}
	a, err := l.client.transmit(req.WithContext(ctx), l.obs)
	if err != nil {
		return Receipt{}, err
	}
	l.status = a.Status
	f, err := d.Seen(a, l.ref)
	if err == nil {
		err = f.isUnder(a.Status, l.key)
	}
	if err != nil {
		return Receipt{}, withRetryAfter(err, a)
	}
	if l.found = f; l.found.State != Settled {
		return Receipt{}, l.found.notSettled()
	}
	return l.found.receipt(), nil
}

// lookupError is the error of a lookup's answer e: one wrapping ErrNoSettlement for a 404
// payment_not_found, or e.
func lookupError(e *Error) error {
	if e.Status == http.StatusNotFound && e.Code == codePaymentNotFound {
		return fmt.Errorf("%w: %w", ErrNoSettlement, e)
	}
	return e
}

// forPayment returns err, the lookup's, unless the payment found, settled, pending or
// rejected, is not Resume's. It then returns an error wrapping ErrKeyReused. Lookup and Await
// take the payment found whatever it is.
func (l *looking) forPayment(err error) error {
	p, f := l.payment, l.found
	if p == nil || f.State == 0 || f.AmountCents == p.AmountCents && f.PixKey == p.PixKey && f.Description == p.Description {
		return err
	}
	return fmt.Errorf("%w: the key holds a payment %s of valor %q to chave %q with infoPagador %q",
		ErrKeyReused, f.State, valor(f.AmountCents), f.PixKey, f.Description)
}

// observe takes note of one lookup attempt, which retry.Do reports before any wait, and
// reports its end.
func (l *looking) observe(a retry.Attempt) {
	if _, unsent := errors.AsType[*unsentError](a.Err); unsent {
		return
	}
	l.last = a
	l.ended(a)
}

// failed returns the error of a lookup that found no receipt. ErrNoSettlement and ErrRejected
// are the PSP's proof that nothing was paid, and come back as they are. Any other error is an
// OutcomeUnknownError, once the key and the payment are valid.
func (l *looking) failed(err error) error {
	if !l.unknown || errors.Is(err, ErrNoSettlement) || errors.Is(err, ErrRejected) {
		return err
	}
	return &OutcomeUnknownError{Key: l.key, Attempts: l.last.Number, FirstSent: l.firstSent, Ref: l.ref, Err: err}
}

// stillPending returns err, the lookups', wrapping ErrPending too when they are Await's and ctx
// ended before the payment did.
func (l *looking) stillPending(ctx context.Context, err error) error {
	if !l.polls || !l.contextEnded(ctx, err) || errors.Is(err, ErrPending) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrPending, err)
}

// contextEnded reports whether ctx stopped the lookups that retry.Do ended with err: before an
// attempt, during one or a wait, or by a deadline that the next wait would have reached.
func (l *looking) contextEnded(ctx context.Context, err error) bool {
	if l.last.Stop == retry.StopContext {
		return true
	}
	return ctx.Err() != nil && (l.last.Stop == retry.StopNone || errors.Is(err, ctx.Err()))
}
