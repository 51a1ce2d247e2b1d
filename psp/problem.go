package psp

import (
	"errors"
	"fmt"
	"net/http"
)

// The code member of every problem the Server answers with.
const (
	codeUnauthorized          = "unauthorized"
	codeIdempotencyKeyMissing = "idempotency_key_missing"
	codeIdempotencyKeyInvalid = "idempotency_key_invalid"
	codeUnsupportedMediaType  = "unsupported_media_type"
	codePayloadTooLarge       = "payload_too_large"
	codeInvalidRequest        = "invalid_request"
	codeInsufficientFunds     = "insufficient_funds"
	codeIdempotencyKeyInUse   = "idempotency_key_in_use"
	codeIdempotencyKeyReused  = "idempotency_key_reused"
	codeNotFound              = "not_found"
	codeMethodNotAllowed      = "method_not_allowed"
	codeInjectedFault         = "injected_fault"
	codeOverloaded            = "overloaded"
	codeKeyStoreFull          = "key_store_full"
	codeInternal              = "internal_error"
	codeHostNotAllowed        = "host_not_allowed"
)

const (
	problemTypePrefix  = "urn:pixretry:psp:problem:"
	problemContentType = "application/problem+json"
	jsonContentType    = "application/json"
)

// problem is the application/problem+json body (RFC 9457) of every error answer. Violations is
// present on 400 answers only.
type problem struct {
	Type       string      `json:"type"`
	Title      string      `json:"title"`
	Status     int         `json:"status"`
	Detail     string      `json:"detail"`
	Code       string      `json:"code"`
	Violations []violation `json:"violacoes,omitempty"`
}

// violation names one field of a rejected request and why it was rejected. Field is a body
// member ("valor"), a header ("Idempotency-Key"), "body" for the body as a whole, or, on the
// control surface, a path such as "faults[1]".
type violation struct {
	Field  string `json:"campo"`
	Reason string `json:"motivo"`
}

// failure is an error the Server answers with a problem. code selects the status; header
// holds extra answer header fields (Allow, WWW-Authenticate), if any.
type failure struct {
	code       string
	detail     string
	violations []violation
	header     http.Header
}

func (f *failure) Error() string { return "psp: " + f.code + ": " + f.detail }

func fail(code, format string, args ...any) *failure {
	return &failure{code: code, detail: fmt.Sprintf(format, args...)}
}

// invalid is a 400 whose violations say which field is wrong and why.
func invalid(code string, violations ...violation) *failure {
	f := fail(code, "the request has %d violation(s); see violacoes", len(violations))
	f.violations = violations
	return f
}

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
	codeInternal:              http.StatusInternalServerError,
	codeHostNotAllowed:        http.StatusForbidden,
}

// errorAnswer is the one place that turns an error into an answer: the problem+json of a
// *failure, its status given by statusOf; any other error is a 500 internal_error.
func errorAnswer(err error) answer {
	f, ok := errors.AsType[*failure](err)
	if !ok {
		f = fail(codeInternal, "%v", err)
	}
	status := statusOf[f.code]
	a := problemAnswer(problem{
		Type:       problemTypePrefix + f.code,
		Title:      http.StatusText(status),
		Status:     status,
		Detail:     f.detail,
		Code:       f.code,
		Violations: f.violations,
	})
	a.header = f.header
	return a
}
