package properties

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"pixretry/pix"
	"pixretry/pix/efi"
	"pixretry/psp"
	psefi "pixretry/psp/efi"
)

// efiAPI is Efí's payouts: pix/efi's Dialect, paying from the double's one payer, and the
// double's front end psp/efi. The key is the idEnvio, in the path of the PUT and of the
// lookup. Times carry milliseconds.
var efiAPI = &dialect{
	Name:  "efi",
	Front: func(next http.Handler, _ time.Duration) (http.Handler, error) { return psefi.NewHandler(next), nil },
	Client: func() pix.Dialect {
		return efi.Dialect{PayerKey: psefi.PayerKey}
	},
	KeyOf: func(r *http.Request) string { return path.Base(r.URL.Path) },
	Says:  efiSays,
	MadeKey: func(key string) bool { // a UUID v4 without its hyphens
		b, err := hex.DecodeString(key)
		u, errUUID := uuid.FromBytes(b)
		return err == nil && errUUID == nil && u.Version() == 4 && hex.EncodeToString(b) == key
	},
	KeyForm:   "a UUID v4 without its hyphens",
	SharedKey: func(j int) string { return fmt.Sprintf("sharedkey%d", j) },
	Precision: time.Millisecond,
	RelaysAll: true,
}

// efiBody holds the members of every answer of Efí's dialect: a PUT's 201, a lookup's 200,
// an error of its /v2/gn endpoints, the Central Bank's problem+json, and OAuth's error.
type efiBody struct {
	IDEnvio     string `json:"idEnvio"`
	E2EID       string `json:"e2eId"`      // a PUT's 201
	EndToEndID  string `json:"endToEndId"` // a lookup's 200
	Valor       string `json:"valor"`
	Status      any    `json:"status"` // a payout's, or a problem's number
	InfoPagador string `json:"infoPagador"`
	Chave       string `json:"chave"` // the payer's, in a lookup's 200
	Horario     struct {
		Solicitacao string `json:"solicitacao"`
		Liquidacao  string `json:"liquidacao"`
	} `json:"horario"`
	Favorecido struct {
		Chave string `json:"chave"`
	} `json:"favorecido"`
	Nome             string `json:"nome"`
	Mensagem         string `json:"mensagem"`
	Type             string `json:"type"`
	Detail           string `json:"detail"`
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description"`
}

// bcbErrorType begins the type of the Central Bank's problem+json: its Tipo follows.
const bcbErrorType = "https://pix.bcb.gov.br/api/v2/error/"

// efiSays reads ex, an answer of Efí's dialect to a call of payment p, as psp/efi's package
// documentation gives the contract. A PUT's 201 states EM_PROCESSAMENTO, or REALIZADO for a
// replay of a settled payout, of p's valor; it names no payee. A lookup's 200 states the payout's status.
// A lookup's 200 that keeps the contract names two Pix keys, the payer's and the payee's. A
// 422 pagamento_negado says that nothing was paid under the idEnvio, and nothing will be:
// NAO_REALIZADO, whether the PSP rejected the payout after accepting it or refused it at once
// (a balance too low, an idEnvio a lookup closed). A lookup's 404 PixEnviadoNaoEncontrado
// proves nothing was paid. The code of an error is its nome, the Tipo of its problem+json, or
// its OAuth error.
func efiSays(ex Exchange, p pix.Payment) said {
	var b efiBody
	if json.Unmarshal(ex.Body, &b) != nil {
		return said{}
	}
	var s said
	switch {
	case b.Nome != "":
		s.Code, s.Detail = b.Nome, b.Mensagem
	case b.Type != "":
		s.Code, s.Detail = strings.TrimPrefix(b.Type, bcbErrorType), b.Detail
	default:
		s.Code, s.Detail = b.Error, b.ErrorDescription
	}
	valor := psp.FormatAmount(p.AmountCents)
	status, _ := b.Status.(string)
	switch {
	case !lookup(ex) && ex.Status == http.StatusCreated && b.IDEnvio == ex.Key && efiForm(b.E2EID, b.Valor,
		b.Horario.Solicitacao) && b.Valor == valor && (status == statusPending || status == statusSettled):
		s.State, s.ID, s.Replayed, s.Receipt = status, b.E2EID, status == statusSettled, status == statusSettled
	case lookup(ex) && ex.Status == http.StatusOK && b.IDEnvio == ex.Key && efiForm(b.EndToEndID, b.Valor,
		b.Horario.Solicitacao) && validByContract(efiPayout(b)) && validByContract(pix.Payment{AmountCents: 1,
		PixKey: b.Chave}) && (status == statusPending || status == statusSettled || status == statusRejected):
		s.State, s.ID = status, b.EndToEndID
		mine := b.Valor == valor && b.Favorecido.Chave == p.PixKey && b.InfoPagador == p.Description
		s.Receipt, s.Foreign = status == statusSettled && mine, !mine
	case ex.Status == http.StatusUnprocessableEntity && b.Nome == "pagamento_negado":
		s.State = statusRejected
	case lookup(ex) && ex.Status == http.StatusNotFound && s.Code == "PixEnviadoNaoEncontrado":
		s.NoSettlement = true
	}
	return s
}

