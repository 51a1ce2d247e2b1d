package retry

import (
	"errors"
	"fmt"
	"time"
)

// ErrInvalidPolicy is wrapped by the error that [Do] and [Policy.Validate] return for a policy
// they cannot follow.
var ErrInvalidPolicy = errors.New("retry: invalid policy")

// Policy bounds how often and how patiently [Do] retries.
//
// The zero Policy is invalid, since it allows no attempt. Zero delays are valid, and the
// attempts then follow each other without waiting. A Policy is a plain value, safe to share
// between goroutines.
type Policy struct {
	// AttemptsMax is the number of attempts in all, the first included. It is at least 1.
	AttemptsMax int
	// DelayBase is the ceiling of the wait after attempt 1. It is not negative.
	DelayBase time.Duration
	// DelayMax caps every ceiling, and is the longest Retry-After hint that Do honours. It is
	// not below DelayBase.
	DelayMax time.Duration
}

// Validate returns nil if Do can follow p. Otherwise it returns an error that wraps
// [ErrInvalidPolicy] and names the first field that breaks its rule.
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

// Ceiling returns the longest wait Do may choose after attempt n, counted from 1. That is
// min(p.DelayMax, p.DelayBase·2^(n−1)), exact and without overflow for every n and every
// duration. An n below 1 counts as 1. p must be valid.
func Ceiling(p Policy, n int) time.Duration {
	doublings := uint(max(n, 1) - 1)
	// DelayBase·2^d > DelayMax exactly when DelayBase > ⌊DelayMax/2^d⌋; shifting
	// DelayMax right cannot overflow, where shifting DelayBase left could.
	if p.DelayBase > p.DelayMax>>doublings {
		return p.DelayMax
	}
	return p.DelayBase << doublings
}
