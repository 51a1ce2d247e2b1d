package retry

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// sleep's contract, which Do's wait rests on: true after the whole wait, false as soon as ctx
// ends, and true at once for a wait of zero or less, whatever ctx says.
func TestSleepReportsWhetherTheWaitRanOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()

		start := time.Now()
		if got := sleep(ctx, time.Second); !got {
			t.Errorf("sleep(live ctx, 1s) = %v, want true", got)
		}
		if got, want := time.Since(start), time.Second; got != want {
			t.Errorf("sleep(live ctx, 1s) took %v, want %v", got, want)
		}

		time.AfterFunc(time.Second, cancel)
		start = time.Now()
		if got := sleep(ctx, time.Hour); got {
			t.Errorf("sleep(ctx ending after 1s, 1h) = %v, want false", got)
		}
		if got, want := time.Since(start), time.Second; got != want {
			t.Errorf("sleep(ctx ending after 1s, 1h) took %v, want %v", got, want)
		}

		for _, d := range []time.Duration{0, -time.Second} {
			if got := sleep(ctx, d); !got {
				t.Errorf("sleep(ended ctx, %v) = %v, want true: no wait, so nothing to cut short", d, got)
			}
		}
	})
}
