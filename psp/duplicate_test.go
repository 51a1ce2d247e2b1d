package psp_test

import (
	"testing"
	"testing/synctest"
	"time"

	"pixretry/psp"
)

// storedReceipt is the body of the 201 that settlement st stores, byte for byte.
func storedReceipt(st psp.Settlement) string {
	return `{"endToEndId":"` + st.EndToEndID + `","valor":"` + psp.FormatAmount(st.AmountCents) + `","chave":"` +
		st.PixKey + `","infoPagador":"` + st.Description + `","status":"REALIZADO","horario":"` +
		st.SettledAt.Format(time.RFC3339Nano) + "\"}\n"
}

// TestDuplicateMakesAFreshKeys409Real: the client of a duplicated request with a new key gets
// 409 at once, while the other copy settles the payment after the fault's duration.
func TestDuplicateMakesAFreshKeys409Real(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t, func(c *psp.Config) { c.ServiceTime = 100 * time.Millisecond })
		s.Inject(psp.Duplicate(2 * time.Second))
		start := time.Now()

		wantProblem(t, pay(s, "k1", validBody), 409, "idempotency_key_in_use")
		if got := time.Since(start); got != 0 {
			t.Errorf("the 409 took %v, want no time", got)
		}
		time.Sleep(2*time.Second + 100*time.Millisecond - time.Nanosecond)
		wantProblem(t, pay(s, "k1", validBody), 409, "idempotency_key_in_use") // a retry before the commit
		if n := len(s.Settlements()); n != 0 {
			t.Fatalf("%d settlements before the copy commits, want 0", n)
		}

		s.Wait()
		if got, want := time.Since(start), 2*time.Second+100*time.Millisecond; got != want {
			t.Errorf("Wait returned after %v, want %v (the copy's service time and duration)", got, want)
		}
		ledger := s.Settlements()
		if len(ledger) != 1 || !ledger[0].SettledAt.Equal(start.Add(2*time.Second+100*time.Millisecond)) ||
			ledger[0].IdempotencyKey != "k1" || ledger[0].AmountCents != 15000 {
			t.Fatalf("ledger = %+v, want one settlement of 150.00 under k1 at the copy's commit", ledger)
		}
		if got, want := s.Stats().BalanceCents, int64(psp.DefaultConfig().BalanceCents-15000); got != want {
			t.Errorf("Stats().BalanceCents = %d, want %d", got, want)
		}
		stored := storedReceipt(ledger[0])
		for range 2 { // a retry after the commit replays the stored 201
			a := pay(s, "k1", validBody)
			if a.status != 201 || a.body != stored || a.header.Get("Idempotent-Replayed") != "true" {
				t.Errorf("retry = %d %s %q, want a replayed 201 %s", a.status, a.header.Get("Idempotent-Replayed"), a.body, stored)
			}
		}
		if n := len(s.Settlements()); n != 1 {
			t.Errorf("%d settlements after the retries, want 1", n)
		}
	})
}

// TestDuplicateStoresARefusal: the copy of a payment the balance cannot cover stores the
// refusal, which the next request with the key replays.
func TestDuplicateStoresARefusal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t, func(c *psp.Config) { c.BalanceCents = 14999 })
		s.Inject(psp.Duplicate(time.Second))

		wantProblem(t, pay(s, "k1", validBody), 409, "idempotency_key_in_use")
		time.Sleep(time.Second)
		synctest.Wait()
		a := pay(s, "k1", validBody)
		wantProblem(t, a, 422, "insufficient_funds")
		if got := a.header.Get("Idempotent-Replayed"); got != "true" {
			t.Errorf("%s = %q, want the stored refusal replayed", "Idempotent-Replayed", got)
		}
		if n, b := len(s.Settlements()), s.Stats().BalanceCents; n != 0 || b != 14999 {
			t.Errorf("%d settlements, balance %d; want none and 14999", n, b)
		}
	})
}

// TestDuplicateOfACompletedKeyReplays: both copies of a request whose key has completed get
// the replay; nothing runs on in the background.
func TestDuplicateOfACompletedKeyReplays(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t)
		first := pay(s, "k1", validBody)
		wantSettled(t, first)
		s.Inject(psp.Duplicate(time.Minute))
		start := time.Now()

		wantReplay(t, pay(s, "k1", validBody), first)
		s.Wait()
		if got := time.Since(start); got != 0 {
			t.Errorf("Wait returned after %v, want at once: no copy runs", got)
		}
		if n, b := len(s.Settlements()), s.Stats().BalanceCents; n != 1 || b != psp.DefaultConfig().BalanceCents-15000 {
			t.Errorf("%d settlements, balance %d; want 1 and one payment less", n, b)
		}
	})
}

// TestDuplicateCopyTakesNoSlot: the copy in the background holds its key, not a processing
// slot, and another key is served meanwhile.
func TestDuplicateCopyTakesNoSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t, func(c *psp.Config) { c.Capacity = 1 })
		s.Inject(psp.Duplicate(time.Minute))

		wantProblem(t, pay(s, "k1", validBody), 409, "idempotency_key_in_use")
		wantSettled(t, pay(s, "k2", validBody))
		if got := s.Stats().InFlight; got != 0 {
			t.Errorf("Stats().InFlight = %d with the copy in the background, want 0", got)
		}
		s.Wait()
		if n := len(s.Settlements()); n != 2 {
			t.Errorf("%d settlements, want 2", n)
		}
	})
}

// TestDuplicateOfARefusedRequest: a request refused before the key store is refused in both
// copies; no copy takes its key.
func TestDuplicateOfARefusedRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t)
		s.Inject(psp.Duplicate(time.Minute))

		wantProblem(t, pay(s, "k1", `{"valor":"0.00","chave":"pix@example.com"}`), 400, "invalid_request")
		wantSettled(t, pay(s, "k1", validBody))
		s.Wait()
		if n := len(s.Settlements()); n != 1 {
			t.Errorf("%d settlements, want 1", n)
		}
	})
}