// efiPayout is the payment a lookup's 200 of Efí's dialect shows: its valor, its payee's key
// (favorecido.chave) and its infoPagador.
func efiPayout(b efiBody) pix.Payment {
	cents, _ := psp.ParseBalance(b.Valor)
	return pix.Payment{AmountCents: cents, PixKey: b.Favorecido.Chave, Description: b.InfoPagador}
}

// efiTimePattern is a time as Efí writes it: in UTC, with milliseconds.
var efiTimePattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)

// efiForm reports whether the members of an answer that states a payout's status have their
// form: an endToEndId, a valor and a time.
func efiForm(endToEndID, valor, at string) bool {
	_, err := psp.ParseBalance(valor)
	return endToEndIDShape.MatchString(endToEndID) && err == nil && valor != "0.00" && efiTimePattern.MatchString(at)
}

// TestEfiSaysWhatTheContractSays grades efiSays on answers written by hand from Efí's
// contract, for a payment of 12.34 to pix@example.com under the idEnvio abc.
func TestEfiSaysWhatTheContractSays(t *testing.T) {
	p := pix.Payment{AmountCents: 1234, PixKey: "pix@example.com", Description: "rent"}
	const e2e = "E12345678202001011200abcdefghijk"
	put := func(status int, body string) Exchange {
		return Exchange{Method: http.MethodPut, Key: "abc", Status: status, Body: []byte(body)}
	}
	get := func(status int, body string) Exchange {
		return Exchange{Method: http.MethodGet, Key: "abc", Status: status, Body: []byte(body)}
	}
	sent := func(valor, status string) string {
		return `{"idEnvio":"abc","e2eId":"` + e2e + `","valor":"` + valor +
			`","horario":{"solicitacao":"2020-01-01T12:00:00.000Z"},"status":"` + status + `"}`
	}
	enviado := func(valor, chave, status string) string {
		return `{"endToEndId":"` + e2e + `","idEnvio":"abc","valor":"` + valor + `","chave":"pagador@pixretry.example",` +
			`"status":"` + status + `","infoPagador":"rent","horario":{"solicitacao":"2020-01-01T12:00:00.000Z"},` +
			`"favorecido":{"chave":"` + chave + `"}}`
	}
	for _, tc := range []struct {
		name string
		ex   Exchange
		want said
	}{
		{"a PUT's 201 in processing", put(201, sent("12.34", "EM_PROCESSAMENTO")), said{State: statusPending, ID: e2e}},
		{"a PUT's 201 replaying a settlement", put(201, sent("12.34", "REALIZADO")),
			said{State: statusSettled, ID: e2e, Receipt: true, Replayed: true}},
		{"a PUT's 201 for another valor", put(201, sent("12.35", "EM_PROCESSAMENTO")), said{}},
		{"a PUT's 201 for another idEnvio", put(201, strings.Replace(sent("12.34", "REALIZADO"), `"abc"`, `"abd"`, 1)),
			said{}},
		{"a lookup's 200 settled", get(200, enviado("12.34", "pix@example.com", "REALIZADO")),
			said{State: statusSettled, ID: e2e, Receipt: true}},
		{"a lookup's 200 of another payee", get(200, enviado("12.34", "outro@example.com", "REALIZADO")),
			said{State: statusSettled, ID: e2e, Foreign: true}},
		{"a lookup's 200 naming no Pix key", get(200, enviado("12.34", "000000000000", "REALIZADO")), said{}},
		{"a lookup's 200 rejected", get(200, enviado("12.34", "pix@example.com", "NAO_REALIZADO")),
			said{State: statusRejected, ID: e2e}},
		{"a 422 pagamento_negado", put(422, `{"nome":"pagamento_negado","mensagem":"no"}`),
			said{State: statusRejected, Code: "pagamento_negado", Detail: "no"}},
		{"a lookup's 404 PixEnviadoNaoEncontrado",
			get(404, `{"type":"https://pix.bcb.gov.br/api/v2/error/PixEnviadoNaoEncontrado","status":404,"detail":"none"}`),
			said{Code: "PixEnviadoNaoEncontrado", Detail: "none", NoSettlement: true}},
		{"a lookup's 404 of a route", get(404, `{"nome":"rota_nao_encontrada","mensagem":"none"}`),
			said{Code: "rota_nao_encontrada", Detail: "none"}},
		{"an OAuth error", put(401, `{"error":"invalid_token","error_description":"who"}`),
			said{Code: "invalid_token", Detail: "who"}},
		{"a proxy's page", put(502, "gateway: Bad Gateway\n"), said{}},
	} {
		if got := efiSays(tc.ex, p); got != tc.want {
			t.Errorf("%s: efiSays() = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
