package psp

import "net/http"

// The code member of every problem the Server answers with. statusOf maps each to its status,
// as the OpenAPI document (psp/control/openapi.json) says.
const (
	codeUnauthorized          = "unauthorized"            // 401
	codeIdempotencyKeyMissing = "idempotency_key_missing" // 400
	codeIdempotencyKeyInvalid = "idempotency_key_invalid" // 400
	codeUnsupportedMediaType  = "unsupported_media_type"  // 415
	codePayloadTooLarge       = "payload_too_large"       // 413
	codeInvalidRequest        = "invalid_request"         // 400
	codeInsufficientFunds     = "insufficient_funds"      // 422
	codeIdempotencyKeyInUse   = "idempotency_key_in_use"  // 409
	codeIdempotencyKeyReused  = "idempotency_key_reused"  // 422
	codeNotFound              = "not_found"               // 404
	codeMethodNotAllowed      = "method_not_allowed"      // 405
	codeInjectedFault         = "injected_fault"          // the fault's status
	codeOverloaded            = "overloaded"              // 503
	codeKeyStoreFull          = "key_store_full"          // 503
	codeIdempotencyKeyClosed  = "idempotency_key_closed"  // 422
	codePaymentNotFound       = "payment_not_found"       // 404
	codeOutcomeUnprovable     = "outcome_unprovable"      // 410
	codePaymentRejected       = "payment_rejected"        // 422
)

// problemTypePrefix begins the type member of every problem: the code follows it.
const problemTypePrefix = "urn:pixretry:psp:problem:"

// Problem is the application/problem+json body (RFC 9457) of every error answer of a Server and
// of its control API (package control). Its members go on the wire in this order, and
// violacoes only when there are violations, which only a 400 has. Make one with NewProblem.
type Problem struct {
	Type       string      `json:"type"`   // "urn:pixretry:psp:problem:" and the code
	Title      string      `json:"title"`  // the status's text, such as "Bad Request"
	Status     int         `json:"status"` // the HTTP status of the answer
	Detail     string      `json:"detail"` // what happened, for a person reading a log
	Code       string      `json:"code"`   // such as "injected_fault"; the OpenAPI document lists them
	Violations []Violation `json:"violacoes,omitempty"`
}

// Violation names one field of a rejected request, a body member ("valor"), a header
// ("Idempotency-Key"), a query parameter ("idempotency_key"), a control request's fault
// ("faults[1]"), or "body" or "query" as a whole, and why it was rejected.
type Violation struct {
	Field  string `json:"campo"`
	Reason string `json:"motivo"`
}

// NewProblem returns the problem of an answer with status and code: its type is
// "urn:pixretry:psp:problem:" followed by code, and its title is http.StatusText(status).
func NewProblem(status int, code, detail string, violations ...Violation) Problem {
	return Problem{problemTypePrefix + code, http.StatusText(status), status, detail, code, violations}
}
