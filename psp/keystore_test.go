package psp_test

import (
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
)

// withKeys sets MaxKeys and a key TTL of an hour.
func withKeys(n int) func(*psp.Config) {
	return func(c *psp.Config) { c.MaxKeys, c.KeyTTL = n, time.Hour }
}

// wantFull checks that a is the 503 of a full key store with Retry-After retry.
func wantFull(tb testing.TB, a answer, retry string) {
	tb.Helper()
	wantProblem(tb, a, http.StatusServiceUnavailable, "key_store_full")
	if got := a.header.Get("Retry-After"); got != retry {
		tb.Errorf("Retry-After = %q, want %q", got, retry)
	}
}

func TestFullStoreRefusesANewKeyAndKeepsItsPromises(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t, withKeys(3))
		first := pay(s, "k1", validBody)
		wantSettled(t, first)
		time.Sleep(10 * time.Minute)
		second := pay(s, "k2", validBody)
		third := pay(s, "k3", `{"valor":"1.00","chave":"pix@example.com"}`)

		wantFull(t, pay(s, "k4", validBody), "3000") // k1 expires in 50 minutes
		for key, a := range map[string]answer{"k1": first, "k2": second, "k3": third} {
			body := validBody
			if key == "k3" {
				body = `{"valor":"1.00","chave":"pix@example.com"}`
			}
			wantReplay(t, pay(s, key, body), a)
		}
		wantProblem(t, pay(s, "k1", `{"valor":"2.00","chave":"pix@example.com"}`), 422, "idempotency_key_reused")
		want := psp.Stats{BalanceCents: 100000 - 15000 - 15000 - 100, Requests: 8, Settled: 3, Keys: 3, MaxInFlight: 1}
		if got := s.Stats(); got != want {
			t.Errorf("Stats() = %+v, want %+v (nothing paid for k4)", got, want)
		}

		time.Sleep(50*time.Minute - time.Nanosecond)
		wantFull(t, pay(s, "k4", validBody), "1")
		wantReplay(t, pay(s, "k1", validBody), first) // still live: never evicted early
		time.Sleep(time.Nanosecond)
		wantSettled(t, pay(s, "k4", validBody)) // k1 has expired and made room
		wantFull(t, pay(s, "k1", validBody), "600")
	})
}

func TestFullStoreCountsKeysInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t, withKeys(1))
		s.Inject(psp.Slow(time.Minute))
		done := make(chan answer)
		go func() { done <- pay(s, "slow", validBody) }()
		synctest.Wait() // "slow" is in flight: no key has a commit time to count from

		wantFull(t, pay(s, "k1", validBody), "3600")
		first := <-done
		wantSettled(t, first)
		time.Sleep(10 * time.Minute)
		wantFull(t, pay(s, "k1", validBody), "3000")
		wantReplay(t, pay(s, "slow", validBody), first)
	})
}

// TestExpiredKeysAreForgottenAFewPerRequest: a backlog of expired keys is forgotten at most
// 8 per request, oldest first, besides the request's own key, which expires
// exactly on time wherever it is in the backlog.
func TestExpiredKeysAreForgottenAFewPerRequest(t *testing.T) {
	const evictionsPerRequest = 8 // docs/psp.md: at most 8 per payment request
	synctest.Test(t, func(t *testing.T) {
		const backlog = 3*evictionsPerRequest + 4
		s := mustServer(t, withKeys(1000))
		for i := range backlog {
			pay(s, "old-"+itoa(i), `{"valor":"0.01","chave":"pix@example.com"}`)
		}
		time.Sleep(time.Hour)
		keys := func() int { return s.Stats().Keys }
		steps := []struct {
			key  string
			want int // Stats().Keys after the payment
		}{
			{"new-1", backlog - evictionsPerRequest + 1},
			// The newest expired key, its own: MaxEvictions others go first.
			{"old-" + itoa(backlog-1), backlog - 2*evictionsPerRequest + 1},
			// An expired key between two others, beyond the next MaxEvictions.
			{"old-" + itoa(backlog-3), 5},
			{"new-2", 4}, // the last two old keys go; new-1 is live
			{"new-3", 5}, // nothing left to forget
		}
		for _, st := range steps {
			wantSettled(t, pay(s, st.key, `{"valor":"0.01","chave":"pix@example.com"}`))
			if got := keys(); got != st.want {
				t.Errorf("after paying %s: %d keys stored, want %d", st.key, got, st.want)
			}
		}
		time.Sleep(time.Hour)
		for i := range 5 {
			wantSettled(t, pay(s, "last-"+itoa(i), `{"valor":"0.01","chave":"pix@example.com"}`))
		}
		if got := keys(); got != 5 { // every key paid an hour ago is gone: the list held them all
			t.Errorf("%d keys stored, want 5", got)
		}
		if got, want := len(s.Settlements()), backlog+5+5; got != want {
			t.Errorf("%d settlements, want %d", got, want)
		}
	})
}

// TestLedgerKeepsTheLatestMaxSettlements: the ledger is cut by MaxSettlements alone, not by
// MaxKeys.
func TestLedgerKeepsTheLatestMaxSettlements(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t, withKeys(1), func(c *psp.Config) { c.MaxSettlements = 2 })
		var want []string
		for i := range 4 {
			r := wantSettled(t, pay(s, "k"+itoa(i), validBody))
			want = append(want, r.EndToEndID)
			time.Sleep(time.Hour) // the key expires: room for the next
		}
		var got []string
		for _, st := range s.Settlements() {
			got = append(got, st.EndToEndID)
		}
		if diff := cmp.Diff(want[2:], got); diff != "" {
			t.Errorf("ledger mismatch (-want +got):\n%s", diff)
		}
		if st := s.Stats(); st.Settled != 2 || st.Dropped != 2 {
			t.Errorf("Stats() = %+v, want 2 settled and 2 dropped", st)
		}
		if got := s.Stats().BalanceCents; got != 100000-4*15000 {
			t.Errorf("Stats().BalanceCents = %d, want every payment debited", got)
		}
		s.Reset()
		if st := s.Stats(); st.Settled != 0 || st.Dropped != 0 || st.Keys != 0 {
			t.Errorf("Stats() after Reset = %+v, want nothing settled, dropped or stored", st)
		}
	})
}

func TestResetDuringAFlightKeepsTheNewLedgerClean(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t)
		s.Inject(psp.Slow(time.Second))
		done := make(chan answer)
		go func() { done <- pay(s, "k1", validBody) }()
		synctest.Wait()
		s.Reset()
		wantSettled(t, <-done) // it settles against the discarded state
		if n, b := len(s.Settlements()), s.Stats().BalanceCents; n != 0 || b != 100000 {
			t.Errorf("after a reset mid-flight: %d settlements, balance %d; want 0, 100000", n, b)
		}
		wantSettled(t, pay(s, "k1", validBody))
	})
}
