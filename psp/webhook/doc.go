// Package webhook sends the webhooks of the PSP double: one signed JSON delivery for each
// payment that ends, POSTed to a receiver and retried as a PSP retries it.
//
// A [Sender] queues a delivery for each [psp.Ended] given to [Sender.Send], and tries it until
// the receiver answers 2xx, refuses it with another status, or its tries run out. A try that
// gets no answer, a 5xx or a 429 is tried again after a wait drawn below a ceiling that doubles
// with each try, up to a cap (full jitter: retry.Ceiling and retry.FullJitter). The queue is
// bounded, and a full queue drops its oldest waiting delivery. A [Fault] makes the next delivery
// misbehave: sent twice, late, out of order, or failing its first tries unsent.
//
// The body is {"id","endToEndId","idempotencyKey","status","valor","horario"}, and the header
// Pix-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")> signs it, anew at
// each try. A receiver computes the HMAC of the same bytes, compares it with hmac.Equal, and
// refuses a t far from its own clock. A duplicate has the id of its original, so a receiver
// applies each id at most once.
//
// That is the double's own form. A Config's Form may write another PSP's instead: its body,
// the URL it goes to and how the receiver knows the PSP sent it. The tries, waits, faults and
// record stay the same.
package webhook
