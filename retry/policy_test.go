package retry_test

import (
	"context"
	"errors"
	"math"
	"math/big"
	"testing"
	"testing/synctest"
	"time"

	"pgregory.net/rapid"

	"pixretry/retry"
)

func TestInvalidPolicyIsRejectedWithoutCallingOp(t *testing.T) {
	tests := []struct {
		name   string
		policy retry.Policy
		want   string
	}{
		{"zero policy", retry.Policy{},
			"retry: invalid policy: AttemptsMax is 0, want at least 1"},
		{"AttemptsMax 0", retry.Policy{AttemptsMax: 0, DelayBase: time.Second, DelayMax: time.Second},
			"retry: invalid policy: AttemptsMax is 0, want at least 1"},
		{"AttemptsMax -1", retry.Policy{AttemptsMax: -1},
			"retry: invalid policy: AttemptsMax is -1, want at least 1"},
		{"negative DelayBase", retry.Policy{AttemptsMax: 3, DelayBase: -time.Nanosecond, DelayMax: time.Second},
			"retry: invalid policy: DelayBase is -1ns, want at least 0"},
		{"negative DelayMax", retry.Policy{AttemptsMax: 3, DelayBase: 0, DelayMax: -time.Second},
			"retry: invalid policy: DelayMax is -1s, want at least 0"},
		{"DelayMax below DelayBase", retry.Policy{AttemptsMax: 3, DelayBase: 2 * time.Second, DelayMax: time.Second},
			"retry: invalid policy: DelayMax 1s is below DelayBase 2s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.policy.Validate(); !errors.Is(err, retry.ErrInvalidPolicy) {
				t.Fatalf("Validate() = %v, want an error wrapping ErrInvalidPolicy", err)
			}
			synctest.Test(t, func(t *testing.T) {
				s := newScript(t) // fails the test if op is called
				var r recorder
				got, err := retry.Do(context.Background(), tt.policy, s.op, r.option())
				if !errors.Is(err, retry.ErrInvalidPolicy) {
					t.Fatalf("Do() error = %v, want an error wrapping ErrInvalidPolicy", err)
				}
				if err.Error() != tt.want {
					t.Errorf("Do() error = %q, want %q", err, tt.want)
				}
				if got != 0 || len(s.calls) != 0 || len(r.seen) != 0 {
					t.Errorf("Do() = %d after %d calls and %d observations, want 0, 0, 0", got, len(s.calls), len(r.seen))
				}
			})
		})
	}
}

func TestValidPoliciesAreAccepted(t *testing.T) {
	for _, p := range []retry.Policy{
		{AttemptsMax: 2},
		{AttemptsMax: 3, DelayBase: 0, DelayMax: time.Second},
		{AttemptsMax: 3, DelayBase: time.Second, DelayMax: time.Second},
		{AttemptsMax: math.MaxInt, DelayBase: math.MaxInt64, DelayMax: math.MaxInt64},
	} {
		if err := p.Validate(); err != nil {
			t.Errorf("%+v.Validate() = %v, want nil", p, err)
		}
		synctest.Test(t, func(t *testing.T) {
			got, err := retry.Do(context.Background(), p, newScript(t, unavailable(), nil).op, retry.WithRand(draws(t, 0)))
			if got != 2 || err != nil {
				t.Errorf("Do(%+v) = %d, %v; want 2, nil", p, got, err)
			}
		})
	}
}

func TestCeiling(t *testing.T) {
	const maxDuration = time.Duration(math.MaxInt64)
	tests := []struct {
		base, max time.Duration
		n         int
		want      time.Duration
	}{
		{time.Second, 10 * time.Second, 1, time.Second},
		{time.Second, 10 * time.Second, 2, 2 * time.Second},
		{time.Second, 10 * time.Second, 3, 4 * time.Second},
		{time.Second, 10 * time.Second, 4, 8 * time.Second},
		{time.Second, 10 * time.Second, 5, 10 * time.Second},
		{time.Second, 10 * time.Second, 64, 10 * time.Second},
		{time.Second, 10 * time.Second, 0, time.Second},
		{time.Second, 10 * time.Second, -7, time.Second},
		{time.Second, 10 * time.Second, math.MinInt, time.Second},
		// The cap is reached exactly when DelayMax is no multiple of the doubling.
		{3, 7, 2, 6},
		{3, 7, 3, 7},
		{3, 12, 3, 12},
		{0, 0, 1000, 0},
		{0, time.Hour, 64, 0},
		{time.Second, time.Second, 1000, time.Second},
		// Overflow: 2^62 is the largest power of two a Duration holds.
		{1, maxDuration, 63, 1 << 62},
		{1, maxDuration, 64, maxDuration},
		{1, maxDuration, 65, maxDuration},
		{1, maxDuration, 1000, maxDuration},
		{1, maxDuration, math.MaxInt, maxDuration},
		{1 << 62, maxDuration, 2, maxDuration},
		{maxDuration/2 + 1, maxDuration, 2, maxDuration},
		{maxDuration / 2, maxDuration, 2, maxDuration - 1},
		{maxDuration, maxDuration, 1, maxDuration},
		{maxDuration, maxDuration, 2, maxDuration},
		{maxDuration - 1, maxDuration, 1000, maxDuration},
	}
	for _, tt := range tests {
		p := retry.Policy{AttemptsMax: 1, DelayBase: tt.base, DelayMax: tt.max}
		if got := retry.Ceiling(p, tt.n); got != tt.want {
			t.Errorf("Ceiling(base %d, max %d, n %d) = %d, want %d", tt.base, tt.max, tt.n, got, tt.want)
		}
	}
}

// TestCeilingMatchesExactArithmetic checks Ceiling against the formula
// computed with unbounded integers, for any valid policy and any n.
func TestCeilingMatchesExactArithmetic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		delayMax := rapid.Int64Range(0, math.MaxInt64).Draw(t, "DelayMax")
		base := rapid.Int64Range(0, delayMax).Draw(t, "DelayBase")
		n := rapid.IntRange(1, 200).Draw(t, "n")
		p := retry.Policy{AttemptsMax: 1, DelayBase: time.Duration(base), DelayMax: time.Duration(delayMax)}

		exact := new(big.Int).Lsh(big.NewInt(base), uint(n-1))
		if exact.Cmp(big.NewInt(delayMax)) > 0 {
			exact.SetInt64(delayMax)
		}
		if got, want := retry.Ceiling(p, n), time.Duration(exact.Int64()); got != want {
			t.Fatalf("Ceiling(%+v, %d) = %d, want %d", p, n, got, want)
		}
	})
}
