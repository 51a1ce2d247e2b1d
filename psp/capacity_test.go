package psp_test

import (
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
)

// payInBackground sends a valid payment under key from a new goroutine; the answer arrives
// on the returned channel.
func payInBackground(h http.Handler, key string) <-chan answer {
	got := make(chan answer, 1)
	go func() { got <- pay(h, key, validBody) }()
	return got
}

func wantStats(tb testing.TB, s *psp.Server, want psp.Stats) {
	tb.Helper()
	if diff := cmp.Diff(want, s.Stats()); diff != "" {
		tb.Errorf("Stats() mismatch (-want +got):\n%s", diff)
	}
}

func TestServiceTimeDelaysEveryCommit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t, func(c *psp.Config) { c.ServiceTime = 250 * time.Millisecond })
		start := time.Now()
		wantSettled(t, pay(s, "k1", validBody))
		if got, want := time.Since(start), 250*time.Millisecond; got != want {
			t.Errorf("a payment took %v, want the service time %v", got, want)
		}
		if got, want := s.Settlements()[0].SettledAt, start.Add(250*time.Millisecond).UTC(); !got.Equal(want) {
			t.Errorf("SettledAt = %v, want %v (after the service time)", got, want)
		}

		start = time.Now()
		s.Inject(psp.Slow(time.Second))
		wantSettled(t, pay(s, "k2", validBody))
		if got, want := time.Since(start), 1250*time.Millisecond; got != want {
			t.Errorf("a payment with a slow fault took %v, want service time plus delay %v", got, want)
		}

		start = time.Now()
		pay(s, "k1", validBody)                                                  // a replay
		wantProblem(t, pay(s, "k3", `{"valor":"0.00"}`), 400, "invalid_request") // rejected
		if got := time.Since(start); got != 0 {
			t.Errorf("a replay and a rejection took %v, want 0: only a commit waits", got)
		}
	})
}

func TestCapacityShedsTheRequestsBeyondIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t, func(c *psp.Config) { c.Capacity = 2; c.ServiceTime = time.Second })
		first, second := payInBackground(s, "k1"), payInBackground(s, "k2")
		synctest.Wait() // both in processing, waiting out the service time
		wantStats(t, s, psp.Stats{BalanceCents: 100000, Requests: 2, Keys: 2, InFlight: 2, MaxInFlight: 2})

		shed := pay(s, "k3", validBody)
		p := wantProblem(t, shed, 503, "overloaded")
		if p.Detail != "the PSP is processing 2 payments, its capacity; retry later" {
			t.Errorf("detail = %q, want it to name the capacity", p.Detail)
		}
		if got := shed.header.Get("Retry-After"); got != "" {
			t.Errorf("Retry-After = %q on a shed answer, want none without ShedRetryAfter", got)
		}
		if got := shed.header.Get(psp.IdempotencyKeyHeader); got != "" {
			t.Errorf("%s = %q on a shed answer, want none: the key was never read", psp.IdempotencyKeyHeader, got)
		}
		wantStats(t, s, psp.Stats{BalanceCents: 100000, Requests: 3, Shed: 1, Keys: 2, InFlight: 2, MaxInFlight: 2})

		wantSettled(t, <-first)
		wantSettled(t, <-second)
		wantSettled(t, pay(s, "k3", validBody)) // nothing was stored for the shed request
		wantStats(t, s, psp.Stats{BalanceCents: 100000 - 3*15000, Requests: 4, Shed: 1, Settled: 3, Keys: 3, MaxInFlight: 2})
	})
}

func TestCapacityAdmitsUpToIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t, func(c *psp.Config) { c.Capacity = 2; c.ServiceTime = time.Second })
		first := payInBackground(s, "k1")
		synctest.Wait()
		second := payInBackground(s, "k2")
		synctest.Wait()
		wantStats(t, s, psp.Stats{BalanceCents: 100000, Requests: 2, Keys: 2, InFlight: 2, MaxInFlight: 2})
		wantSettled(t, <-first)
		wantSettled(t, <-second)
	})
}

func TestZeroCapacityIsNoLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t, func(c *psp.Config) { c.ServiceTime, c.BalanceCents = time.Second, 1e9 })
		var answers []<-chan answer
		for i := range 50 {
			answers = append(answers, payInBackground(s, "k"+itoa(i)))
		}
		synctest.Wait()
		wantStats(t, s, psp.Stats{BalanceCents: 1e9, Requests: 50, Keys: 50, InFlight: 50, MaxInFlight: 50})
		for _, a := range answers {
			wantSettled(t, <-a)
		}
	})
}

func TestShedAnswerCarriesRetryAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t, func(c *psp.Config) {
			c.Capacity, c.ServiceTime, c.ShedRetryAfter = 1, time.Second, 1500*time.Millisecond
		})
		first := payInBackground(s, "k1")
		synctest.Wait()
		shed := pay(s, "k2", validBody)
		wantProblem(t, shed, 503, "overloaded")
		if got, want := shed.header.Get("Retry-After"), "2"; got != want {
			t.Errorf("Retry-After = %q, want %q (1.5 s rounded up)", got, want)
		}
		<-first
	})
}

// TestSlotIsFreedByEveryAnswer fills a capacity of one with requests that end in other ways
// than a settlement: each must give its slot back, or the next would be shed.
func TestSlotIsFreedByEveryAnswer(t *testing.T) {
	s := mustServer(t, func(c *psp.Config) { c.Capacity = 1 })
	r := paymentRequest("k1", validBody)
	r.Header.Del("Authorization")
	wantProblem(t, serve(s, r), 401, "unauthorized")
	wantProblem(t, pay(s, "k1", `{}`), 400, "invalid_request")
	wantSettled(t, pay(s, "k1", validBody))
	if got := pay(s, "k1", validBody); got.status != 201 || got.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replay = %d %v, want a replayed 201", got.status, got.header)
	}
	wantSettled(t, pay(s, "k2", validBody))
	wantStats(t, s, psp.Stats{BalanceCents: 100000 - 2*15000, Requests: 5, Settled: 2, Keys: 2, MaxInFlight: 1})
}

// TestFaultsComeBeforeShedding checks the order of processing: a queued fault acts on the
// connection before the capacity is looked at, and a late answer holds no slot.
func TestFaultsComeBeforeShedding(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t, func(c *psp.Config) { c.Capacity = 1; c.ServiceTime = time.Second })
		s.Inject(psp.Late(time.Hour))
		late := payInBackground(s, "k1")
		time.Sleep(time.Second)
		synctest.Wait() // k1 committed; its answer is held
		wantStats(t, s, psp.Stats{BalanceCents: 100000 - 15000, Requests: 1, Settled: 1, Keys: 1, MaxInFlight: 1})

		blocker := payInBackground(s, "k2")
		synctest.Wait()
		s.Inject(psp.Status(500))
		wantProblem(t, pay(s, "k3", validBody), 500, "injected_fault")
		wantStats(t, s, psp.Stats{BalanceCents: 100000 - 15000, Requests: 3, Settled: 1, Keys: 2, InFlight: 1,
			MaxInFlight: 1})
		wantSettled(t, <-blocker)
		wantSettled(t, <-late)
	})
}

func TestResetRestartsTheStats(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t, func(c *psp.Config) { c.Capacity = 3; c.ServiceTime = time.Second })
		wantSettled(t, pay(s, "k1", validBody))
		inFlight := payInBackground(s, "k2")
		synctest.Wait()
		s.Reset()
		wantStats(t, s, psp.Stats{BalanceCents: 100000, InFlight: 1, MaxInFlight: 1})
		wantSettled(t, <-inFlight) // settled in the book Reset discarded
		wantStats(t, s, psp.Stats{BalanceCents: 100000, MaxInFlight: 1})
	})
}

// TestConcurrentRequestsNeverExceedCapacity races many payments against a small capacity
// under -race: the slots are counted under the Server's lock.
func TestConcurrentRequestsNeverExceedCapacity(t *testing.T) {
	s := mustServer(t, func(c *psp.Config) { c.Capacity, c.BalanceCents = 3, 1e9 })
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() { pay(s, "k"+itoa(i), validBody) })
	}
	wg.Wait()
	st := s.Stats()
	if st.MaxInFlight > 3 || st.Requests != 40 || int64(st.Settled)+st.Shed != 40 || st.InFlight != 0 {
		t.Errorf("Stats() = %+v, want 40 requests each settled or shed, at most 3 in flight, none left", st)
	}
}
