// Package psp simulates a Pix PSP (payment service provider) for tests. It is a test double, not
// a payment system.
//
// A [Server] is an http.Handler that accepts payments at POST /v1/pix/payments. It keeps real state
// in memory: the answers stored by Idempotency-Key, a ledger of settlements and the payer's
// balance in cents. A completed key replays its stored answer byte for byte. A key still in flight
// answers 409, and a key reused for a different payment answers 422. Keys are scoped per bearer
// token and forgotten Config.KeyTTL after they complete. At most Config.MaxKeys are stored: a
// new key beyond them answers 503 until one expires, so memory stays bounded.
//
// A [Fault] is one misbehaviour, such as a 503 or a lost answer. [Server.Inject] queues faults,
// and each payment request consumes the next one. With Config.Control set, the Server also serves
// a control API under /_psp/ that does the same over HTTP, guarded by Config.ControlToken and
// Config.ControlHosts, and a [ControlClient] drives it.
//
// Command psp serves a Server on a real address. The HTTP contract (endpoints, statuses, problem
// codes, headers, the order of checks, the faults and the control API) is in docs/psp.md.
package psp
