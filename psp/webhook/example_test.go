package webhook_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"pixretry/psp"
	"pixretry/psp/webhook"
)

// A Sender fed by a psp.Server's OnEnd POSTs a signed webhook for each payment that ends. The
// receiver here checks the signature as any receiver should.
func Example() {
	secret := []byte("a secret of at least 32 bytes, from a file")
	got := make(chan string, 1)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		t, v1, _ := strings.Cut(r.Header.Get("Pix-Signature"), ",")
		mac := hmac.New(sha256.New, secret)
		io.WriteString(mac, strings.TrimPrefix(t, "t=")+".")
		mac.Write(body)
		sum, _ := hex.DecodeString(strings.TrimPrefix(v1, "v1="))
		got <- fmt.Sprintf("signed: %t, status: %s", hmac.Equal(sum, mac.Sum(nil)),
			strings.Split(string(body), `"status":`)[1][:11])
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()
	sender, err := webhook.New(webhook.Config{URL: receiver.URL + "/pix", Secret: secret})
	if err != nil {
		panic(err)
	}
	defer sender.Close()

	cfg := psp.DefaultConfig()
	cfg.OnEnd = sender.Send
	srv, _ := psp.NewServer(cfg)
	defer srv.Close()
	payment := httptest.NewRequest("POST", psp.PaymentsPath, strings.NewReader(`{"valor":"150.00","chave":"pix@example.com"}`))
	payment.Header.Set("Authorization", "Bearer "+psp.DefaultToken)
	payment.Header.Set("Content-Type", "application/json")
	payment.Header.Set("Idempotency-Key", "pedido-1234")
	srv.ServeHTTP(httptest.NewRecorder(), payment) // 201: settled, and sent
	fmt.Println(<-got)
	// Output: signed: true, status: "REALIZADO"
}
