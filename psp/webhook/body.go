package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"

	"github.com/go-json-experiment/json"

	"pixretry/psp"
)

// SignatureHeader is the header field that signs a delivery.
const SignatureHeader = "Pix-Signature"

// body is a delivery's JSON body, its members in this order.
type body struct {
	ID             string `json:"id"`
	EndToEndID     string `json:"endToEndId"`
	IdempotencyKey string `json:"idempotencyKey"`
	Status         string `json:"status"`
	Valor          string `json:"valor"`
	Horario        string `json:"horario"` // RFC 3339 in UTC, to the nanosecond, as a receipt's
}

// encode is the body of the delivery id of e.
func encode(id string, e psp.Ended) []byte {
	b, _ := json.Marshal(body{
		ID:             id,
		EndToEndID:     e.EndToEndID,
		IdempotencyKey: e.IdempotencyKey,
		Status:         e.Status,
		Valor:          psp.FormatAmount(e.AmountCents),
		Horario:        e.At.UTC().Format(time.RFC3339Nano),
	}) // strings only
	return b
}

// sign is the Pix-Signature of body sent at t: "t=<unix seconds>,v1=<hex HMAC-SHA256(secret,
// "<t>.<body>")>".
func sign(secret Secret, t time.Time, body []byte) string {
	unix := strconv.FormatInt(t.Unix(), 10)
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(unix + "."))
	mac.Write(body)
	return "t=" + unix + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// idDigits are the digits of a delivery's id, base 36 in lower case.
const idDigits = "0123456789abcdefghijklmnopqrstuvwxyz"

// newID is a new delivery id: "wh_" and 20 random base-36 digits, about 103 bits.
func newID() string {
	id := []byte("wh_")
	var draws [32]byte
	for len(id) < 3+20 {
		rand.Read(draws[:]) // never fails
		for _, b := range draws {
			if b < 252 && len(id) < 3+20 { // 252 = 7·36: every digit equally likely
				id = append(id, idDigits[b%36])
			}
		}
	}
	return string(id)
}
