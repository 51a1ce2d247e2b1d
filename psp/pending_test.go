package psp_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
)

// statusReceipt is the body of a 201, a 202 or a lookup's 200, motivo included.
type statusReceipt struct {
	receipt
	Motivo string `json:"motivo"`
}

// wantStatus checks that a is a JSON answer of status, replayed or not, whose body says the
// payment status paymentStatus, and returns it.
func wantStatus(tb testing.TB, a answer, status int, replayed bool, paymentStatus string) statusReceipt {
	tb.Helper()
	if a.status != status || a.header.Get("Content-Type") != "application/json" {
		tb.Fatalf("status = %d %s, want %d application/json (body %s)", a.status, a.header.Get("Content-Type"),
			status, a.body)
	}
	if got := a.header.Get("Idempotent-Replayed") == "true"; got != replayed {
		tb.Errorf("Idempotent-Replayed: true is %v, want %v", got, replayed)
	}
	r := mustDecode[statusReceipt](tb, a.body)
	if r.Status != paymentStatus {
		tb.Errorf("status member = %q, want %q", r.Status, paymentStatus)
	}
	return r
}

// horario reads the horario of a receipt.
func horario(tb testing.TB, r statusReceipt) time.Time {
	tb.Helper()
	at, err := time.Parse(time.RFC3339Nano, r.Horario)
	if err != nil {
		tb.Fatalf("horario %q: %v", r.Horario, err)
	}
	return at
}

// mustPendingServer is mustServer, closed when the test ends, reporting into e.
func mustPendingServer(tb testing.TB, e *ends, edits ...func(*psp.Config)) *psp.Server {
	tb.Helper()
	s := mustServer(tb, append(edits, reporting(e))...)
	tb.Cleanup(s.Close)
	return s
}

// TestPendingPaymentSettlesLater walks a payment that a pending fault leaves pending, then
// settles: 202 EM_PROCESSAMENTO to its request, its replays and lookups, its valor held and the
// ledger without it, until exactly its end; then 201 and 200 REALIZADO at the end's horario,
// the same endToEndId, the ledger, and one report at the end from the timer.
func TestPendingPaymentSettlesLater(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var e ends
		s := mustPendingServer(t, &e)
		s.Inject(psp.Pending(2*time.Second, "settled"))
		accepted := time.Now().UTC()
		first := pay(s, "k1", validBody)
		p := wantStatus(t, first, 202, false, "EM_PROCESSAMENTO")
		if got := horario(t, p); !got.Equal(accepted) {
			t.Errorf("horario = %v, want the acceptance %v", got, accepted)
		}
		wantEndToEndID(t, p.EndToEndID, "12345678", accepted)
		if got := wantStatus(t, pay(s, "k1", validBody), 202, true, "EM_PROCESSAMENTO"); got != p {
			t.Errorf("replay = %+v, want %+v", got, p)
		}
		if got := lookUp(s, "k1"); got.status != 202 || got.body != first.body {
			t.Errorf("lookup = %d %s, want 202 with the body of the first answer", got.status, got.body)
		}
		want := psp.Stats{BalanceCents: 100000 - 15000, Requests: 2, Lookups: 1, Keys: 1, MaxInFlight: 1, Pending: 1}
		if got := s.Stats(); got != want || len(s.Settlements()) != 0 {
			t.Errorf("Stats() = %+v and %d settlements, want %+v and none", got, len(s.Settlements()), want)
		}

		time.Sleep(2*time.Second - time.Nanosecond)
		wantStatus(t, lookUp(s, "k1"), 202, false, "EM_PROCESSAMENTO")
		time.Sleep(time.Nanosecond)
		synctest.Wait() // the timer reports the end
		settledAt := accepted.Add(2 * time.Second)
		wantEnds(t, &e, psp.Ended{Token: token, IdempotencyKey: "k1", EndToEndID: p.EndToEndID, AmountCents: 15000,
			PixKey: "pix@example.com", Description: "rent", Status: "REALIZADO", At: settledAt})
		done := wantStatus(t, pay(s, "k1", validBody), 201, true, "REALIZADO")
		if got := horario(t, done); done.EndToEndID != p.EndToEndID || !got.Equal(settledAt) {
			t.Errorf("replay = %+v, want endToEndId %s and horario %v", done, p.EndToEndID, settledAt)
		}
		if got := wantStatus(t, lookUp(s, "k1"), 200, false, "REALIZADO"); got != done {
			t.Errorf("lookup = %+v, want %+v", got, done)
		}
		ledger := s.Settlements()
		if len(ledger) != 1 || ledger[0].EndToEndID != p.EndToEndID || !ledger[0].SettledAt.Equal(settledAt) {
			t.Errorf("Settlements() = %+v, want the one settled at %v", ledger, settledAt)
		}
		if st := s.Stats(); st.Pending != 0 || st.Settled != 1 || st.BalanceCents != 100000-15000 {
			t.Errorf("Stats() = %+v, want none pending, 1 settled, 150.00 paid", st)
		}
	})
}

