// Package retry repeats an operation that failed for a transient reason.
//
// [Do] calls an operation until it succeeds, fails permanently, or its [Policy] allows no more
// attempts. A classifier tells transient errors from permanent ones, [Transient] by default.
// Between attempts Do waits a random time below a ceiling that doubles with every attempt, up
// to a cap (full jitter, see [Ceiling] and [FullJitter]). The randomness keeps clients that
// failed together from retrying together. A context bounds the whole call, waits included.
//
// Options replace the classifier ([WithClassifier]), watch every attempt ([WithObserver]),
// supply the random draws ([WithRand]), and limit the retries of many calls together
// ([WithQuota]).
package retry
