package openfinance

import (
	"fmt"
	"net/http"
	"strings"
)

// The codes of the errors[] items the Server answers with. The spec (4.1.0.yml) names them all
// but PAGAMENTO_EM_PROCESSAMENTO, the double's own for a 409, and the ones made from a status's
// text (statusCode).
const (
	codeBadSignature     = "BAD_SIGNATURE"                      // 400: the JWS does not verify
	codeInvalidClient    = "INVALID_CLIENT"                     // 403: aud, iss, iat or jti refused
	codeUnauthorized     = "UNAUTHORIZED"                       // 401: no bearer token
	codeNotInformed      = "PARAMETRO_NAO_INFORMADO"            // 400, 422: a required member or header missing
	codeInvalidParameter = "PARAMETRO_INVALIDO"                 // 400, 422: a member or header malformed
	codeIdempotency      = "ERRO_IDEMPOTENCIA"                  // 422: a key reused with other data
	codeInsufficient     = "SALDO_INSUFICIENTE"                 // 422: the payer's balance is short
	codeInvalidConsent   = "CONSENTIMENTO_INVALIDO"             // 422: the consent is unknown or final
	codeDivergent        = "PAGAMENTO_DIVERGENTE_CONSENTIMENTO" // 422: the payment differs from its consent
	codeInvalidDetail    = "DETALHE_PAGAMENTO_INVALIDO"         // 422: a member breaks a business rule
	codeInvalidForm      = "FORMA_PAGAMENTO_INVALIDA"           // 422: a form of payment the double lacks
	codeInProgress       = "PAGAMENTO_EM_PROCESSAMENTO"         // 409: the double's own
	codeOverloaded       = "SITE_IS_OVERLOADED"                 // 529
)

// statusSiteOverloaded is the spec's 529 SiteIsOverloaded, which net/http does not name.
const statusSiteOverloaded = 529

// apiError is an error answer of the API: its status, and the one item of its errors[].
type apiError struct {
	status int
	code   string
	detail string
	header http.Header // extra header fields, such as Retry-After or Allow; nil for none
}

// errorf is an apiError whose detail is formatted.
func errorf(status int, code, format string, args ...any) *apiError {
	return &apiError{status: status, code: code, detail: fmt.Sprintf(format, args...)}
}

// statusError is the apiError of a bare status, its code made from the status's text.
func statusError(status int, detail string) *apiError {
	return &apiError{status: status, code: statusCode(status), detail: detail}
}

// statusCode is the code of a status with no code of its own: its text in upper snake case,
// such as INTERNAL_SERVER_ERROR, or SITE_IS_OVERLOADED for 529.
func statusCode(status int) string {
	return strings.ToUpper(strings.ReplaceAll(statusText(status), " ", "_"))
}

// statusText is the text of a status: net/http's, "Site Is Overloaded" for 529, or "Status"
// and the number for a status without one.
func statusText(status int) string {
	switch text := http.StatusText(status); {
	case status == statusSiteOverloaded:
		return "Site Is Overloaded"
	case text == "":
		return fmt.Sprintf("Status %d", status)
	default:
		return text
	}
}

// errorBody is the spec's ResponseError, and the bodies of 422ResponseErrorCreateConsent and
// 422ResponseErrorCreatePixPayments: errors[] and meta.
type errorBody struct {
	Errors []errorItem `json:"errors"`
	Meta   meta        `json:"meta"`
}

type errorItem struct {
	Code   string `json:"code"`
	Title  string `json:"title"`
	Detail string `json:"detail"`
}

// body is the errorBody of e, stamped with now.
func (e *apiError) body(m meta) errorBody {
	return errorBody{Errors: []errorItem{{e.code, statusText(e.status), e.detail}}, Meta: m}
}