// TestPendingPaymentRejectedLater: a payment that a pending fault rejects holds its valor
// until the end, then releases it; its replay answers 422 payment_rejected and its lookup 200
// NAO_REALIZADO with a motivo, at the end's horario; the ledger never holds it.
func TestPendingPaymentRejectedLater(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var e ends
		s := mustPendingServer(t, &e)
		s.Inject(psp.Pending(time.Second, "rejected"))
		accepted := time.Now().UTC()
		p := wantStatus(t, pay(s, "k1", validBody), 202, false, "EM_PROCESSAMENTO")
		if got := s.Stats().BalanceCents; got != 100000-15000 {
			t.Errorf("balance while pending = %d, want the valor held: %d", got, 100000-15000)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		rejectedAt := accepted.Add(time.Second)
		wantEnds(t, &e, psp.Ended{Token: token, IdempotencyKey: "k1", EndToEndID: p.EndToEndID, AmountCents: 15000,
			PixKey: "pix@example.com", Description: "rent", Status: "NAO_REALIZADO", At: rejectedAt,
			Reason: "rejected by a pending fault"})
		problem := wantProblem(t, pay(s, "k1", validBody), 422, "payment_rejected")
		for _, words := range []string{"accepted, then rejected", "nothing was paid", "new key"} {
			if !strings.Contains(problem.Detail, words) {
				t.Errorf("detail %q does not say %q", problem.Detail, words)
			}
		}
		r := wantStatus(t, lookUp(s, "k1"), 200, false, "NAO_REALIZADO")
		if got := horario(t, r); r.EndToEndID != p.EndToEndID || !got.Equal(rejectedAt) ||
			r.Motivo != "rejected by a pending fault" {
			t.Errorf("lookup = %+v, want endToEndId %s, horario %v and the fault's motivo", r, p.EndToEndID, rejectedAt)
		}
		want := psp.Stats{BalanceCents: 100000, Requests: 2, Lookups: 1, Keys: 1, MaxInFlight: 1, Rejected: 1}
		if got := s.Stats(); got != want || len(s.Settlements()) != 0 {
			t.Errorf("Stats() = %+v and %d settlements, want %+v and none", got, len(s.Settlements()), want)
		}
	})
}

// wantEnds checks that OnEnd has received exactly want.
func wantEnds(tb testing.TB, e *ends, want ...psp.Ended) {
	tb.Helper()
	if diff := cmp.Diff(want, e.got()); diff != "" {
		tb.Errorf("OnEnd received (-want +got):\n%s", diff)
	}
}

// TestCompleteAfterLeavesEveryPaymentPending: with CompleteAfter, every payment that would
// settle is accepted pending and settles after it, in the order accepted; a refusal is not.
func TestCompleteAfterLeavesEveryPaymentPending(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var e ends
		s := mustPendingServer(t, &e, func(c *psp.Config) { c.CompleteAfter, c.BalanceCents = time.Minute, 30000 })
		a := wantStatus(t, pay(s, "k1", validBody), 202, false, "EM_PROCESSAMENTO")
		b := wantStatus(t, pay(s, "k2", validBody), 202, false, "EM_PROCESSAMENTO")
		wantProblem(t, pay(s, "k3", validBody), 422, "insufficient_funds") // both are held
		time.Sleep(time.Minute)
		ledger := s.Settlements()
		if len(ledger) != 2 || ledger[0].EndToEndID != a.EndToEndID || ledger[1].EndToEndID != b.EndToEndID {
			t.Errorf("Settlements() = %+v, want k1's, then k2's", ledger)
		}
		wantStatus(t, pay(s, "k2", validBody), 201, true, "REALIZADO")
		if got := len(e.got()); got != 2 {
			t.Errorf("OnEnd received %d reports, want 2", got)
		}
	})
}

