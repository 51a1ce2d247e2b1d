package pix

import (
	"cmp"
	"context"
	"errors"
)

// Resume learns the outcome of unknown, the error of an earlier call that paid p, and returns
// p's receipt. unknown.Key, unknown.FirstSent and unknown.Ref are all it reads. Use it after a restart
// too, with the key and the FirstSent stored for p.
//
// While an attempt under the key still ends before its key deadline (see [Client.KeyTTL],
// counted from unknown.FirstSent), Resume resends p under the key as [Client.SendWithKey] does.
// The PSP then replays the settlement or makes the payment once. Past the key deadline, or
// when the resend reaches it, a resend could pay twice, so Resume looks the key up instead
// ([Client.Lookup]). A zero FirstSent is long past. The settlement found is the receipt only if
// it is for p, with the same valor, chave and infoPagador. Otherwise the error matches
// [ErrKeyReused], and it is an [*OutcomeUnknownError] too, since the PSP shows only the key's
// latest settlement.
//
// An error matching [ErrNoSettlement] or [ErrRejected] proves that p was never paid under the
// key, and never will be. Pay p again under a new key, with [Client.Send]. Other errors are
// those of SendWithKey and Lookup. An invalid p or key fails with [ErrInvalidPayment], and
// nothing is sent. A definitive refusal by the PSP ([ErrInsufficientFunds], [ErrKeyReused])
// comes back as it is. Every other error is an [*OutcomeUnknownError] with unknown.FirstSent,
// to resume later. A payment the PSP accepted and has not ended is one, matching [ErrPending]:
// [Client.Await] waits for its end.
func (c *Client) Resume(ctx context.Context, unknown *OutcomeUnknownError, p Payment) (Receipt, error) {
	ctx, w := c.watch(ctx, CallResume, unknown.Key)
	r, lookedUp, err := c.resume(ctx, unknown, p)
	w.ended(r, err, lookedUp, 0)
	return r, err
}

// resume is Resume's work. Its bool reports that it ended with a lookup.
func (c *Client) resume(ctx context.Context, unknown *OutcomeUnknownError, p Payment) (Receipt, bool, error) {
	if c.keyExpired(unknown.FirstSent) == nil {
		r, err := c.send(ctx, CallResend, unknown.Key, p, unknown.FirstSent, unknown.Ref)
		if !errors.Is(err, ErrKeyExpired) {
			return r, false, err
		}
	}
	ref := unknown.Ref
	ref.ConsentID = cmp.Or(ref.ConsentID, p.ConsentID)
	r, err := c.lookup(ctx, unknown.Key, ref, &p, unknown.FirstSent)
	return r, true, err
}
