// Package retry repeats an operation that failed for a transient reason.
//
// [Do] calls the operation; a success returns at once. A failure is classified
// (by [Transient] unless [WithClassifier] says otherwise): a permanent error
// returns at once and is never repeated, a transient one is tried again after a
// wait. The wait after attempt n is drawn uniformly from [0, ceiling] ("full
// jitter", [FullJitter]), where the ceiling doubles with every attempt from
// [Policy].DelayBase and is capped at [Policy].DelayMax ([Ceiling]); the jitter
// keeps many clients that failed together from retrying together. A server's
// Retry-After hint raises the wait, and a hint longer than DelayMax ends the
// loop rather than stall it. At most [Policy].AttemptsMax attempts are made in
// all, with no wait after the last, and the final error is the last attempt's,
// reachable with errors.Is and errors.As. The context bounds everything: Do
// checks it before every attempt, stops waiting when it ends, and does not start
// a wait that would end at or after its deadline. Every attempt can be watched
// with [WithObserver], and the jitter's random draws can be supplied with
// [WithRand], so that tests see exact waits.
package retry
