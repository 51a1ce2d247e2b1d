package retry

import (
	"math/rand/v2"
)

// Option changes how [Do] retries. Building and passing an Option allocates nothing. The zero
// Option changes nothing, and neither does an option made from a nil function. When two
// options set the same thing, the later one wins.
type Option struct{ set config }

// WithClassifier makes transient decide, instead of [Transient], whether a failed attempt is
// worth another one. Do calls it once per failed attempt, from the goroutine that called Do.
func WithClassifier(transient func(error) bool) Option {
	return Option{config{classify: transient}}
}

// WithObserver makes Do call observe once per attempt, in order, from the goroutine that
// called Do. observe runs after the attempt is classified and its wait chosen, and before the
// wait starts. A slow observer delays the next attempt.
//
// The last attempt observed carries the reason Do stopped, with one exception. When the
// context ends during a wait, or just before the next attempt, Do returns the context's error
// without calling observe again.
func WithObserver(observe func(Attempt)) Option {
	return Option{config{observe: observe}}
}

// WithRand sets the source of the uniform draws in [0, 1) that [FullJitter] turns into waits.
// Do takes one draw for each wait it chooses. The default is math/rand/v2's Float64. A source
// needs to be safe for concurrent use only if concurrent calls to Do share it. A fixed
// sequence of draws makes every wait exact, for tests and examples.
func WithRand(uniform func() float64) Option {
	return Option{config{rand: uniform}}
}

// WithQuota makes Do ask q for a token before every retry, and tell q about
// its first attempt. Share q between the calls whose retries it limits. A nil
// q changes nothing.
func WithQuota(q *Quota) Option {
	return Option{config{quota: q}}
}

// config is the set of behaviours one call to Do follows. In an Option, the
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