// TestRejectedRangeRejectsAsEfisSandboxDoes: a valor in the rejected range, both ends
// included, is accepted (202), then rejected after CompleteAfter, even 0: the next request at
// the same instant sees the rejection. A valor outside it settles at once.
func TestRejectedRangeRejectsAsEfisSandboxDoes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var e ends
		s := mustPendingServer(t, &e, func(c *psp.Config) { c.RejectFromCents, c.RejectToCents = 1001, 2000 })
		for valor, want := range map[string]int{"10.00": 201, "10.01": 202, "20.00": 202, "20.01": 201} {
			body := `{"valor":"` + valor + `","chave":"pix@example.com"}`
			a := pay(s, valor, body)
			if a.status != want {
				t.Errorf("a payment of %s = %d, want %d", valor, a.status, want)
			}
			if want == 202 {
				wantProblem(t, pay(s, valor, body), 422, "payment_rejected")
				r := wantStatus(t, lookUp(s, valor), 200, false, "NAO_REALIZADO")
				if wantMotivo := "valor " + valor + " is in the range the PSP rejects, 10.01 to 20.00"; r.Motivo != wantMotivo {
					t.Errorf("motivo = %q, want %q", r.Motivo, wantMotivo)
				}
			}
		}
		if st := s.Stats(); st.Rejected != 2 || st.Settled != 2 || st.BalanceCents != 100000-1000-2001 {
			t.Errorf("Stats() = %+v, want 2 rejected and 2 settled, 30.01 paid", st)
		}
		reasons := map[string]string{}
		for _, end := range e.got() {
			reasons[end.Status+" "+psp.FormatAmount(end.AmountCents)] = end.Reason
		}
		wantReasons := map[string]string{"REALIZADO 10.00": "", "REALIZADO 20.01": "",
			"NAO_REALIZADO 10.01": "valor 10.01 is in the range the PSP rejects, 10.01 to 20.00",
			"NAO_REALIZADO 20.00": "valor 20.00 is in the range the PSP rejects, 10.01 to 20.00"}
		if diff := cmp.Diff(wantReasons, reasons); diff != "" {
			t.Errorf("OnEnd's reasons by status and valor (-want +got):\n%s", diff)
		}
	})
}

// TestPendingFaultOverridesTheConfig: a pending fault's then decides, whatever the rejected
// range and CompleteAfter say.
func TestPendingFaultOverridesTheConfig(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var e ends
		s := mustPendingServer(t, &e, func(c *psp.Config) {
			c.RejectFromCents, c.RejectToCents, c.CompleteAfter = 1, 100000, time.Hour
		})
		s.Inject(psp.Pending(time.Second, "settled"))
		wantStatus(t, pay(s, "k1", validBody), 202, false, "EM_PROCESSAMENTO")
		time.Sleep(time.Second)
		wantStatus(t, lookUp(s, "k1"), 200, false, "REALIZADO")
	})
}

// TestPendingFaultOnAReplayIsSpent: a pending fault met by a request that accepts no payment,
// a replay here, does nothing, and is spent.
func TestPendingFaultOnAReplayIsSpent(t *testing.T) {
	s := mustServer(t)
	t.Cleanup(s.Close)
	wantSettled(t, pay(s, "k1", validBody))
	s.Inject(psp.Pending(time.Second, "rejected"))
	wantStatus(t, pay(s, "k1", validBody), 201, true, "REALIZADO")
	wantSettled(t, pay(s, "k2", validBody))
	if st := s.Stats(); st.Faults != 0 || st.Pending != 0 {
		t.Errorf("Stats() = %+v, want no fault queued and none pending", st)
	}
}

// TestBalanceIsHeldAtAcceptance: the balance is checked at acceptance, 422 at once when the
// valor held leaves too little, and a rejection gives the valor back to the next payment,
// even one committed at the very instant of the rejection.
func TestBalanceIsHeldAtAcceptance(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var e ends
		s := mustPendingServer(t, &e, func(c *psp.Config) { c.BalanceCents = 20000 })
		s.Inject(psp.Pending(time.Second, "rejected"))
		wantStatus(t, pay(s, "k1", validBody), 202, false, "EM_PROCESSAMENTO")
		wantProblem(t, pay(s, "k2", validBody), 422, "insufficient_funds")
		s.Inject(psp.Slow(time.Second)) // k3 commits at the instant k1 is rejected
		wantSettled(t, pay(s, "k3", validBody))
		if got := s.Stats().BalanceCents; got != 20000-15000 {
			t.Errorf("balance = %d, want %d: k1's valor released, k3's paid", got, 20000-15000)
		}
	})
}

