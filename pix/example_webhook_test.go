package pix_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"

	"pixretry/pix"
)

// The PSP posts each payment's end, signed with the secret it shares with the payer. The
// handler applies a delivery only once its signature and body check out.
func ExampleWebhookHandler() {
	secret := []byte("a secret of at least 32 bytes...")
	h := pix.WebhookHandler{
		Secret: secret,
		Apply: func(_ context.Context, w pix.Webhook) error {
			// Store the end of the payment under w.IdempotencyKey, once; nil once stored.
			fmt.Println("applied", w.IdempotencyKey, w.Status, w.AmountCents, "settled:", w.Settled())
			return nil
		},
	}
	body := `{"id":"wh_0123456789abcdefghij","endToEndId":"E12345678202501021504abcDEF12345",` +
		`"idempotencyKey":"order-42","status":"REALIZADO","valor":"150.00","horario":"2025-01-02T15:04:00Z"}`
	t := strconv.FormatInt(time.Now().Unix(), 10)
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(t + "." + body))

	for _, sig := range []string{"t=" + t + ",v1=" + hex.EncodeToString(mac.Sum(nil)), "t=" + t + ",v1=00"} {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("Pix-Signature", sig)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		fmt.Println(rec.Code)
	}
	// Output:
	// applied order-42 REALIZADO 15000 settled: true
	// 204
	// 401
}
