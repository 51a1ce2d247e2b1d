package efi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
)

// webhookProblem is a WebhookHandler's answer to a callback it does not apply, written as an
// application/problem+json body (RFC 9457), in the form of pix.WebhookHandler's.
type webhookProblem struct {
	Type   string `json:"type"`   // "urn:pixretry:pix:webhook:" and the code, as pix's
	Title  string `json:"title"`  // the status's text
	Status int    `json:"status"` // the answer's HTTP status
	Detail string `json:"detail"` // what was wrong, for a person reading the PSP's log
	Code   string `json:"code"`   // such as "invalid_hmac"
}

// refusal is the problem of an answer with status and code, whose detail is
// fmt.Sprintf(format, args...).
func refusal(status int, code, format string, args ...any) *webhookProblem {
	return &webhookProblem{Type: "urn:pixretry:pix:webhook:" + code, Title: http.StatusText(status), Status: status,
		Detail: fmt.Sprintf(format, args...), Code: code}
}

// write answers with p. Its detail keeps < and > as they are, for the PSP's logs.
func (p *webhookProblem) write(w http.ResponseWriter) {
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false)
	enc.Encode(p) // strings and an int always encode
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(p.Status)
	w.Write(body.Bytes())
}
