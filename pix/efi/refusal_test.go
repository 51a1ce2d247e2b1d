package efi_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"pixretry/pix"
)

// TestPaidReadsEfisErrors: an answer other than a 201 is a *pix.Error whose Code and Detail
// come from whichever of Efí's three error forms its body has, and whose Means is set for the
// refusals that stand for an error of pix.
func TestPaidReadsEfisErrors(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   pix.Error
	}{
		{"json_invalido names each member", 400, `{"nome":"json_invalido","mensagem":"invalid members","erros":[` +
			`{"chave":"pattern","caminho":".body.valor","mensagem":"must match"},` +
			`{"chave":"required","caminho":".body.favorecido","mensagem":"required"}]}`,
			pix.Error{Status: 400, Code: "json_invalido",
				Detail: "invalid members; .body.valor must match; .body.favorecido required", Means: pix.ErrInvalidPayment}},
		{"chave_invalida", 400, `{"nome":"chave_invalida","mensagem":"not the account's key"}`,
			pix.Error{Status: 400, Code: "chave_invalida", Detail: "not the account's key", Means: pix.ErrInvalidPayment}},
		{"a 400 of no form", 400, `bad request`, pix.Error{Status: 400, Means: pix.ErrInvalidPayment}},
		{"id_envio_duplicado", 409, `{"nome":"id_envio_duplicado","mensagem":"used"}`,
			pix.Error{Status: 409, Code: "id_envio_duplicado", Detail: "used"}},
		{"another 409", 409, `{"nome":"conflito","mensagem":"busy"}`,
			pix.Error{Status: 409, Code: "conflito", Detail: "busy"}},
		{"pagamento_negado", 422, `{"nome":"pagamento_negado","mensagem":"denied"}`,
			pix.Error{Status: 422, Code: "pagamento_negado", Detail: "denied", Means: pix.ErrRejected}},
		{"another 422", 422, `{"nome":"id_envio_duplicado","mensagem":"denied"}`,
			pix.Error{Status: 422, Code: "id_envio_duplicado", Detail: "denied"}},
		{"pagamento_negado of 409", 409, `{"nome":"pagamento_negado"}`, pix.Error{Status: 409, Code: "pagamento_negado"}},
		{"erro_aplicacao", 500, `{"nome":"erro_aplicacao","mensagem":"in flight"}`,
			pix.Error{Status: 500, Code: "erro_aplicacao", Detail: "in flight"}},
		{"the Central Bank's 503", 503, `{"type":"https://pix.bcb.gov.br/api/v2/error/ServicoIndisponivel",` +
			`"title":"Service Unavailable","status":503,"detail":"down"}`,
			pix.Error{Status: 503, Code: "ServicoIndisponivel", Detail: "down"}},
		{"the Central Bank's 429", 429, `{"type":"https://pix.bcb.gov.br/api/v2/error/BaldeFichasVazio","detail":"wait"}`,
			pix.Error{Status: 429, Code: "BaldeFichasVazio", Detail: "wait"}},
		{"another problem type", 404, `{"type":"https://example.com/NotFound","detail":"gone"}`,
			pix.Error{Status: 404, Code: "https://example.com/NotFound", Detail: "gone"}},
		{"OAuth's 401", 401, `{"error":"invalid_token","error_description":"a known token is required"}`,
			pix.Error{Status: 401, Code: "invalid_token", Detail: "a known token is required"}},
		{"a member of the wrong type", 409, `{"nome":"id_envio_duplicado","mensagem":false}`, pix.Error{Status: 409}},
		{"an HTML 502", 502, `<html>bad gateway</html>`, pix.Error{Status: 502}},
		{"a PUT answered 200", 200, sentBody("abc123", "150.00", "EM_PROCESSAMENTO"), pix.Error{Status: 200}},
		{"a redirect", 302, ``, pix.Error{Status: 302}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := dialect.Paid(pix.Answer{Status: tt.status, Body: []byte(tt.body)}, payment)
			e, ok := errors.AsType[*pix.Error](err)
			if !ok {
				t.Fatalf("Paid() error = %v, want a *pix.Error", err)
			}
			if diff := cmp.Diff(tt.want, *e, cmpopts.IgnoreUnexported(pix.Error{}), cmpopts.EquateErrors()); diff != "" {
				t.Errorf("Paid() error (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPaidRefusalsMatchPixErrors: the refusals that stand for an error of pix match it, and
// only the 2xx and 3xx match ErrContract.
func TestPaidRefusalsMatchPixErrors(t *testing.T) {
	sentinels := []error{pix.ErrInvalidPayment, pix.ErrKeyReused, pix.ErrRejected, pix.ErrInsufficientFunds,
		pix.ErrContract}
	tests := []struct {
		status int
		body   string
		want   error // nil for none
	}{
		{400, `{"nome":"valor_invalido"}`, pix.ErrInvalidPayment},
		{409, `{"nome":"id_envio_duplicado"}`, nil},
		{422, `{"nome":"pagamento_negado"}`, pix.ErrRejected},
		{500, `{"nome":"erro_aplicacao"}`, nil},
		{200, `{}`, pix.ErrContract},
		{307, ``, pix.ErrContract},
	}
	for _, tt := range tests {
		_, err := dialect.Paid(pix.Answer{Status: tt.status, Body: []byte(tt.body)}, payment)
		for _, s := range sentinels {
			if got, want := errors.Is(err, s), s == tt.want; got != want {
				t.Errorf("errors.Is(Paid() of %d %s, %v) = %t, want %t", tt.status, tt.body, s, got, want)
			}
		}
	}
}

// TestSeenRefusals: a lookup's 404 of Tipo PixEnviadoNaoEncontrado proves that nothing was paid
// (ErrNoSettlement, wrapping the *pix.Error). Another 404, or a 410, proves nothing.
func TestSeenRefusals(t *testing.T) {
	const notFound = `{"type":"https://pix.bcb.gov.br/api/v2/error/PixEnviadoNaoEncontrado","title":"Not Found",` +
		`"status":404,"detail":"no payout"}`
	tests := []struct {
		name         string
		status       int
		body         string
		want         string
		noSettlement bool
	}{
		{"not found", 404, notFound,
			"pix: the PSP holds no settlement under the key, and closed it: pix: PSP answered 404 PixEnviadoNaoEncontrado: no payout",
			true},
		{"no route", 404, `{"nome":"rota_nao_encontrada","mensagem":"no resource"}`,
			"pix: PSP answered 404 rota_nao_encontrada: no resource", false},
		{"not found of a 410", 410, notFound, "pix: PSP answered 410 PixEnviadoNaoEncontrado: no payout", false},
		{"removed", 410, `{"type":"https://pix.bcb.gov.br/api/v2/error/PermanentementeRemovido","detail":"dropped"}`,
			"pix: PSP answered 410 PermanentementeRemovido: dropped", false},
		{"a 404 of no form", 404, `not found`, "pix: PSP answered 404", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := dialect.Seen(pix.Answer{Status: tt.status, Body: []byte(tt.body)}, pix.Ref{})
			e, ok := errors.AsType[*pix.Error](err)
			if !ok || e.Status != tt.status || err.Error() != tt.want || errors.Is(err, pix.ErrNoSettlement) != tt.noSettlement {
				t.Errorf("Seen() error = %v, want a *pix.Error of %d, %q, matching ErrNoSettlement: %t", err, tt.status,
					tt.want, tt.noSettlement)
			}
		})
	}
}