// TestPaymentsDueAtOneInstantEndInTheOrderAccepted: three pending payments that end at the
// same instant reach the ledger, and OnEnd, in the order they were accepted.
func TestPaymentsDueAtOneInstantEndInTheOrderAccepted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var e ends
		s := mustPendingServer(t, &e)
		s.Inject(psp.Pending(2*time.Second, "settled"))
		wantStatus(t, pay(s, "k1", validBody), 202, false, "EM_PROCESSAMENTO")
		time.Sleep(time.Second)
		s.Inject(psp.Pending(time.Second, "settled"), psp.Pending(time.Second, "settled"))
		wantStatus(t, pay(s, "k2", validBody), 202, false, "EM_PROCESSAMENTO")
		wantStatus(t, pay(s, "k3", validBody), 202, false, "EM_PROCESSAMENTO")
		time.Sleep(time.Second)
		synctest.Wait()
		var ledger, reported []string
		for _, p := range s.Settlements() {
			ledger = append(ledger, p.IdempotencyKey)
		}
		for _, end := range e.got() {
			reported = append(reported, end.IdempotencyKey)
		}
		want := []string{"k1", "k2", "k3"}
		if !slices.Equal(ledger, want) || !slices.Equal(reported, want) {
			t.Errorf("Settlements() holds %v and OnEnd received %v, want %v", ledger, reported, want)
		}
	})
}

// TestTheTimerEndsEachPendingPayment: with no request to end them, the timer ends each pending
// payment at its end: one accepted later that ends sooner first, and one pending 0 ms accepted
// at the very instant the timer fired.
func TestTheTimerEndsEachPendingPayment(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var e ends
		s := mustPendingServer(t, &e)
		start := time.Now().UTC()
		s.Inject(psp.Pending(time.Hour, "settled"), psp.Pending(time.Second, "rejected"))
		a := wantStatus(t, pay(s, "k1", validBody), 202, false, "EM_PROCESSAMENTO")
		b := wantStatus(t, pay(s, "k2", validBody), 202, false, "EM_PROCESSAMENTO")
		time.Sleep(time.Second)
		synctest.Wait()
		want := []psp.Ended{{Token: token, IdempotencyKey: "k2", EndToEndID: b.EndToEndID, AmountCents: 15000,
			PixKey: "pix@example.com", Description: "rent", Status: "NAO_REALIZADO", At: start.Add(time.Second),
			Reason: "rejected by a pending fault"}}
		wantEnds(t, &e, want...)
		time.Sleep(time.Hour - time.Second)
		synctest.Wait()
		want = append(want, psp.Ended{Token: token, IdempotencyKey: "k1", EndToEndID: a.EndToEndID, AmountCents: 15000,
			PixKey: "pix@example.com", Description: "rent", Status: "REALIZADO", At: start.Add(time.Hour)})
		wantEnds(t, &e, want...)
		s.Inject(psp.Pending(0, "settled"))
		c := wantStatus(t, pay(s, "k3", validBody), 202, false, "EM_PROCESSAMENTO")
		synctest.Wait()
		want = append(want, psp.Ended{Token: token, IdempotencyKey: "k3", EndToEndID: c.EndToEndID, AmountCents: 15000,
			PixKey: "pix@example.com", Description: "rent", Status: "REALIZADO", At: start.Add(time.Hour)})
		wantEnds(t, &e, want...)
	})
}

