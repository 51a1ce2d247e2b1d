package webhook_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"pixretry/psp"
	"pixretry/psp/webhook"
)

// pay makes a payment of valor under key at srv, in process, and returns its status.
func pay(srv *psp.Server, key, valor string) int {
	r := httptest.NewRequest(http.MethodPost, psp.PaymentsPath,
		strings.NewReader(`{"valor":"`+valor+`","chave":"pix@example.com"}`))
	r.Header.Set("Authorization", "Bearer "+psp.DefaultToken)
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(psp.IdempotencyKeyHeader, key)
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, r)
	return rec.Code
}

// mustServer is a Server whose payments that end are sent by s, and cfg's edit.
func mustServer(t *testing.T, s *webhook.Sender, edit func(*psp.Config)) *psp.Server {
	t.Helper()
	cfg := psp.DefaultConfig()
	cfg.BalanceCents, cfg.OnEnd = 1_000_000_00, s.Send
	if edit != nil {
		edit(&cfg)
	}
	srv, err := psp.NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// TestScenarioFigures: 100 payments settle at a psp.Server whose OnEnd is the Sender's Send, and
// a receiver takes each fifth of them differently: always 503, 503 once, 404, or 204. Every
// tenth delivery is duplicated. The counts are exactly those the receiver's answers imply.
func TestScenarioFigures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		tries := map[string]int{} // by delivery id
		rc := &receiver{answer: func(_ int, body string) int {
			var b struct{ ID, IdempotencyKey string }
			json.Unmarshal([]byte(body), &b)
			var key int
			fmt.Sscanf(b.IdempotencyKey, "k%d", &key)
			mu.Lock()
			defer mu.Unlock()
			tries[b.ID]++
			switch {
			case key%5 == 0, key%5 == 1 && tries[b.ID] == 1:
				return http.StatusServiceUnavailable
			case key%5 == 2:
				return http.StatusNotFound
			}
			return http.StatusNoContent
		}}
		s := mustSender(t, rc, func(c *webhook.Config) { c.Attempts, c.Rand = 4, nil })
		srv := mustServer(t, s, nil)
		for i := range 100 {
			if i%10 == 3 {
				s.Inject(webhook.Duplicate())
			}
			if status := pay(srv, fmt.Sprint("k", i), "1.00"); status != http.StatusCreated {
				t.Fatalf("payment %d = %d, want 201", i, status)
			}
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		st := s.Stats()
		t.Logf("100 payments, Attempts 4, DelayBase 1s, WaitMax 1m: %+v", st)
		if want := (webhook.Stats{Sent: 70, Retried: 80, Duplicated: 10, GivenUp: 20, Refused: 20}); st != want {
			t.Errorf("Stats() = %+v, want %+v", st, want)
		}
		if got, want := len(rc.received()), 70+80+20+20; got != want {
			t.Errorf("the receiver got %d tries, want %d: one per delivery and per retry", got, want)
		}
		wantEveryDeliveryEndsOnce(t, s, 100)
	})
}

// TestPendingPaymentIsSentWhenItEnds: a payment accepted pending is sent once it ends, with
// its end's status and time, here a rejection by the reject range.
func TestPendingPaymentIsSentWhenItEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rc := answering()
		s := mustSender(t, rc, nil)
		srv := mustServer(t, s, func(c *psp.Config) {
			c.CompleteAfter, c.RejectFromCents, c.RejectToCents = 2*time.Second, 1001, 2000
		})
		if status := pay(srv, "k1", "20.00"); status != http.StatusAccepted {
			t.Fatalf("payment = %d, want 202", status)
		}
		synctest.Wait()
		if n := len(rc.received()); n != 0 {
			t.Fatalf("the receiver got %d webhooks while the payment was pending, want none", n)
		}
		time.Sleep(2 * time.Second)
		ended := time.Now().UTC().Format(time.RFC3339Nano)
		synctest.Wait()
		got := rc.received()
		if len(got) != 1 || !strings.Contains(got[0].body, `"status":"NAO_REALIZADO","valor":"20.00","horario":"`+ended+`"`) {
			t.Errorf("received %+v, want one NAO_REALIZADO of 20.00 at %s", got, ended)
		}
	})
}
