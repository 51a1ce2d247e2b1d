package pix_test

import (
	"sync"
	"testing"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

// TestClientIsSafeForConcurrentUse: one Client, many goroutines, faults in the way; run with
// -race. Every payment settles exactly once, under its own key.
func TestClientIsSafeForConcurrentUse(t *testing.T) {
	const n = 32
	f := newFixture(t, psp.Config{BalanceCents: richBalance})
	const faults = n / 2
	f.psp.Inject(repeat(psp.Status(503), faults)...)
	// One more attempt than there are faults: a payment that draws every fault still settles.
	// No attempt deadline: this test runs in real time, and on a loaded machine an attempt that
	// timed out would add a request the count below does not expect.
	c := f.client(func(c *pix.Client) {
		c.Policy = retry.Policy{AttemptsMax: faults + 1}
		c.AttemptTimeout = 0
	})

	receipts := make([]pix.Receipt, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r, err := c.Send(t.Context(), pix.Payment{AmountCents: int64(i + 1), PixKey: "pix@example.com"})
			if err != nil {
				t.Errorf("Send() #%d error = %v", i, err)
			}
			receipts[i] = r
		})
	}
	wg.Wait()

	keys := map[string]bool{}
	for i, r := range receipts {
		keys[r.IdempotencyKey] = true
		got := f.settlementsFor(r.IdempotencyKey)
		if len(got) != 1 || got[0].AmountCents != int64(i+1) || got[0].EndToEndID != r.EndToEndID {
			t.Errorf("payment #%d: settlements %+v, want one of %d cents matching %s", i, got, i+1, r.EndToEndID)
		}
	}
	if len(keys) != n || len(f.psp.Settlements()) != n {
		t.Errorf("%d distinct keys, %d settlements; want %d of each", len(keys), len(f.psp.Settlements()), n)
	}
	if got, want := len(f.rec.requests()), n+faults; got != want {
		t.Errorf("PSP got %d requests, want %d: one per payment and one per fault", got, want)
	}
}
