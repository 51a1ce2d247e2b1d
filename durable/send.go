package durable

import (
	"context"
	"errors"
	"time"

	"pixretry/pix"
)

// neverSent reports whether in, as mark returned it, holds the first attempt under its key.
// mark's UPDATE takes attempts from 0 to 1 for that attempt only, and returns the row as it
// left it. 0 attempts prove that the key never left (see Intent.Attempts). No clock is
// compared, since two marks in one group commit may read the same time.
func neverSent(in Intent) bool { return in.Attempts == 1 }

// send makes the PSP call of one job attempt of in. The key's first attempt sends it as a key
// that never left, with pix.Client.SendWithKey, so that its key deadline counts from this
// call. Every later attempt resumes it with pix.Client.Resume, from firstSent and with the
// PSP's id of the payment, if known, since an earlier attempt may have left.
func (p *Payer[TTx]) send(ctx context.Context, in Intent, firstSent time.Time) (pix.Receipt, error) {
	if neverSent(in) {
		r, err := p.cfg.Client.SendWithKey(ctx, in.Key, in.Payment)
		return r, refusedFirst(err)
	}
	// pix takes the consent from the payment.
	unknown := &pix.OutcomeUnknownError{Key: in.Key, FirstSent: firstSent, Ref: pix.Ref{PaymentID: in.PaymentID}}
	return p.cfg.Client.Resume(ctx, unknown, in.Payment)
}

// refusedFirst returns err, the error of SendWithKey under a key that never left before, or
// the PSP's refusal within it when that refusal is definitive. pix leaves every refusal of a
// caller's key unknown but three, since the key may have left before. This call's key did
// not. So when its one attempt was answered that the payment is invalid
// (pix.ErrInvalidPayment), the PSP answered for the payment, and nothing was paid. A call of
// more attempts stays unknown, since an earlier one may have paid: the PSP may then refuse
// the consent that it consumed. Any other answer stays unknown too, such as a 401: a Trouble
// of the PSP, not of the payment.
func refusedFirst(err error) error {
	unknown, ok := errors.AsType[*pix.OutcomeUnknownError](err)
	if !ok || unknown.Attempts != 1 || !errors.Is(unknown.Err, pix.ErrInvalidPayment) {
		return err
	}
	if _, answered := errors.AsType[*pix.Error](unknown.Err); !answered {
		return err
	}
	return unknown.Err
}
