package retry

import (
	"errors"
	"fmt"
	"time"
)

// ErrInvalidPolicy is wrapped by the error [Do] and [Policy.Validate] return for
// a policy that cannot be followed. Check it with errors.Is.
var ErrInvalidPolicy = errors.New("retry: invalid policy")

// Policy bounds how often and how patiently [Do] retries.
//
// The zero Policy is invalid (it allows no attempt). Zero delays are valid: the
// attempts then follow each other without waiting. A Policy is a plain value,
// safe to share between goroutines.
type Policy struct {
	// AttemptsMax is the number of attempts in all, the first included; >= 1.
	AttemptsMax int
	// DelayBase is the ceiling of the wait after attempt 1; >= 0.
	DelayBase time.Duration
	// DelayMax caps every ceiling, and is the longest Retry-After hint that is
	// honoured; >= DelayBase.
	DelayMax time.Duration
}

// Validate reports why p cannot be followed, with an error wrapping
// [ErrInvalidPolicy], or nil when it can: AttemptsMax must be at least 1, the
// delays must not be negative, and DelayMax must not be below DelayBase.
func (p Policy) Validate() error {
	if p.AttemptsMax < 1 {
		return fmt.Errorf("%w: AttemptsMax is %d, want at least 1", ErrInvalidPolicy, p.AttemptsMax)
	}
	if p.DelayBase < 0 {
		return fmt.Errorf("%w: DelayBase is %v, want at least 0", ErrInvalidPolicy, p.DelayBase)
	}
	if p.DelayMax < 0 {
		return fmt.Errorf("%w: DelayMax is %v, want at least 0", ErrInvalidPolicy, p.DelayMax)
	}
	if p.DelayMax < p.DelayBase {
		return fmt.Errorf("%w: DelayMax %v is below DelayBase %v", ErrInvalidPolicy, p.DelayMax, p.DelayBase)
	}
	return nil
}

// Ceiling returns the ceiling of the wait after attempt n (1-based):
// min(p.DelayMax, p.DelayBase·2^(n−1)). It is exact and never overflows, for
// every n and every duration: once the doubling would pass DelayMax (or the
// range of time.Duration) the result is DelayMax. An n below 1 counts as 1.
// p must be valid (see [Policy.Validate]).
func Ceiling(p Policy, n int) time.Duration {
	doublings := uint(max(n, 1) - 1)
	// DelayBase·2^d > DelayMax exactly when DelayBase > ⌊DelayMax/2^d⌋; shifting
	// DelayMax right cannot overflow, where shifting DelayBase left could.
	if p.DelayBase > p.DelayMax>>doublings {
		return p.DelayMax
	}
	return p.DelayBase << doublings
}
