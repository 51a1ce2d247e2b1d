package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"pixretry/psp"
	"pixretry/psp/efi"
)

// efiPayout pays 150.00 to pix@example.com in Efí's dialect.
const efiPayout = `{"valor":"150.00","pagador":{"chave":"` + efi.PayerKey + `"},"favorecido":{"chave":"pix@example.com"}}`

// sendUnchecked sends method path with body and the token smoke to s, and returns the status and
// the body, which the OpenAPI document does not check: with -dialect efi, the double's own paths
// answer as paths not served, in Efí's form, which the document does not give those paths.
func (s *started) sendUnchecked(t *testing.T, method, path, body string) (int, string) {
	t.Helper()
	r, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Authorization", "Bearer smoke")
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(r)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestDialectEfiServesEfisPaths: with -dialect efi, a payout and its lookup are served in Efí's
// dialect, the control API sees what they did, and the double's own path is not served.
func TestDialectEfiServesEfisPaths(t *testing.T) {
	s := mustStart(t, "-tokens", "smoke", "-dialect", "efi")
	if status, body := s.do(t, "PUT", efi.SendPath+"pagamento1", "", strings.NewReader(efiPayout)); status != 201 || !strings.Contains(body, `"status":"EM_PROCESSAMENTO"`) {
		t.Errorf("PUT = %d %s, want 201 EM_PROCESSAMENTO", status, body)
	}
	if status, body := s.do(t, "GET", efi.LookupPath+"pagamento1", "", nil); status != 200 || !strings.Contains(body, `"status":"REALIZADO"`) {
		t.Errorf("GET = %d %s, want 200 REALIZADO", status, body)
	}
	if status, body := s.sendUnchecked(t, "POST", psp.PaymentsPath, payment); status != 404 || !strings.Contains(body, `"nome":"rota_nao_encontrada"`) {
		t.Errorf("POST %s = %d %s, want 404 rota_nao_encontrada", psp.PaymentsPath, status, body)
	}
	if status, body := s.do(t, "GET", "/_psp/settlements", "", nil); status != 200 || !strings.Contains(body, `"idempotencyKey":"pagamento1"`) {
		t.Errorf("GET /_psp/settlements = %d %s, want the payout under pagamento1", status, body)
	}
	logs := s.stopAndLogs(t)
	if !strings.Contains(logs, "dialect=efi") {
		t.Errorf("stderr does not say dialect=efi:\n%s", logs)
	}
}

// TestDialectEfiWithoutControlServesEfisPaths: off loopback and without a control token, psp
// serves Efí's paths alone.
func TestDialectEfiWithoutControlServesEfisPaths(t *testing.T) {
	s := mustStartEverywhere(t, "-tokens", "smoke", "-dialect", "efi")
	if status, body := s.do(t, "PUT", efi.SendPath+"pagamento1", "", strings.NewReader(efiPayout)); status != 201 {
		t.Errorf("PUT = %d %s, want 201", status, body)
	}
	if status, body := s.do(t, "GET", "/_psp/balance", "", nil); status != 404 || !strings.Contains(body, `"nome":"rota_nao_encontrada"`) {
		t.Errorf("GET /_psp/balance = %d %s, want 404 rota_nao_encontrada: the control API is off", status, body)
	}
	s.stopAndLogs(t)
}

// TestDialectPixIsTheDefault: without -dialect and with -dialect pix, the double's own API is
// served.
func TestDialectPixIsTheDefault(t *testing.T) {
	for _, args := range [][]string{{"-tokens", "smoke"}, {"-tokens", "smoke", "-dialect", "pix"}} {
		s := mustStart(t, args...)
		if status, body := s.do(t, "POST", psp.PaymentsPath, "k1", strings.NewReader(payment)); status != 201 {
			t.Errorf("psp %v: payment = %d %s, want 201", args, status, body)
		}
		if err := s.stop(); err != nil {
			t.Errorf("run() = %v, want nil", err)
		}
	}
}
