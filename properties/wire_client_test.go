package properties

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"time"
)

// payload is a payment request body in the contract's terms.
type payload struct {
	Valor       string `json:"valor"`
	Chave       string `json:"chave"`
	InfoPagador string `json:"infoPagador,omitempty"`
}

// cents is the payload's valor in cents. The suite builds valid ones only.
func (p payload) cents() int64 {
	c, err := parseAmount(p.Valor)
	if err != nil || c == 0 {
		panic(fmt.Sprintf("properties: the suite built an invalid valor %q (%v)", p.Valor, err))
	}
	return c
}

// reply is what one raw request to the PSP got back: an answer, or a transport error.
type reply struct {
	Status     int
	Body       []byte
	Replayed   bool   // Idempotent-Replayed: true
	RetryAfter string // the Retry-After header
	Err        error
}

// post sends p under token and key and reads the whole answer: no retry, no silent resend.
func post(ctx context.Context, client *http.Client, baseURL, token, key string, p payload) reply {
	body, err := json.Marshal(p)
	if err != nil {
		panic("properties: encoding a payload: " + err.Error())
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, baseURL+paymentsPath, bytes.NewReader(body))
	if err != nil {
		panic("properties: building a request: " + err.Error())
	}
	req.GetBody = nil
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Idempotency-Key", key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return reply{Err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return reply{
		Status: resp.StatusCode, Body: data, Err: err,
		Replayed:   resp.Header.Get("Idempotent-Replayed") == "true",
		RetryAfter: resp.Header.Get("Retry-After"),
	}
}

// problemCode is the code of a problem+json body, or "" if the body is not one.
func problemCode(body []byte) string {
	var p struct{ Code string }
	if json.Unmarshal(body, &p) != nil {
		return ""
	}
	return p.Code
}

// receiptBody is the body of a 201 answer.
type receiptBody struct {
	EndToEndID  string `json:"endToEndId"`
	Valor       string `json:"valor"`
	Chave       string `json:"chave"`
	InfoPagador string `json:"infoPagador"`
	Status      string `json:"status"`
	Horario     string `json:"horario"`
}

// endToEndPattern is the contract's endToEndId: E, an 8-digit ISPB, yyyyMMddHHmm and 11
// alphanumerics.
var endToEndPattern = regexp.MustCompile(`^E[0-9]{8}[0-9]{12}[0-9A-Za-z]{11}$`)

// wantReceipt reports whether body is the receipt of p settled at settledAt.
func wantReceipt(body []byte, p payload, settledAt time.Time) (receiptBody, bool) {
	var got receiptBody
	if err := json.Unmarshal(body, &got); err != nil {
		return got, false
	}
	want := receiptBody{
		EndToEndID: got.EndToEndID, Valor: p.Valor, Chave: p.Chave, InfoPagador: p.InfoPagador,
		Status: "REALIZADO", Horario: settledAt.UTC().Format(time.RFC3339Nano),
	}
	ok := got == want && endToEndPattern.MatchString(got.EndToEndID) &&
		got.EndToEndID[9:21] == settledAt.UTC().Format("200601021504")
	return got, ok
}
