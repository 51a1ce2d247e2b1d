package retry_test

import (
	"context"
	"testing"
	"testing/synctest"

	"pixretry/retry"
)

// errBusy is made once, so that the operations below allocate nothing.
var errBusy error = &statusError{code: 503}

// failing returns an operation that fails transiently failures times, then
// succeeds, again and again: it allocates nothing itself.
func failing(failures int) func(context.Context) (int, error) {
	calls := 0
	return func(context.Context) (int, error) {
		calls++
		if calls <= failures {
			return 0, errBusy
		}
		calls = 0
		return 1, nil
	}
}

var allocCases = []struct {
	name     string
	failures int
}{
	{"success", 0},
	{"one-retry-zero-wait", 1},
	{"three-retries-zero-wait", 3},
}

// TestDoAllocatesNothing: success, even after transient failures with zero
// waits, costs no allocation, with or without options, a quota included.
func TestDoAllocatesNothing(t *testing.T) {
	synctest.Test(t, doAllocatesNothing)
}

func doAllocatesNothing(t *testing.T) {
	ctx := context.Background()
	p := retry.Policy{AttemptsMax: 4} // zero delays
	var observed int
	observe := func(retry.Attempt) { observed++ }
	// Three tokens a call, up to three: every call gets the retries it needs.
	q, err := retry.NewQuota(3, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range allocCases {
		op := failing(tc.failures)
		plain := testing.AllocsPerRun(100, func() {
			if _, err := retry.Do(ctx, p, op); err != nil {
				t.Fatal(err)
			}
		})
		withOptions := testing.AllocsPerRun(100, func() {
			if _, err := retry.Do(ctx, p, op, retry.WithClassifier(retry.Transient), retry.WithObserver(observe),
				retry.WithRand(func() float64 { return 0.5 }), retry.WithQuota(q)); err != nil {
				t.Fatal(err)
			}
		})
		if plain != 0 || withOptions != 0 {
			t.Errorf("%s: %v allocations per Do, %v with options; want 0", tc.name, plain, withOptions)
		}
	}
	if observed == 0 {
		t.Error("the observer was never called")
	}
}

func BenchmarkDo(b *testing.B) {
	ctx := context.Background()
	p := retry.Policy{AttemptsMax: 4} // zero delays
	for _, tc := range allocCases {
		b.Run(tc.name, func(b *testing.B) {
			op := failing(tc.failures)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := retry.Do(ctx, p, op); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDoWithQuota is BenchmarkDo with a quota that grants every retry,
// shared by all the calls: the parallel runs contend for it. Each call adds
// three tokens and takes at most three, and concurrent calls can lose to the
// cap only what the burst of a thousand covers.
func BenchmarkDoWithQuota(b *testing.B) {
	ctx := context.Background()
	p := retry.Policy{AttemptsMax: 4} // zero delays
	for _, tc := range allocCases {
		q, err := retry.NewQuota(3, 1000)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(tc.name, func(b *testing.B) {
			op := failing(tc.failures)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := retry.Do(ctx, p, op, retry.WithQuota(q)); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tc.name+"-parallel", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				op := failing(tc.failures)
				for pb.Next() {
					if _, err := retry.Do(ctx, p, op, retry.WithQuota(q)); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
