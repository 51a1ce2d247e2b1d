package psp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"pixretry/psp"
)

// The wire as the PSP's property tests see it: raw requests, whole answers, no retry.

// scope is a token and an Idempotency-Key: the PSP keeps one answer per scope.
type scope struct{ token, key string }

// payload is a payment request body in the contract's terms.
type payload struct {
	Valor       string `json:"valor"`
	Chave       string `json:"chave"`
	InfoPagador string `json:"infoPagador,omitempty"`
}

// cents is the payload's valor in cents. The property tests build valid ones only.
func (p payload) cents() int64 {
	c, err := psp.ParseBalance(p.Valor)
	if err != nil || c == 0 {
		panic(fmt.Sprintf("psp_test: a property built an invalid valor %q (%v)", p.Valor, err))
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

// postPayment sends p under token and key and reads the whole answer: no retry, no silent resend.
func postPayment(ctx context.Context, client *http.Client, baseURL, token, key string, p payload) reply {
	body, err := json.Marshal(p)
	if err != nil {
		panic("psp_test: encoding a payload: " + err.Error())
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, baseURL+psp.PaymentsPath, bytes.NewReader(body))
	if err != nil {
		panic("psp_test: building a request: " + err.Error())
	}
	req.GetBody = nil
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set(psp.IdempotencyKeyHeader, key)
	req.Header.Set("Content-Type", "application/json")
	return readReply(client.Do(req))
}

// readReply reads the whole answer of a request, or keeps its transport error.
func readReply(resp *http.Response, err error) reply {
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

// wantReceipt reports whether body is the receipt of p settled at settledAt, with an endToEndId
// of the default ISPB and the settlement's minute (endToEndPattern).
func wantReceipt(body []byte, p payload, settledAt time.Time) (receipt, bool) {
	var got receipt
	if err := json.Unmarshal(body, &got); err != nil {
		return got, false
	}
	want := receipt{
		EndToEndID: got.EndToEndID, Valor: p.Valor, Chave: p.Chave, InfoPagador: p.InfoPagador,
		Status: "REALIZADO", Horario: settledAt.UTC().Format(time.RFC3339Nano),
	}
	m := endToEndPattern.FindStringSubmatch(got.EndToEndID)
	ok := got == want && m != nil && m[1] == "12345678" && m[2] == settledAt.UTC().Format("200601021504")
	return got, ok
}
