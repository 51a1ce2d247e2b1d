// Package psp is a Pix PSP simulator for tests: a test double, not a payment system.
//
// A Server is an http.Handler that accepts Pix payments at POST /v1/pix/payments, keeps real
// state (answers stored by Idempotency-Key, a ledger of settlements and the payer's balance in
// integer cents) and misbehaves on command: Inject queues faults that the next payment requests
// consume, one each, in arrival order. It follows the IETF Idempotency-Key draft and Stripe's
// semantics: a completed key replays its stored answer byte for byte with
// "Idempotent-Replayed: true", a key still in flight answers 409, a key reused with a different
// payload answers 422, and keys are scoped per bearer token and forgotten KeyTTL after they
// complete (a key is then new again).
//
// # Order of processing
//
// A request to POST /v1/pix/payments goes through these steps; the first that fails answers.
//
//  1. Routing: an unknown path gets 404 not_found; another method on a known path gets 405
//     method_not_allowed with Allow. Neither is a payment request: no fault is consumed.
//  2. Faults: if a down window is open the connection is closed at once (no fault consumed);
//     otherwise the next queued fault, if any, is consumed now, before anything else is looked
//     at. status answers at once; reset closes the connection; down opens the window and closes
//     the connection; slow, late and drop ride along with the request.
//  3. Authorization: a missing or unknown bearer token gets 401 unauthorized.
//  4. Idempotency-Key: missing gets 400 idempotency_key_missing; malformed (not 1 to 255
//     characters 0x21-0x7E after unquoting the structured-field form "abc") gets 400
//     idempotency_key_invalid.
//  5. Content-Type other than application/json (charset, if given, utf-8) gets 415
//     unsupported_media_type.
//  6. A body over MaxBodyBytes gets 413 payload_too_large.
//  7. Strict JSON decoding and validation: 400 invalid_request listing every violation.
//  8. The key store, per (token, key): a different payload under a known key gets 422
//     idempotency_key_reused (in flight or completed); the same payload gets 409
//     idempotency_key_in_use while in flight, or the stored answer replayed once completed.
//     Otherwise the key is reserved (in flight).
//  9. A slow fault waits here, with the key in flight.
//  10. Commit, atomically: the balance is checked and debited and the settlement recorded
//     (201), or 422 insufficient_funds; either answer is stored under the key.
//  11. Delivery: a late fault holds the answer, a drop fault closes the connection instead of
//     answering; otherwise the answer is written.
//
// Nothing before step 10 stores anything: the key stays free for a retry. Faults act on the
// connection the way a network would: neither slow nor late stops when the client gives up (a
// real PSP does not know), and late and drop apply to whatever the answer is, replays included.
package psp
