// Package pix sends Pix payments to a PSP and retries them without paying twice.
//
// A [Client] gives each payment one Idempotency-Key and sends that key on every attempt. The
// PSP stores the outcome under the key and replays it, so a resend never pays twice.
// Transient failures are tried again under a [retry.Policy], with a deadline per attempt.
// Every other answer ends the call at once. A [Breaker] in [Client.Breaker] stops the attempts
// while the PSP is failing. A call reports what it did as typed events, and only so: an
// [Observer] in [Client.Observer] learns of every call and attempt, and of each key the caller
// gives up. [Client.Logger] writes its records from the same events, and package pix/pixotel
// makes OpenTelemetry metrics and spans of them.
//
// The promise holds while the PSP remembers the key, so it holds on one condition:
// [Client.KeyTTL] is no longer than the PSP's own key TTL. No attempt under a key is then in
// flight after its key deadline, a tenth of KeyTTL before the PSP may forget the key. An
// attempt that would end later is not sent, and the call ends with [ErrKeyExpired].
//
// An error that is not [ErrOutcomeUnknown] means that the PSP holds no settlement for the
// payment. When the PSP may hold one, the error is an [*OutcomeUnknownError].
// [Client.Resume] with it and the same payment then learns the outcome. Before the key
// deadline it resends under the key. After it, it asks the PSP with [Client.Lookup], which
// never pays. The lookup returns the settlement, or proves with [ErrNoSettlement] that the
// key paid nothing and never will. Only then may the payment go again, under a new key.
//
// A PSP may accept a payment and end it later. Its 202 says so, and the call ends with an
// [*OutcomeUnknownError] that matches [ErrPending], since the payment may still settle. Only a
// status of REALIZADO is a settlement. [Client.Await] looks the key up until the payment
// settles or the PSP rejects it ([ErrRejected]), which proves that nothing was paid. The PSP
// also tells of each end by a signed webhook, which a [WebhookHandler] verifies and decodes.
package pix
