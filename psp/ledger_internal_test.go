package psp

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"weak"
)

// A settlement the ledger has dropped and whose key has expired is garbage: a long run keeps
// at most MaxSettlements settlements alive, and the lookup's index of them lets go too.
func TestLedgerLetsGoOfADroppedSettlement(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.MaxSettlements, cfg.KeyTTL = 3, time.Minute
		s, err := NewServer(cfg)
		if err != nil {
			t.Fatal(err)
		}
		pay := func(key string) {
			body := strings.NewReader(`{"valor":"1.00","chave":"pix@example.com"}`)
			r := httptest.NewRequest(http.MethodPost, PaymentsPath, body)
			r.Header.Set("Authorization", "Bearer "+DefaultToken)
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set(IdempotencyKeyHeader, key)
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, r)
			if rec.Code != http.StatusCreated {
				t.Fatalf("POST %s = %d %s, want 201", key, rec.Code, rec.Body)
			}
		}
		pay("k1")
		s.mu.Lock()
		oldest := weak.Make(s.book.ledger[0])
		s.mu.Unlock()
		pay("k2")
		pay("k3")
		time.Sleep(time.Minute) // every key expires
		pay("k4")               // forgets k1 to k3 and drops k1's settlement

		runtime.GC()
		if oldest.Value() != nil {
			t.Errorf("the dropped settlement of k1 is still reachable")
		}
		runtime.KeepAlive(s) // the ledger is alive: only its dropped settlement is garbage
	})
}
