package efi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/go-json-experiment/json"

	"pixretry/psp"
)

// The codes of the core's problems that the front end tells apart, as the core's OpenAPI
// document (psp/control/openapi.json) lists them.
const (
	codeUnauthorized      = "unauthorized"
	codeInFlight          = "idempotency_key_in_use"
	codeReused            = "idempotency_key_reused"
	codeClosed            = "idempotency_key_closed"
	codeInsufficientFunds = "insufficient_funds"
	codeRejected          = "payment_rejected"
	codeInvalidRequest    = "invalid_request"
	codeOverloaded        = "overloaded"
	codeKeyStoreFull      = "key_store_full"
	codeInjectedFault     = "injected_fault"
	codePaymentNotFound   = "payment_not_found"
	codeOutcomeUnprovable = "outcome_unprovable"
)

// The statuses of a payout that the front end tells apart, the core's and Efí's alike.
const (
	statusPending = "EM_PROCESSAMENTO"
	statusSettled = "REALIZADO"
)

// replayedHeader is "true" on the core's answers replayed from its key store.
const replayedHeader = "Idempotent-Replayed"

// receipt is the body of the core's 201, 202 and lookup 200. A member it lacks (a bad_body
// fault's missing breach) is "".
type receipt struct {
	EndToEndID  string `json:"endToEndId"`
	Valor       string `json:"valor"`
	Chave       string `json:"chave"`
	InfoPagador string `json:"infoPagador"`
	Status      string `json:"status"`
	Horario     string `json:"horario"`
	Motivo      string `json:"motivo"`
}

// horario is when a payout was asked for and settled, as Efí writes it. A horario with
// neither time encodes as {}, which omitempty leaves out, so the answer to a receipt without
// horario (a bad_body fault's missing breach) has none.
type horario struct {
	Solicitacao string `json:"solicitacao,omitempty"`
	Liquidacao  string `json:"liquidacao,omitempty"`
}

// efiTime writes the core's RFC 3339 time t as Efí's examples do: in UTC, with milliseconds.
// A time that does not parse (a broken body) is kept as it is.
func efiTime(t string) string {
	at, err := time.Parse(time.RFC3339Nano, t)
	if err != nil {
		return t
	}
	return at.UTC().Format("2006-01-02T15:04:05.000Z")
}

// translate is the Efí answer to r of the core's answer a: ok's for a 2xx whose body is a
// receipt, the core's own for a 2xx whose is not (a not_json breach), a redirect to r's own
// path for a 3xx, else the refusal that a's problem maps to. The Retry-After and
// WWW-Authenticate of a come along.
func translate(r *http.Request, a psp.Relayed, ok func(receipt) answer) answer {
	var out answer
	var rc receipt
	switch {
	case a.Status/100 == 2 && json.Unmarshal(a.Body, &rc) == nil:
		out = ok(rc)
	case a.Status/100 == 2:
		out = answer{status: a.Status, contentType: a.Header.Get("Content-Type"), body: a.Body}
	case a.Status/100 == 3:
		out = answer{status: a.Status, header: http.Header{"Location": {r.URL.Path}}}
	default:
		var p psp.Problem
		json.Unmarshal(a.Body, &p) // every error answer of the core is a Problem; a proxy's has no code
		out = refusal(a.Status, p)
	}
	for _, name := range []string{"Retry-After", "Www-Authenticate"} {
		if v := a.Header.Values(name); v != nil {
			if out.header == nil {
				out.header = http.Header{}
			}
			out.header[name] = v
		}
	}
	return out
}

// refusal is the Efí answer of the core's error answer of status with problem p: the one
// place that maps the core's codes to Efí's errors. An answer without a code is not the
// core's but a proxy's in front of it, such as a gateway's 502: it keeps its status, as an
// unavailable PSP's does.
func refusal(status int, p psp.Problem) answer {
	switch p.Code {
	case "":
		return unavailable(status, "a proxy in front of the PSP answered "+strconv.Itoa(status))
	case codeUnauthorized:
		return jsonAnswer(http.StatusUnauthorized, oauthError{"invalid_token", "a known bearer token is required"})
	case codeInFlight:
		return gnError(http.StatusInternalServerError, nomeApplicationError,
			"a request with this idEnvio is still being processed; retry later")
	case codeReused:
		return gnError(http.StatusConflict, nomeDuplicateID, "this idEnvio was already used for another payout")
	case codeInsufficientFunds:
		return gnError(http.StatusUnprocessableEntity, nomeDenied, p.Detail+"; nothing was paid")
	case codeRejected:
		return gnError(http.StatusUnprocessableEntity, nomeDenied,
			"the payout was accepted, then not made (NAO_REALIZADO); nothing was paid, and the lookup says why")
	case codeClosed:
		return gnError(http.StatusUnprocessableEntity, nomeDenied, "a lookup found no payout under this idEnvio "+
			"and closed it: nothing was paid, and nothing will be; pay under a new idEnvio")
	case codeInvalidRequest:
		return invalidValues(p.Violations)
	case codePaymentNotFound:
		return bcbProblem(http.StatusNotFound, tipoNotFound,
			"no payout was made under this idEnvio, and none will be: the idEnvio is closed")
	case codeOutcomeUnprovable:
		return bcbProblem(http.StatusGone, tipoGone, "the PSP has dropped payouts from its ledger and cannot tell "+
			"whether one was made under this idEnvio")
	case codeOverloaded, codeKeyStoreFull, codeInjectedFault:
		return unavailable(status, p.Detail)
	}
	return gnError(http.StatusInternalServerError, nomeApplicationError, "the PSP answered "+p.Code)
}

// unavailable is the answer of an overloaded PSP or of an injected status: the Central Bank's
// problem for 503, 504 and 429, else erro_aplicacao with the status.
func unavailable(status int, detail string) answer {
	switch status {
	case http.StatusServiceUnavailable:
		return bcbProblem(status, tipoUnavailable, detail)
	case http.StatusGatewayTimeout:
		return bcbProblem(status, tipoTimeout, detail)
	case http.StatusTooManyRequests:
		return bcbProblem(status, tipoBucketEmpty, detail)
	}
	return gnError(status, nomeApplicationError, detail)
}

// violationPaths are where the core's violations of a payment's members point in a payout:
// the chave is the favorecido's, and the core checks its format and the length of infoPagador.
var violationPaths = map[string]erro{
	"chave":       {Chave: "format", Caminho: ".body.favorecido.chave"},
	"infoPagador": {Chave: "maxLength", Caminho: ".body.pagador.infoPagador"},
}

// invalidValues is the 400 json_invalido of the core's violations of a payout's values.
func invalidValues(violations []psp.Violation) answer {
	erros := make([]erro, len(violations))
	for i, v := range violations {
		erros[i] = violationPaths[v.Field]
		erros[i].Mensagem = v.Reason
	}
	return invalidJSON(erros...)
}