// TestPendingKeyNeverExpiresBeforeItsEnd: a pending key counts against MaxKeys and outlives
// the key TTL; it expires at its end plus the key TTL, exactly. The 503 of a full store waits
// until then.
func TestPendingKeyNeverExpiresBeforeItsEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var e ends
		s := mustPendingServer(t, &e, func(c *psp.Config) { c.MaxKeys, c.KeyTTL = 1, 30*time.Minute })
		s.Inject(psp.Pending(time.Hour, "rejected"))
		wantStatus(t, pay(s, "k1", validBody), 202, false, "EM_PROCESSAMENTO")
		wantFull(t, pay(s, "k2", validBody), "5400") // k1 ends in an hour and expires 30 minutes later
		time.Sleep(45 * time.Minute)                 // past the key TTL
		wantStatus(t, pay(s, "k1", validBody), 202, true, "EM_PROCESSAMENTO")
		wantFull(t, pay(s, "k2", validBody), "2700")
		time.Sleep(45*time.Minute - time.Nanosecond) // the key TTL after the end, less a nanosecond
		wantProblem(t, pay(s, "k1", validBody), 422, "payment_rejected")
		time.Sleep(time.Nanosecond)
		wantSettled(t, pay(s, "k1", validBody)) // a new payment: the key had expired
	})
}

// TestAnotherPayloadIsRefusedInEveryState: a key reused for another payment answers 422
// idempotency_key_reused while pending, once settled and once rejected.
func TestAnotherPayloadIsRefusedInEveryState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var e ends
		s := mustPendingServer(t, &e)
		other := `{"valor":"1.00","chave":"pix@example.com"}`
		s.Inject(psp.Pending(time.Second, "settled"), psp.Pending(time.Second, "rejected"))
		pay(s, "settles", validBody)
		pay(s, "rejected", validBody)
		for range 2 {
			for _, key := range []string{"settles", "rejected"} {
				wantProblem(t, pay(s, key, other), 422, "idempotency_key_reused")
			}
			time.Sleep(time.Second)
		}
	})
}

// TestResetDropsPendingPayments: a Reset forgets the pending payments: none ends or is
// reported, and the balance starts again.
func TestResetDropsPendingPayments(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var e ends
		s := mustPendingServer(t, &e, func(c *psp.Config) { c.CompleteAfter = time.Second })
		pay(s, "k1", validBody)
		s.Reset()
		time.Sleep(time.Minute)
		synctest.Wait()
		wantEnds(t, &e)
		if st := s.Stats(); st.Pending != 0 || st.Settled != 0 || st.BalanceCents != 100000 {
			t.Errorf("Stats() = %+v, want nothing pending or settled, the starting balance", st)
		}
	})
}

// TestCloseStopsTheTimer: after Close, a pending payment stays pending and nothing is
// reported; the Server still answers.
func TestCloseStopsTheTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var e ends
		s := mustPendingServer(t, &e, func(c *psp.Config) { c.CompleteAfter = time.Second })
		pay(s, "k1", validBody)
		s.Close()
		if !psp.TimerStopped(s) {
			t.Error("Close left the timer running")
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		wantEnds(t, &e)
		wantStatus(t, lookUp(s, "k1"), 202, false, "EM_PROCESSAMENTO")
		if got := s.Stats().Pending; got != 1 {
			t.Errorf("Stats().Pending = %d, want 1", got)
		}
	})
}

// TestJournalKeepsThe202: the journal records a pending answer's status, and a replay's.
func TestJournalKeepsThe202(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var e ends
		s := mustPendingServer(t, &e, func(c *psp.Config) { c.CompleteAfter = time.Second })
		pay(s, "k1", validBody)
		pay(s, "k1", validBody)
		got, _ := s.Requests(psp.RequestFilter{Status: http.StatusAccepted})
		if len(got) != 2 || got[0].Replayed || !got[1].Replayed {
			t.Errorf("Requests(202) = %+v, want the first answer and its replay", got)
		}
	})
}

// TestRejectionIsForgottenWithItsKey: once a rejected payment's key expires, a lookup no longer
// finds the rejection, though no payment request has evicted the key yet: nothing was paid, so
// it answers 404 and closes the key.
func TestRejectionIsForgottenWithItsKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var e ends
		s := mustPendingServer(t, &e, func(c *psp.Config) { c.KeyTTL = time.Minute })
		s.Inject(psp.Pending(time.Second, "rejected"))
		pay(s, "k1", validBody)
		time.Sleep(time.Second + time.Minute - time.Nanosecond)
		wantStatus(t, lookUp(s, "k1"), 200, false, "NAO_REALIZADO")
		time.Sleep(time.Nanosecond)
		wantProblem(t, lookUp(s, "k1"), 404, "payment_not_found")
		wantProblem(t, pay(s, "k1", validBody), 422, "idempotency_key_closed")
	})
}
