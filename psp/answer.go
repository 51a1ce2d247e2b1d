package psp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// answer is a complete HTTP answer, kept whole so that the key store can replay it byte for
// byte. header holds extra fields (Allow, Retry-After, WWW-Authenticate); it may be nil.
type answer struct {
	status      int
	contentType string
	body        []byte
	header      http.Header
	replayed    bool
}

// jsonAnswer encodes v as the body of a status answer of type contentType.
func jsonAnswer(status int, contentType string, v any) answer {
	return answer{status: status, contentType: contentType, body: marshal(v)}
}

// problemAnswer is the one helper that turns a problem into an application/problem+json
// answer.
func problemAnswer(p problem) answer {
	return jsonAnswer(p.Status, problemContentType, p)
}

// write sends a. key, when not empty, is echoed in Idempotency-Key as the client sent it.
func (a answer) write(w http.ResponseWriter, key string) {
	a.writeHeader(w, key, strconv.Itoa(len(a.body)))
	w.Write(a.body) // a failed write means the client has gone: nothing left to tell it
}

// writeHeader sends a's status line and header fields, with Content-Length length ("": none,
// the body is chunked).
func (a answer) writeHeader(w http.ResponseWriter, key, length string) {
	h := w.Header()
	for name, values := range a.header {
		h[name] = values
	}
	h.Set("Content-Type", a.contentType)
	if length != "" {
		h.Set("Content-Length", length)
	}
	if key != "" {
		h.Set(idempotencyKeyHeader, key)
	}
	if a.replayed {
		h.Set(replayedHeader, "true")
	}
	w.WriteHeader(a.status)
}

// marshal encodes v as JSON without HTML escaping ("<" stays "<"), followed by a newline. The
// values passed here (plain structs of strings and numbers) cannot fail to encode.
func marshal(v any) []byte {
	buf := bytes.NewBuffer(make([]byte, 0, 256)) // room for a receipt, so that it is not grown
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Errorf("psp: encoding a response: %w", err))
	}
	return buf.Bytes()
}
