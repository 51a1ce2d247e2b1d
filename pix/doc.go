// Package pix is a Pix payment client that retries safely: one Idempotency-Key per payment,
// the same key on every attempt, a deadline per attempt, and an honest answer when the outcome
// cannot be known.
//
// [Client.Send] validates a payment locally, makes its key once, and posts it to the PSP's
// POST /v1/pix/payments under [retry.Do]: transient failures (5xx, 429, 409 while the key is
// in flight, timeouts, connection failures) are tried again with capped, jittered exponential
// backoff; every other answer ends the call at once. Because the PSP stores each key's outcome
// and replays it, a resend never pays twice: an attempt whose answer was lost gets the stored
// settlement back, marked [Receipt.Replayed].
//
// # The promise
//
// An error that does not satisfy errors.Is(err, [ErrOutcomeUnknown]) means the PSP holds no
// settlement for this key and this payment. When an attempt may have reached the PSP, or the
// key came from the caller (SendWithKey: it may already hold the settlement), and the call
// ends without a definitive answer for the key (a 201, the stored 422 insufficient_funds, or
// 422 idempotency_key_reused: the key holds another payment), the error is an
// [*OutcomeUnknownError] carrying the key: call [Client.SendWithKey] with that key and the
// same payment to learn the outcome (it replays the settlement, or makes the payment once).
// Only a payment or key that fails local validation ([ErrInvalidPayment], nothing sent) is
// known not to be settled without asking the PSP.
//
// # One wire request, one attempt
//
// net/http's Transport silently sends a request again, on a new connection, when a reused
// connection fails after the request was written, if the request carries an Idempotency-Key
// and its body can be rewound. That hidden resend would not count against the retry budget,
// would not be logged, and would consume the PSP's next fault. The client therefore makes each
// request's body non-rewindable (Request.GetBody is nil): every request that reaches the wire
// is an attempt that [retry.Do] counts, classifies and logs. The one case where that resend
// was useful is taken over: an attempt on a pooled connection that fails before the PSP
// answers a single byte (most likely closed by the server while idle) is transient, whatever
// its error, and tried again within the budget.
package pix
