package psp

import "net/http"

// The code member of every problem the Server answers with. The HTTP contract maps each to
// its status.
const (
	CodeUnauthorized          = "unauthorized"            // 401
	CodeIdempotencyKeyMissing = "idempotency_key_missing" // 400
	CodeIdempotencyKeyInvalid = "idempotency_key_invalid" // 400
	CodeUnsupportedMediaType  = "unsupported_media_type"  // 415
	CodePayloadTooLarge       = "payload_too_large"       // 413
	CodeInvalidRequest        = "invalid_request"         // 400
	CodeInsufficientFunds     = "insufficient_funds"      // 422
	CodeIdempotencyKeyInUse   = "idempotency_key_in_use"  // 409
	CodeIdempotencyKeyReused  = "idempotency_key_reused"  // 422
	CodeNotFound              = "not_found"               // 404
	CodeMethodNotAllowed      = "method_not_allowed"      // 405
	CodeInjectedFault         = "injected_fault"          // the fault's status
	CodeOverloaded            = "overloaded"              // 503
	CodeKeyStoreFull          = "key_store_full"          // 503
	CodeIdempotencyKeyClosed  = "idempotency_key_closed"  // 422
	CodePaymentNotFound       = "payment_not_found"       // 404
	CodeOutcomeUnprovable     = "outcome_unprovable"      // 410
)

// ProblemTypePrefix begins the type member of every problem: the code follows it.
const ProblemTypePrefix = "urn:pixretry:psp:problem:"

// Problem is the application/problem+json body (RFC 9457) of every error answer of a Server and
// of its control API (package control). Its members go on the wire in this order, and
// violacoes only when there are violations, which only a 400 has. Make one with NewProblem.
type Problem struct {
	Type       string      `json:"type"`   // ProblemTypePrefix and the code
	Title      string      `json:"title"`  // the status's text, such as "Bad Request"
	Status     int         `json:"status"` // the HTTP status of the answer
	Detail     string      `json:"detail"` // what happened, for a person reading a log
	Code       string      `json:"code"`   // one of the Code constants, or control's
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
// ProblemTypePrefix followed by code, and its title is http.StatusText(status).
func NewProblem(status int, code, detail string, violations ...Violation) Problem {
	return Problem{ProblemTypePrefix + code, http.StatusText(status), status, detail, code, violations}
}
