// Package durable makes a Pix payment a durable intent that survives a crash of the process
// that pays it.
//
// [Payer.PayTx] stores the intent, with its Idempotency-Key, in the caller's own transaction,
// beside a River job that works it. Nothing is sent before that transaction commits, and a
// rolled-back transaction leaves nothing. The job pays under the stored key, once per job
// attempt, until the PSP answers definitively. The intent table is the record; River only
// runs the work.
//
// Each attempt is recorded before it leaves, with the time the key first left by the
// database's clock, so an intent with no attempts proves that the PSP never saw its key. The
// key's first attempt sends it with [pix.Client.SendWithKey], as a key that never left. Every
// later attempt resumes it with [pix.Client.Resume], since an earlier one may have left. A
// first attempt that the PSP refuses as an invalid payment ([pix.ErrInvalidPayment]) refuses
// the intent: a consent spent, or a payer's key that is not the account's. At a later attempt
// the same refusal leaves the outcome unknown, since an earlier attempt may have paid. An
// unknown outcome is tried again later on the Payer's own capped, jittered schedule. A payment
// the PSP holds pending is one: no worker waits on it between attempts. While the PSP
// remembers the key (Config.KeyTTL), the key is sent again; after, it is looked up. A lookup
// that proves nothing was paid gives the intent a new key, and only then. A pending intent
// older than Config.MaxAge is listed as [StatusOverdue] for an operator, and its job keeps
// trying. [Payer.Stats] counts the intents by status; package durableotel reports them, and
// the job attempts, as OpenTelemetry metrics.
//
// Some PSPs look a payment up by their own id of it rather than by the key, and pay under the
// payer's consent, as Open Finance does (see [pix.Ref]). The intent keeps the payment's
// consent. It keeps the PSP's id of the payment too, once an answer gives it, in the write
// that records that answer. Every later attempt gives both to pix, after a restart too.
//
// Two engines run the same code, each in a package of its own, so that a program compiles
// only the database it uses. [New] takes either's driver. Package durablesqlite works on one
// machine with one database file through River's riversqlite driver, which River calls
// early. Package durablepgx serves a fleet of worker processes on one database through
// riverpgxv5. docs/durable.md says which to choose.
package durable
