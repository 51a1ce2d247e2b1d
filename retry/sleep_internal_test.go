package retry

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// sleep's contract, which Do's wait rests on: it returns after the whole wait, as soon as ctx
// ends, and at once for a wait of zero or less.
func TestSleepEndsWithTheWaitOrTheContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()

		start := time.Now()
		sleep(ctx, time.Second)
		if got, want := time.Since(start), time.Second; got != want {
			t.Errorf("sleep(live ctx, 1s) took %v, want %v", got, want)
		}

		time.AfterFunc(time.Second, cancel)
		start = time.Now()
		sleep(ctx, time.Hour)
		if got, want := time.Since(start), time.Second; got != want {
			t.Errorf("sleep(ctx ending after 1s, 1h) took %v, want %v", got, want)
		}

		ctx, cancel = context.WithCancel(t.Context())
		defer cancel()
		for _, d := range []time.Duration{0, -time.Second} {
			start = time.Now()
			sleep(ctx, d)
			synctest.Wait()
			if got := time.Since(start); got != 0 {
				t.Errorf("sleep(live ctx, %v) took %v, want no wait", d, got)
			}
		}
	})
}
