package psp

import (
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

const (
	problemContentType = "application/problem+json"
	jsonContentType    = "application/json"
)

// statusOf is the one place that maps an error code to an HTTP status.
var statusOf = map[string]int{
	codeUnauthorized:          http.StatusUnauthorized,
	codeIdempotencyKeyMissing: http.StatusBadRequest,
	codeIdempotencyKeyInvalid: http.StatusBadRequest,
	codeUnsupportedMediaType:  http.StatusUnsupportedMediaType,
	codePayloadTooLarge:       http.StatusRequestEntityTooLarge,
	codeInvalidRequest:        http.StatusBadRequest,
	codeInsufficientFunds:     http.StatusUnprocessableEntity,
	codeIdempotencyKeyInUse:   http.StatusConflict,
	codeIdempotencyKeyReused:  http.StatusUnprocessableEntity,
	codeNotFound:              http.StatusNotFound,
	codeMethodNotAllowed:      http.StatusMethodNotAllowed,
	codeOverloaded:            http.StatusServiceUnavailable,
	codeKeyStoreFull:          http.StatusServiceUnavailable,
	codeIdempotencyKeyClosed:  http.StatusUnprocessableEntity,
	codePaymentNotFound:       http.StatusNotFound,
	codeOutcomeUnprovable:     http.StatusGone,
	codePaymentRejected:       http.StatusUnprocessableEntity,
}

// answer is a complete HTTP answer, kept whole so that the key store can replay it byte for
// byte. header holds extra fields (Allow, Retry-After, WWW-Authenticate); it may be nil.
type answer struct {
	status      int
	contentType string
	body        []byte
	header      http.Header
	replayed    bool
}

// failure is a refusal the Server answers with a problem. code selects the status; header
// holds extra answer header fields (Allow, WWW-Authenticate), if any.
type failure struct {
	code       string
	detail     string
	violations []Violation
	header     http.Header
}

func fail(code, format string, args ...any) *failure {
	return &failure{code: code, detail: fmt.Sprintf(format, args...)}
}

// invalid is a 400 whose violations say which field is wrong and why.
func invalid(code string, violations ...Violation) *failure {
	f := fail(code, "the request has %d violation(s); see violacoes", len(violations))
	f.violations = violations
	return f
}

// answer is the one place that turns a refusal into an answer: a problem+json whose status
// statusOf gives.
func (f *failure) answer() answer {
	a := problemAnswer(statusOf[f.code], f.code, f.detail, f.violations)
	a.header = f.header
	return a
}

// problemAnswer is the one helper that writes an application/problem+json answer.
func problemAnswer(status int, code, detail string, violations []Violation) answer {
	p := NewProblem(status, code, detail, violations...)
	return answer{status: status, contentType: problemContentType, body: marshal(p)}
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
	maps.Copy(h, a.header)
	h.Set("Content-Type", a.contentType)
	if length != "" {
		h.Set("Content-Length", length)
	}
	if key != "" {
		h.Set(IdempotencyKeyHeader, key)
	}
	if a.replayed {
		h.Set(replayedHeader, "true")
	}
	w.WriteHeader(a.status)
}

// marshal encodes v as JSON followed by a newline, the members of a map in name order. Invalid
// UTF-8 (a path in a 404's detail) becomes U+FFFD.
func marshal(v any) []byte {
	b, _ := json.Marshal(v, json.Deterministic(true), jsontext.AllowInvalidUTF8(true)) // strings and numbers
	return append(b, '\n')
}

// receiptAnswer is the answer carrying s's receipt of its settlement with status, a payment's
// 201 or a lookup's 200. The body is the same bytes for both, every time.
func (s *Settlement) receiptAnswer(status int) answer {
	return s.statusAnswer(status, statusSettled, "")
}

// statusAnswer is the answer of status carrying s's receipt, which says its payment status,
// horario and, for a rejection, the motivo.
func (s *Settlement) statusAnswer(status int, paymentStatus, motivo string) answer {
	body := marshal(receipt{s.EndToEndID, FormatAmount(s.AmountCents), s.PixKey, s.Description, paymentStatus,
		s.SettledAt.Format(time.RFC3339Nano), motivo})
	return answer{status: status, contentType: jsonContentType, body: body}
}

// receipt is the body of a 201, of a 202 and of a lookup's 200.
type receipt struct {
	EndToEndID  string `json:"endToEndId"`
	Valor       string `json:"valor"`
	Chave       string `json:"chave"`
	InfoPagador string `json:"infoPagador,omitempty"`
	Status      string `json:"status"`
	Horario     string `json:"horario"`
	Motivo      string `json:"motivo,omitempty"`
}
