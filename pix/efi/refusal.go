package efi

import (
	"encoding/json"
	"net/http"
	"strings"

	"pixretry/pix"
)

// The nome of each of Efí's refusals that means an error of pix (see Dialect).
const (
	nomeDenied = "pagamento_negado" // 422: nothing was paid under the idEnvio
)

// bcbErrorType begins the type of the Central Bank's problem+json: its Tipo follows.
const bcbErrorType = "https://pix.bcb.gov.br/api/v2/error/"

// errorBody holds the members of the three forms of Efí's errors: {"nome", "mensagem",
// "erros"} of its own endpoints, the Central Bank's problem+json, and OAuth's.
type errorBody struct {
	Nome     string `json:"nome"`
	Mensagem string `json:"mensagem"`
	Erros    []struct {
		Caminho  string `json:"caminho"`
		Mensagem string `json:"mensagem"`
	} `json:"erros"`
	Type             string `json:"type"`
	Detail           string `json:"detail"`
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description"`
}

// decodeError returns the *pix.Error of a, an answer that says no payment's state. Its Code is
// the nome, the problem's Tipo (its whole type if not the Central Bank's) or the OAuth error,
// whichever the body has, and Detail the text that goes with it. A json_invalido's Detail
// also names each member at fault. A body in none of the forms leaves both empty. Means is
// set as Dialect says.
func decodeError(a pix.Answer) *pix.Error {
	var b errorBody
	if json.Unmarshal(a.Body, &b) != nil {
		b = errorBody{}
	}
	e := &pix.Error{Status: a.Status}
	switch {
	case b.Nome != "":
		e.Code, e.Detail = b.Nome, b.Mensagem
		for _, m := range b.Erros {
			e.Detail += "; " + m.Caminho + " " + m.Mensagem
		}
	case b.Type != "":
		e.Code, e.Detail = strings.TrimPrefix(b.Type, bcbErrorType), b.Detail
	default:
		e.Code, e.Detail = b.Error, b.ErrorDescription
	}
	e.Means = means(e.Status, e.Code)
	return e
}

// means returns the error of pix that a refusal of status and code stands for, or nil.
func means(status int, code string) error {
	switch {
	case status == http.StatusBadRequest:
		return pix.ErrInvalidPayment
	case status == http.StatusUnprocessableEntity && code == nomeDenied:
		return pix.ErrRejected
	}
	return nil
}
