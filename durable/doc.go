// Package durable makes a Pix payment a durable intent that survives a crash of the process
// that pays it.
//
// [Payer.PayTx] stores the intent, with its Idempotency-Key made once, in the caller's own
// transaction, beside a River job that works it. Nothing is sent before that transaction
// commits, and a rolled-back transaction leaves nothing. The job sends the payment with
// [pix.Client.SendWithKey] under the stored key, once per job attempt, until the PSP answers
// definitively. The intent table is the record; River only runs the work.
//
// Each attempt is recorded before it leaves, so an intent with no attempts proves that the
// PSP never saw its key. An unknown outcome is tried again later on the Payer's own capped,
// jittered schedule. A pending intent older than Config.MaxAge is listed as [StatusOverdue]
// for an operator, and its job keeps trying.
//
// Two engines run the same code. [NewSQLite] works on one machine with one database file
// through River's riversqlite driver, which River calls early. [NewPostgres] serves a fleet of
// worker processes on one database through riverpgxv5. docs/durable.md says which to choose.
package durable
