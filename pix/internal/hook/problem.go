// Package hook holds what pix's webhook receivers share, so that every receiver answers a PSP
// in one form: pix.WebhookHandler for the double's signed deliveries, and pix/efi's
// WebhookHandler for Efí's callbacks.
package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
)

// Problem is a receiver's answer to a delivery it does not apply, written as an
// application/problem+json body (RFC 9457).
type Problem struct {
	Type   string `json:"type"`   // "urn:pixretry:pix:webhook:" and the code
	Title  string `json:"title"`  // the status's text
	Status int    `json:"status"` // the answer's HTTP status
	Detail string `json:"detail"` // what was wrong, for a person reading the PSP's log
	Code   string `json:"code"`   // such as "invalid_signature"
}

// Refusal is the problem of an answer with status and code, whose detail is
// fmt.Sprintf(format, args...).
func Refusal(status int, code, format string, args ...any) *Problem {
	return &Problem{Type: "urn:pixretry:pix:webhook:" + code, Title: http.StatusText(status), Status: status,
		Detail: fmt.Sprintf(format, args...), Code: code}
}

// Write answers with p: its Status, Content-Type application/problem+json, and p as JSON on one
// line. The detail keeps <, > and & as they are, for the PSP's logs.
func (p *Problem) Write(w http.ResponseWriter) {
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false)
	enc.Encode(p) // four strings and an int always encode: invalid UTF-8 becomes U+FFFD
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(p.Status)
	w.Write(body.Bytes())
}
