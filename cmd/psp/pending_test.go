package main

import (
	"strings"
	"testing"

	"pixretry/psp"
)

// TestRejectRangeAcceptsThenRejects: with -reject-range and no -complete-after, a payment in
// the range is accepted (202), then rejected at once: its replay answers 422 payment_rejected
// and its lookup 200 NAO_REALIZADO. One outside it settles (201), and -reject-range's ends are
// included.
func TestRejectRangeAcceptsThenRejects(t *testing.T) {
	s := mustStart(t, "-tokens", "smoke", "-reject-range", "10.01-20.00")
	for valor, want := range map[string]int{"10.00": 201, "10.01": 202, "20.00": 202, "20.01": 201} {
		body := `{"valor":"` + valor + `","chave":"pix@example.com"}`
		if status, answer := s.do(t, "POST", psp.PaymentsPath, valor, strings.NewReader(body)); status != want {
			t.Errorf("a payment of %s = %d %s, want %d", valor, status, answer, want)
		}
	}
	if status, body := s.do(t, "POST", psp.PaymentsPath, "15.00", strings.NewReader(`{"valor":"15.00","chave":"pix@example.com"}`)); status != 202 {
		t.Fatalf("a payment of 15.00 = %d %s, want 202", status, body)
	}
	if status, body := s.do(t, "POST", psp.PaymentsPath, "15.00", strings.NewReader(`{"valor":"15.00","chave":"pix@example.com"}`)); status != 422 || !strings.Contains(body, `"code":"payment_rejected"`) {
		t.Errorf("its replay = %d %s, want 422 payment_rejected", status, body)
	}
	if status, body := s.do(t, "GET", psp.PaymentsPath+"?idempotency_key=15.00", "", nil); status != 200 || !strings.Contains(body, `"status":"NAO_REALIZADO"`) {
		t.Errorf("its lookup = %d %s, want 200 NAO_REALIZADO", status, body)
	}
	if status, body := s.do(t, "GET", "/_psp/stats", "", nil); status != 200 || !strings.Contains(body, `"pending":0,"rejected":3`) {
		t.Errorf("GET /_psp/stats = %d %s, want none pending and 3 rejected", status, body)
	}
	if err := s.stop(); err != nil {
		t.Errorf("run() = %v, want nil", err)
	}
}

// TestCompleteAfterLeavesPaymentsPending: with -complete-after, a payment, its replay and its
// lookup answer 202 EM_PROCESSAMENTO until then, and psp stops with the payment still pending.
func TestCompleteAfterLeavesPaymentsPending(t *testing.T) {
	s := mustStart(t, "-tokens", "smoke", "-complete-after", "1h")
	for _, replayed := range []bool{false, true} {
		status, body := s.do(t, "POST", psp.PaymentsPath, "k1", strings.NewReader(payment))
		if status != 202 || !strings.Contains(body, `"status":"EM_PROCESSAMENTO"`) {
			t.Errorf("payment (replayed %v) = %d %s, want 202 EM_PROCESSAMENTO", replayed, status, body)
		}
	}
	if status, body := s.do(t, "GET", psp.PaymentsPath+"?idempotency_key=k1", "", nil); status != 202 {
		t.Errorf("lookup = %d %s, want 202", status, body)
	}
	if status, body := s.do(t, "GET", "/_psp/settlements", "", nil); status != 200 || !strings.Contains(body, `"count":0`) {
		t.Errorf("GET /_psp/settlements = %d %s, want none while pending", status, body)
	}
	if err := s.stop(); err != nil {
		t.Errorf("run() = %v, want nil", err)
	}
}
