package main

import (
	"context"

	"pixretry/pix"
)

// result is what one scenario produced.
type result struct {
	Scenario scenario
	Payment  pix.Payment
	Receipt  pix.Receipt
	Err      error
	// Sent is every payment request the client sent, in order.
	Sent []wireAttempt
	// BalanceBefore and BalanceAfter are the payer's balance, in cents, around the payment.
	BalanceBefore, BalanceAfter int64
}

// play runs scenario s: it clears the PSP's fault queue (so nothing left over from an earlier
// scenario can strike), queues s's faults, sends s's payment and records what happened. It
// returns an error only when the PSP cannot be driven or ctx ends; the payment's own failure
// is part of the result.
func play(ctx context.Context, s scenario, payer *pix.Client, ctl control, sent *wire) (result, error) {
	r := result{Scenario: s}
	if err := ctl.clearFaults(ctx); err != nil {
		return r, err
	}
	var err error
	if r.BalanceBefore, err = ctl.balanceCents(ctx); err != nil {
		return r, err
	}
	if len(s.Faults) > 0 {
		if err := ctl.inject(ctx, s.Faults...); err != nil {
			return r, err
		}
	}
	r.Payment = s.Payment(r.BalanceBefore)
	r.Receipt, r.Err = payer.Send(ctx, r.Payment)
	r.Sent = sent.take()
	if err := ctx.Err(); err != nil {
		return r, err // interrupted: the outcome says nothing about the PSP
	}
	r.BalanceAfter, err = ctl.balanceCents(ctx)
	return r, err
}
