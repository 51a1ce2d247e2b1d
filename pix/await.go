package pix

import "context"

// Await looks key up until its payment ends or ctx does, and returns its receipt. Call it
// after a call ended with [ErrPending]: the PSP accepted the payment and will settle or
// reject it later. Like [Client.Lookup], it never pays.
//
// Between lookups Await waits as Send does between attempts: a draw of c.Jitter below
// min(Policy.DelayMax, Policy.DelayBase·2^(n−1)) after the nth, raised to the PSP's
// Retry-After. c.Quota grants every lookup after the first, as it does retries. Policy's
// AttemptsMax does not bound the lookups: ctx does. Each lookup runs under AttemptTimeout.
//
// A settled payment returns its receipt, as Lookup's: Replayed is true and Attempts counts
// the lookups. A rejected one returns an error matching [ErrRejected], and a 404
// payment_not_found one matching [ErrNoSettlement]: nothing was paid under key, so pay again
// under a new key. While the PSP answers 202 pending, and after a transient failure (409,
// 429, 5xx, a timeout, a broken connection), Await looks again. When ctx ends first, or would
// end during the next wait, the error is an [*OutcomeUnknownError] that matches [ErrPending]
// and ctx's error. Every other answer ends Await as it ends Lookup, with an
// [*OutcomeUnknownError]: a 401, another 4xx, a contract breach, a quota that refused a
// lookup ([retry.ErrQuotaExhausted]), or a Retry-After longer than Policy.DelayMax.
//
// An invalid key fails with [ErrInvalidPayment], and nothing is sent. An invalid Client sends
// nothing either, and its error is an [*OutcomeUnknownError]. So does a Policy.DelayBase of 0,
// which would make every wait 0 and look the key up again at once, without end. The call is [CallAwait] to
// c.Observer, and its lookups are its attempts.
func (c *Client) Await(ctx context.Context, key string) (Receipt, error) {
	return c.AwaitRef(ctx, key, Ref{})
}

// AwaitRef is [Client.Await] for a Dialect that looks payments up by the PSP's ids, which ref
// holds, such as the Ref of the [*OutcomeUnknownError] that matched [ErrPending]. As with
// [Client.LookupRef], a nil Dialect needs no ref.
func (c *Client) AwaitRef(ctx context.Context, key string, ref Ref) (Receipt, error) {
	ctx, w := c.watch(ctx, CallAwait, key)
	l := &looking{client: c, key: key, ref: ref, polls: true}
	r, err := l.look(ctx, w.obs)
	w.ended(r, err, true, l.last.Number)
	return r, err
}
