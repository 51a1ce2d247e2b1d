package retry

import (
	"math/rand/v2"
)

// Option changes how [Do] retries. Options are plain values: building and
// passing them allocates nothing. The zero Option changes nothing, and so does
// an option made from a nil function. When two options set the same thing, the
// later one wins.
type Option struct{ set config }

// WithClassifier makes transient, instead of [Transient], decide whether a
// failed attempt is worth another one. It is called once per failed attempt,
// from the goroutine that called Do.
func WithClassifier(transient func(error) bool) Option {
	return Option{config{classify: transient}}
}

// WithObserver makes Do call observe once per attempt, synchronously, after the
// attempt is classified and its wait chosen and before any wait starts: observe
// sees each attempt exactly once, in order, from the goroutine that called Do,
// and a slow observer delays the next attempt.
//
// The last attempt observed carries the reason Do stopped, except when the
// context ends after observe saw an attempt with StopNone (during the wait
// that follows, or just before the next attempt): Do then returns the context's
// error with no further call to observe.
func WithObserver(observe func(Attempt)) Option {
	return Option{config{observe: observe}}
}

// WithRand makes uniform the source of the draws in [0, 1) that [FullJitter]
// turns into waits; Do takes one draw for each wait it chooses. The default, math/rand/v2's
// Float64, is safe for concurrent use; a source given here needs to be so only
// if it is shared between concurrent calls to Do. A fixed sequence of draws
// makes every wait exact, for tests and examples.
func WithRand(uniform func() float64) Option {
	return Option{config{rand: uniform}}
}

// WithQuota makes Do ask q for a token before every retry, and tell q about
// its first attempt. Share q between the calls whose retries it limits. A nil
// q changes nothing.
func WithQuota(q *Quota) Option {
	return Option{config{quota: q}}
}

// config is the set of behaviours one call to Do follows; in an Option, the
// nil fields are those the option leaves alone.
type config struct {
	classify func(error) bool
	observe  func(Attempt)
	rand     func() float64
	quota    *Quota
}

// newConfig applies opts, in order, over the defaults.
func newConfig(opts []Option) config {
	c := config{classify: Transient, observe: ignore, rand: rand.Float64}
	for _, o := range opts {
		if o.set.classify != nil {
			c.classify = o.set.classify
		}
		if o.set.observe != nil {
			c.observe = o.set.observe
		}
		if o.set.rand != nil {
			c.rand = o.set.rand
		}
		if o.set.quota != nil {
			c.quota = o.set.quota
		}
	}
	return c
}

// ignore is the default observer.
func ignore(Attempt) {}
