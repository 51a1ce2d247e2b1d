package retry

import (
	"errors"
	"fmt"
	"math"
	"sync"
)

// ErrQuotaExhausted is wrapped by the error [Do] returns when a [Quota] refused
// a retry. Check it with errors.Is.
var ErrQuotaExhausted = errors.New("retry: quota exhausted")

// A Quota limits the retries of all the calls to [Do] that share it, such as
// the calls to one server. It never limits first attempts.
//
// A Quota is a bucket of tokens. A new one holds burst tokens. Every first
// attempt adds ratio tokens, up to the bucket's capacity. The capacity is
// burst, or one token when burst is 0, so that a ratio earns retries whatever
// the burst. A retry takes one token before its wait, and the Quota refuses the
// retry when it holds less than one. A token stays taken if the context ends
// during the wait. Tokens are counted exactly, without rounding. The Quota is
// driven by attempts only, never by the clock.
//
// Take the events a Quota sees, first attempts and retries, in the order it
// sees them. From its creation on, the retries it grants are at most burst +
// ratio × the first attempts. In every stretch of consecutive events, they are
// at most capacity + ratio × the first attempts. Over all calls, concurrent or
// not, the retries made are thus at most burst + ratio × the calls that made a
// first attempt. In a long outage the attempts per call tend to 1 + ratio.
//
// The converse holds too. A Quota refuses a retry only when granting it would
// break one of those bounds. So it refuses nothing while the retries asked for
// stay within them. In particular, a new Quota grants at least burst retries
// before it refuses any. A Quota of ratio 0.1 and burst 0 grants its first
// retry at the tenth first attempt. It is full again as soon as the first
// attempts since it was last full have added as many tokens as the retries
// since then have taken.
//
// A ratio of 0 with a burst of 0 allows no retry at all, and the zero Quota is
// such a quota. A Quota is safe for concurrent use, and [Do] allocates nothing
// to consult it.
type Quota struct {
	ratio float64
	burst int

	mu sync.Mutex
	// The bucket holds base + ratio×firsts − retries tokens, where firsts and
	// retries count the first attempts and the retries since it was last full.
	// base is burst until the bucket is first full, and its capacity after.
	firsts  int
	retries int
	filled  bool
}

// NewQuota returns a full Quota of burst tokens that gains ratio tokens with
// every first attempt. ratio must be finite and not negative, and burst must
// not be negative. Otherwise NewQuota returns an error wrapping
// [ErrInvalidPolicy].
func NewQuota(ratio float64, burst int) (*Quota, error) {
	if !(ratio >= 0 && ratio <= math.MaxFloat64) {
		return nil, fmt.Errorf("%w: quota ratio is %v, want a finite number of at least 0", ErrInvalidPolicy, ratio)
	}
	if burst < 0 {
		return nil, fmt.Errorf("%w: quota burst is %d, want at least 0", ErrInvalidPolicy, burst)
	}
	return &Quota{ratio: ratio, burst: burst}, nil
}

// first adds the tokens of a first attempt.
func (q *Quota) first() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.firsts++
	if q.covers(q.retries + q.capacity() - q.base()) {
		q.firsts, q.retries, q.filled = 0, 0, true // full
	}
}

// take takes a token for a retry, and reports whether the bucket held one.
func (q *Quota) take() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.covers(q.retries + 1 - q.base()) {
		return false
	}
	q.retries++
	return true
}

// capacity is the most tokens the bucket holds: burst, but at least one.
func (q *Quota) capacity() int { return max(q.burst, 1) }

// base is the tokens the bucket held when firsts and retries were last zero.
func (q *Quota) base() int {
	if q.filled {
		return q.capacity()
	}
	return q.burst
}

// covers reports whether ratio×firsts >= n, exactly. FMA rounds only once, and
// the exact difference is 0 or at least the smallest float64 in magnitude, so
// its sign survives the rounding. The counts stay far below 2⁵³, where float64
// holds every integer.
func (q *Quota) covers(n int) bool {
	return math.FMA(q.ratio, float64(q.firsts), -float64(n)) >= 0
}

// Tokens returns the tokens q holds now: between 0 and its capacity, in whole
// tokens and the fraction that first attempts earned. A new Quota holds burst
// tokens, and the zero Quota none. A retry is granted while Tokens is at least
// 1. Tokens is safe for concurrent use, and the value it reports may be stale
// as soon as another goroutine uses q.
func (q *Quota) Tokens() float64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return math.FMA(q.ratio, float64(q.firsts), float64(q.base()-q.retries))
}
