package efi_test

import (
	"context"
	"io"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/internal/pipenet"
	"pixretry/psp"
	"pixretry/psp/efi"
	"pixretry/psp/webhook"
)

// TestWebhookFormBody: the callback of a payout settled and of one rejected, byte for byte, as
// Efí's examples "Pix enviado" and "Pix rejeitado" have them. A rejected payout's Reason is
// gnExtras.erro's motivo; a settled one has no erro, whatever its Reason.
func TestWebhookFormBody(t *testing.T) {
	at := time.Date(2025, 1, 2, 15, 4, 5, 123456789, time.FixedZone("BRT", -3*3600))
	e := psp.Ended{IdempotencyKey: "pagamento1", EndToEndID: "E12345678202501021504abcDEF12345", AmountCents: 1234,
		PixKey: "payee@example.com", Description: "rent", Status: "REALIZADO", At: at}
	tests := []struct {
		name string
		edit func(*psp.Ended)
		want string
	}{
		{"settled", func(*psp.Ended) {}, `{"pix":[{"endToEndId":"E12345678202501021504abcDEF12345",` +
			`"chave":"pagador@pixretry.example","tipo":"SOLICITACAO","status":"REALIZADO","valor":"12.34",` +
			`"horario":"2025-01-02T18:04:05.123Z","infoPagador":"rent","gnExtras":{"idEnvio":"pagamento1"}}]}` + "\n"},
		{"settled, a Reason", func(e *psp.Ended) { e.Reason = "rejected by a pending fault" },
			`{"pix":[{"endToEndId":"E12345678202501021504abcDEF12345",` +
				`"chave":"pagador@pixretry.example","tipo":"SOLICITACAO","status":"REALIZADO","valor":"12.34",` +
				`"horario":"2025-01-02T18:04:05.123Z","infoPagador":"rent","gnExtras":{"idEnvio":"pagamento1"}}]}` + "\n"},
		{"rejected", func(e *psp.Ended) { e.Status, e.Reason = "NAO_REALIZADO", "rejected by a pending fault" },
			`{"pix":[{"endToEndId":"E12345678202501021504abcDEF12345","chave":"pagador@pixretry.example",` +
				`"tipo":"SOLICITACAO","status":"NAO_REALIZADO","valor":"12.34","horario":null,"infoPagador":"rent",` +
				`"gnExtras":{"idEnvio":"pagamento1","erro":{"codigo":"DS04","origem":"PSP do usuário recebedor",` +
				`"motivo":"rejected by a pending fault"}}}]}` + "\n"},
		{"rejected, no Reason, no infoPagador", func(e *psp.Ended) { e.Status, e.Description = "NAO_REALIZADO", "" },
			`{"pix":[{"endToEndId":"E12345678202501021504abcDEF12345","chave":"pagador@pixretry.example",` +
				`"tipo":"SOLICITACAO","status":"NAO_REALIZADO","valor":"12.34","horario":null,` +
				`"gnExtras":{"idEnvio":"pagamento1"}}]}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := e
			tt.edit(&e)
			if got := string(efi.WebhookForm{}.Body("wh_unused", e)); got != tt.want {
				t.Errorf("Body() = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestWebhookURL: the hmac and an empty ignorar go last in the query, so that the appended /pix
// lands in ignorar's value and the path stays the registered one.
func TestWebhookURL(t *testing.T) {
	tests := []struct{ base, hmac, want string }{
		{"https://host/webhook", "xyz", "https://host/webhook?hmac=xyz&ignorar=/pix"},
		{"http://127.0.0.1:8081/hooks?a=1", "xyz", "http://127.0.0.1:8081/hooks?a=1&hmac=xyz&ignorar=/pix"},
		{"https://host/webhook#top", "a b&c=/", "https://host/webhook?hmac=a+b%26c%3D%2F&ignorar=/pix"},
	}
	for _, tt := range tests {
		got, err := efi.WebhookURL(tt.base, tt.hmac)
		if got != tt.want || err != nil {
			t.Errorf("WebhookURL(%q, %q) = %q, %v, want %q, nil", tt.base, tt.hmac, got, err, tt.want)
		}
	}
	if got, err := efi.WebhookURL("http://host/%zz", "xyz"); err == nil {
		t.Errorf("WebhookURL(a bad URL) = %q, nil, want url.Parse's error", got)
	}
}

// TestWebhookFormOverASender: a Sender with WebhookForm POSTs Efí's callback to the registered
// path, the hmac in the query, as JSON, with no Pix-Signature, and retries a 503 as it
// retries any.
func TestWebhookFormOverASender(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		type got struct{ method, path, hmac, ignorar, contentType, signature, body string }
		var gets []got
		statuses := []int{http.StatusServiceUnavailable, http.StatusOK}
		srv := pipenet.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			q := r.URL.Query()
			gets = append(gets, got{r.Method, r.URL.Path, q.Get("hmac"), q.Get("ignorar"), r.Header.Get("Content-Type"),
				r.Header.Get(webhook.SignatureHeader), string(body)})
			w.WriteHeader(statuses[len(gets)-1])
		}))
		defer srv.Close()
		const secret = "0123456789abcdef0123456789abcdef"
		s, err := webhook.New(webhook.Config{URL: srv.URL + "/webhook", Secret: webhook.Secret(secret),
			Transport: srv.Transport(), Parallel: 1, Form: efi.WebhookForm{}})
		if err != nil {
			t.Fatalf("webhook.New() error = %v", err)
		}
		defer s.Close()
		e := psp.Ended{IdempotencyKey: "pagamento1", EndToEndID: "E12345678202501021504abcDEF12345",
			AmountCents: 1234, Status: "NAO_REALIZADO", At: time.Now()}
		s.Send(e)
		time.Sleep(time.Minute)
		synctest.Wait()

		one := got{http.MethodPost, "/webhook", secret, "/pix", "application/json", "",
			string(efi.WebhookForm{}.Body("", e))}
		if diff := cmp.Diff([]got{one, one}, gets, cmp.AllowUnexported(got{})); diff != "" {
			t.Errorf("the receiver got (-want +got):\n%s", diff)
		}
		if st := s.Stats(); st.Sent != 1 || st.Retried != 1 {
			t.Errorf("Stats() = %+v, want 1 sent after 1 retry", st)
		}
	})
}

// TestWebhookFormRequestRefusesABadURL: a URL that does not parse makes no request.
func TestWebhookFormRequestRefusesABadURL(t *testing.T) {
	req, err := efi.WebhookForm{}.Request(context.Background(), "http://host/%zz",
		webhook.Secret("xyz"), time.Time{}, nil)
	if req != nil || err == nil {
		t.Errorf("Request(a bad URL) = %v, %v, want nil and an error", req, err)
	}
}
