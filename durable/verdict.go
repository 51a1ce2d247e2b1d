package durable

import (
	"errors"

	"pixretry/pix"
)

// verdict is what a job attempt does with the PSP's answer to its call (see Payer.send).
type verdict int

const (
	// settle records the receipt and completes the job, in one transaction.
	settle verdict = iota
	// refuse records the refusal and cancels the job: the PSP answered for the key without
	// paying, or could never have accepted the payment. A refusal of the payment as invalid is
	// one at the key's first attempt only (see refusedFirst).
	refuse
	// snooze records the error and waits for the schedule's next wait: the PSP may hold the
	// payment. An empty retry quota is one of these, since pix reports it as an unknown outcome
	// once a resumed key may have left.
	snooze
	// rotate gives the intent a new key and tries it: the PSP's status lookup proved that
	// nothing was paid under the key, and it refuses any payment under it from then on.
	rotate
)

// judge classifies err, the error of Payer.send. Nil settles. An error matching
// pix.ErrNoSettlement rotates, and one matching pix.ErrOutcomeUnknown snoozes. Every other
// error is the PSP's definitive answer, or pix's refusal before sending, and refuses.
func judge(err error) verdict {
	switch {
	case err == nil:
		return settle
	case errors.Is(err, pix.ErrNoSettlement):
		return rotate
	case errors.Is(err, pix.ErrOutcomeUnknown):
		return snooze
	}
	return refuse
}
