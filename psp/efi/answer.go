package efi

import (
	"maps"
	"net/http"
	"strconv"

	"github.com/go-json-experiment/json"
)

// The nome of each error in Efí's form {"nome","mensagem"}.
const (
	nomeInvalidJSON      = "json_invalido"        // 400: the body or idEnvio fails the schema
	nomeInvalidKey       = "chave_invalida"       // 400: pagador.chave is not the payer's
	nomeInvalidValue     = "valor_invalido"       // 400: valor is zero
	nomeDuplicateID      = "id_envio_duplicado"   // 409: idEnvio was used for another payout
	nomeDenied           = "pagamento_negado"     // 422: nothing was paid under idEnvio, and nothing will be
	nomeApplicationError = "erro_aplicacao"       // 500, or an injected status: retry
	nomeRouteNotFound    = "rota_nao_encontrada"  // 404: no such path
	nomeMethodNotAllowed = "metodo_nao_permitido" // 405: no such method on the path
)

// bcbErrorType begins the type of every problem+json answer: the Tipo follows it.
const bcbErrorType = "https://pix.bcb.gov.br/api/v2/error/"

// The Tipo of each problem+json answer.
const (
	tipoNotFound    = "PixEnviadoNaoEncontrado"           // 404: no payout under idEnvio
	tipoGone        = "PermanentementeRemovido"           // 410: the outcome cannot be proved
	tipoBucketEmpty = "BaldeFichasVazio"                  // 429
	tipoUnavailable = "ServicoIndisponivel"               // 503
	tipoTimeout     = "IndisponibilidadePorTempoEsgotado" // 504
)

// answer is a complete HTTP answer of the front end. header holds extra fields (Allow,
// Location, Retry-After, WWW-Authenticate); it may be nil.
type answer struct {
	status      int
	contentType string
	header      http.Header
	body        []byte
}

// write sends a.
func (a answer) write(w http.ResponseWriter) {
	h := w.Header()
	maps.Copy(h, a.header)
	if a.contentType != "" {
		h.Set("Content-Type", a.contentType)
	}
	h.Set("Content-Length", strconv.Itoa(len(a.body)))
	w.WriteHeader(a.status)
	w.Write(a.body) // a failed write means the client has gone: nothing left to tell it
}

// jsonAnswer is an application/json answer of status carrying v.
func jsonAnswer(status int, v any) answer {
	return answer{status: status, contentType: "application/json", body: marshal(v)}
}

// marshal encodes v as JSON followed by a newline, as the core does.
func marshal(v any) []byte {
	b, _ := json.Marshal(v) // structs of strings, numbers and slices of them
	return append(b, '\n')
}

// gnBody is the body of an error of Efí's /v2/gn endpoints. Erros lists the members at fault
// of a json_invalido.
type gnBody struct {
	Nome     string `json:"nome"`
	Mensagem string `json:"mensagem"`
	Erros    []erro `json:"erros,omitempty"`
}

// erro is one member at fault: the schema keyword it breaks, its path (".body.valor",
// ".params.idEnvio") and why.
type erro struct {
	Chave    string `json:"chave"`
	Caminho  string `json:"caminho"`
	Mensagem string `json:"mensagem"`
}

// gnError is an error of status in Efí's form.
func gnError(status int, nome, mensagem string) answer {
	return jsonAnswer(status, gnBody{Nome: nome, Mensagem: mensagem})
}

// invalidJSON is the 400 json_invalido naming the members at fault.
func invalidJSON(erros ...erro) answer {
	return jsonAnswer(http.StatusBadRequest, gnBody{nomeInvalidJSON, "invalid values or types of members; see erros", erros})
}

// problem is a problem+json body (RFC 9457) of the Central Bank's API Pix.
type problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
}

// bcbProblem is a problem+json answer of status and tipo.
func bcbProblem(status int, tipo, detail string) answer {
	a := jsonAnswer(status, problem{bcbErrorType + tipo, http.StatusText(status), status, detail})
	a.contentType = "application/problem+json"
	return a
}

// oauthError is the body of a refused token (RFC 6750).
type oauthError struct {
	Error       string `json:"error"`
	Description string `json:"error_description"`
}
