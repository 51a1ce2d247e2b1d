// Package pix sends Pix payments to a PSP and retries them without paying twice.
//
// A [Client] gives each payment one Idempotency-Key and sends that key on every attempt. The
// PSP stores the outcome under the key and replays it, so a resend never pays twice. Transient
// failures are tried again under a [retry.Policy], with a deadline per attempt. Every other
// answer ends the call at once. A [Breaker] in [Client.Breaker] stops the attempts while the
// PSP is failing.
//
// An error that is not [ErrOutcomeUnknown] means that the PSP holds no settlement for the
// payment. When the PSP may hold one, the error is an [*OutcomeUnknownError]. Calling
// [Client.SendWithKey] with its key and the same payment then learns the outcome.
package pix
