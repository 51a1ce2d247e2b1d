package main

// pixpay -dialect efi -webhook: run serves Efí's callbacks, checked with the secret as the hmac
// of the registered URL.

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestRunServesEfiCallbacks: over real HTTP, a callback whose hmac is not the secret answers
// 401 invalid_hmac, the double's own signed form and an erro on a Pix REALIZADO are refused in
// Efí's dialect, and a callback for an idEnvio that no intent holds, settled or rejected with
// Efí's erro, reaches durable, which answers 404 unknown_payment.
func TestRunServesEfiCallbacks(t *testing.T) {
	t.Parallel()
	s := newScenarioSpeaking(t, sqliteDB(t), time.Hour, speaking{args: []string{"-dialect", "efi"}, front: efiFront})
	const secret = "0123456789abcdef0123456789abcdef"
	child := startRun(t, append(s.speaking.args, "-db", s.db, "-psp", s.url, "-webhook", "127.0.0.1:0",
		"-webhook-secret-file", secretFile(t, secret+"\n"), "run")...)
	addr, ok := strings.CutPrefix(child.firstLine(t), "pixpay: webhooks on ")
	if !ok {
		t.Fatalf("run's first line is %q, want pixpay: webhooks on http://HOST:PORT/", child.first)
	}
	callback := `{"pix":[{"endToEndId":"E12345678202501021504abcDEF12345","chave":"pagador@pixretry.example",` +
		`"tipo":"SOLICITACAO","status":"REALIZADO","valor":"1.00","horario":"2025-01-02T15:04:05.000Z",` +
		`"gnExtras":{"idEnvio":"nobodys"}}]}`
	erro := `"erro":{"codigo":"AC03","origem":"PSP do usuário recebedor","motivo":"conta inexistente"}`
	rejected := strings.Replace(strings.Replace(callback, `"REALIZADO"`, `"NAO_REALIZADO"`, 1),
		`"horario":"2025-01-02T15:04:05.000Z"`, `"horario":null`, 1)
	rejected = strings.Replace(rejected, `"nobodys"}`, `"nobodys",`+erro+`}`, 1)
	tests := []struct {
		name, query, body string
		status            int
		code              string
	}{
		{"a forged hmac", "hmac=" + strings.ToUpper(secret) + "&ignorar=/pix", callback, 401, "invalid_hmac"},
		{"the double's own form", "hmac=" + secret + "&ignorar=/pix",
			`{"id":"wh_1","endToEndId":"E12345678202501021504abcDEF12345","idempotencyKey":"nobodys",` +
				`"status":"REALIZADO","valor":"1.00","horario":"2025-01-02T15:04:05Z"}`, 400, "invalid_webhook"},
		{"an erro on a Pix REALIZADO", "hmac=" + secret + "&ignorar=/pix",
			strings.Replace(callback, `"nobodys"}`, `"nobodys",`+erro+`}`, 1), 400, "invalid_webhook"},
		{"an unknown idEnvio", "hmac=" + secret + "&ignorar=/pix", callback, 404, "unknown_payment"},
		{"an unknown idEnvio rejected", "hmac=" + secret + "&ignorar=/pix", rejected, 404, "unknown_payment"},
	}
	for _, tt := range tests {
		resp, err := http.Post(addr+"webhook?"+tt.query, "application/json", strings.NewReader(tt.body))
		if err != nil {
			t.Fatalf("%s: POST: %v", tt.name, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var p struct{ Code string }
		json.Unmarshal(body, &p)
		if resp.StatusCode != tt.status || p.Code != tt.code {
			t.Errorf("%s: answered %d %s, want %d with code %s", tt.name, resp.StatusCode, body, tt.status, tt.code)
		}
	}
	child.interrupt(t)
}
