package retry_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"pixretry/retry"
)

// TestDoIsSafeForConcurrentUse runs many calls to Do at once with the default
// source of draws (run it with -race): every wait stays within its ceiling.
func TestDoIsSafeForConcurrentUse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := retry.Policy{AttemptsMax: 4, DelayBase: time.Second, DelayMax: 3 * time.Second}
		var wg sync.WaitGroup
		seen := make([]recorder, 16)
		for i := range seen {
			wg.Go(func() {
				s := newScript(t, unavailable(), unavailable(), unavailable(), nil)
				if got, err := retry.Do(context.Background(), p, s.op, seen[i].option()); got != 4 || err != nil {
					t.Errorf("Do() = %d, %v; want 4, nil", got, err)
				}
			})
		}
		wg.Wait()
		for _, r := range seen {
			for _, a := range r.seen[:3] {
				if a.Wait < 0 || a.Wait > retry.Ceiling(p, a.Number) {
					t.Errorf("attempt %d waited %v, outside [0, %v]", a.Number, a.Wait, retry.Ceiling(p, a.Number))
				}
			}
		}
	})
}
