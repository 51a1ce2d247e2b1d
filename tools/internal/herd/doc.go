// Package herd measures what many clients retrying at once do to one server, with two
// simulations.
//
// A herd is this project's own code under load: payers, each with one payment, send it at
// time 0, or one after the other at a steady rate, through real pix.Clients (and so retry.Do)
// to the real psp handler, over in-memory connections, in virtual time (testing/synctest). The
// PSP is down for a while, then serves with a finite capacity. Run measures the PSP's load
// (requests, shed requests, requests per 100 ms, requests during the outage), when the payments
// settle and end, and checks their outcome against the PSP's ledger: every
// payment settled is in the ledger exactly once, every payment refused for sure is not,
// nothing is paid twice, and the balance agrees with the ledger.
//
// The contention model (Contend) is a discrete-event simulation of many clients updating one
// row with optimistic concurrency, with five backoff algorithms: the model of Marc Brooker's
// "Exponential Backoff And Jitter" (AWS Architecture Blog, 2015), against which the herd's
// conclusions are calibrated.
//
// `make herd` runs both (see TestHerdReport) and writes docs/herd/.
package herd
