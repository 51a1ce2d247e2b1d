package efi_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"

	"pixretry/psp"
)

// invalidJSON is the body of a 400 json_invalido with erros, each {"chave","caminho","mensagem"}.
func invalidJSON(erros ...string) string {
	return `{"nome":"json_invalido","mensagem":"invalid values or types of members; see erros","erros":[` +
		strings.Join(erros, ",") + `]}` + "\n"
}

// badID is the erro of an idEnvio out of its format.
const badID = `{"chave":"pattern","caminho":".params.idEnvio","mensagem":"must match ^[a-zA-Z0-9]{1,35}$"}`

func TestSendTakesAnIdOf1To35Letters(t *testing.T) {
	for _, id := range []string{"a", "Z9", strings.Repeat("x", 35), "0S000000000000000000000000000000000"} {
		_, h := mustFront(t)
		if got := put(h, id, payout); got.status != http.StatusCreated {
			t.Errorf("PUT %s = %d %s, want 201", id, got.status, got.body)
		}
	}
}

func TestSendRefusesAnIdOutOfItsFormat(t *testing.T) {
	for _, tc := range []struct{ name, id string }{
		{"36 characters", strings.Repeat("x", 36)},
		{"a hyphenated UUID", "123e4567-e89b-12d3-a456-426614174000"},
		{"an underscore", "abc_1"},
		{"an escaped slash", "abc%2Fdef"},
		{"a non-ASCII letter", "pagamento%C3%A9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, h := mustFront(t)
			wantReply(t, put(h, tc.id, payout), http.StatusBadRequest, jsonType, invalidJSON(badID))
			wantReply(t, get(h, tc.id), http.StatusBadRequest, jsonType, invalidJSON(badID))
			wantRequests(t, s, 0, 0)
			if st := s.Stats(); st.Lookups != 0 {
				t.Errorf("Stats().Lookups = %d, want 0", st.Lookups)
			}
		})
	}
}

func TestSendRefusesABodyOutOfTheSchema(t *testing.T) {
	const (
		chave = `"chave":"pagador@pixretry.example"`
		fav   = `"favorecido":{"chave":"pix@example.com"}`
	)
	for _, tc := range []struct{ name, body, erros string }{
		{"not JSON", `{"valor":`, `{"chave":"json","caminho":".body","mensagem":"is not valid JSON, at byte 9"}`},
		{"a repeated member", `{"valor":"1.00","valor":"1.00"}`,
			`{"chave":"json","caminho":".body","mensagem":"is not valid JSON, at byte 16"}`},
		{"invalid UTF-8", "{\"valor\":\"\xff\"}", `{"chave":"json","caminho":".body","mensagem":"is not valid JSON, at byte 10"}`},
		{"an array", `[]`, `{"chave":"type","caminho":".body","mensagem":"must be an object"}`},
		{"null", `null`, `{"chave":"type","caminho":".body","mensagem":"must be an object"}`},
		{"empty", ``, `{"chave":"json","caminho":".body","mensagem":"is not valid JSON, at byte 0"}`},
		{"an empty object", `{}`, `{"chave":"required","caminho":".body.valor","mensagem":"required"},` +
			`{"chave":"required","caminho":".body.pagador","mensagem":"required"},` +
			`{"chave":"required","caminho":".body.favorecido","mensagem":"required"}`},
		{"unknown members", `{"z":1,"valor":"1.00","a":2,"pagador":{` + chave + `,"x":3},"favorecido":{"chave":"pix@example.com","cpf":"12345678901"}}`,
			`{"chave":"additionalProperties","caminho":".body.a","mensagem":"unknown member: .body has valor, pagador, favorecido"},` +
				`{"chave":"additionalProperties","caminho":".body.z","mensagem":"unknown member: .body has valor, pagador, favorecido"},` +
				`{"chave":"additionalProperties","caminho":".body.pagador.x","mensagem":"unknown member: .body.pagador has chave, infoPagador"},` +
				`{"chave":"additionalProperties","caminho":".body.favorecido.cpf","mensagem":"unknown member: .body.favorecido has chave"}`},
		{"ill-typed members", `{"valor":12.34,"pagador":[],"favorecido":"pix@example.com"}`,
			`{"chave":"type","caminho":".body.valor","mensagem":"must be a string"},` +
				`{"chave":"type","caminho":".body.pagador","mensagem":"must be an object"},` +
				`{"chave":"type","caminho":".body.favorecido","mensagem":"must be an object"}`},
		{"ill-typed inner members", `{"valor":"1.00","pagador":{"chave":1,"infoPagador":null},"favorecido":{"chave":true}}`,
			`{"chave":"type","caminho":".body.pagador.chave","mensagem":"must be a string"},` +
				`{"chave":"type","caminho":".body.pagador.infoPagador","mensagem":"must be a string"},` +
				`{"chave":"type","caminho":".body.favorecido.chave","mensagem":"must be a string"}`},
		{"missing inner members", `{"valor":"1.00","pagador":{},"favorecido":{}}`,
			`{"chave":"required","caminho":".body.pagador.chave","mensagem":"required"},` +
				`{"chave":"required","caminho":".body.favorecido.chave","mensagem":"required"}`},
		{"a null member", `{"valor":null,"pagador":{` + chave + `},` + fav + `}`,
			`{"chave":"type","caminho":".body.valor","mensagem":"must be a string"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, h := mustFront(t)
			wantReply(t, put(h, "abc", tc.body), http.StatusBadRequest, jsonType, invalidJSON(tc.erros))
			wantRequests(t, s, 0, 0)
		})
	}
}

func TestSendRefusesAValorOutOfItsFormat(t *testing.T) {
	const erro = `{"chave":"pattern","caminho":".body.valor","mensagem":"must match ^\\d{1,10}\\.\\d{2}$, as in \"12.34\""}`
	for _, valor := range []string{"", "12", "12.3", "12.345", "1,00", "-1.00", " 1.00", "12345678901.00", "1.0a", "١.٠٠"} {
		t.Run(valor, func(t *testing.T) {
			s, h := mustFront(t)
			body := strings.Replace(payout, `"12.34"`, `"`+valor+`"`, 1)
			wantReply(t, put(h, "abc", body), http.StatusBadRequest, jsonType, invalidJSON(erro))
			wantRequests(t, s, 0, 0)
		})
	}
}

// TestSendTakesAValorOf10Digits checks the longest valor: it passes the schema and reaches the
// core, which refuses it for the balance.
func TestSendTakesAValorOf10Digits(t *testing.T) {
	s, h := mustFront(t)
	body := strings.Replace(payout, `"12.34"`, `"1234567890.00"`, 1)
	wantReply(t, put(h, "abc", body), http.StatusUnprocessableEntity, jsonType,
		`{"nome":"pagamento_negado","mensagem":"valor 1234567890.00 exceeds the payer's balance; nothing was paid"}`+"\n")
	wantRequests(t, s, 1, 0)
}

func TestSendRefusesAZeroValor(t *testing.T) {
	for _, valor := range []string{"0.00", "0000000000.00"} {
		s, h := mustFront(t)
		body := strings.Replace(payout, `"12.34"`, `"`+valor+`"`, 1)
		wantReply(t, put(h, "abc", body), http.StatusBadRequest, jsonType,
			`{"nome":"valor_invalido","mensagem":"valor must be greater than zero"}`+"\n")
		wantRequests(t, s, 0, 0)
	}
	_, h := mustFront(t)
	if got := put(h, "abc", strings.Replace(payout, `"12.34"`, `"0.01"`, 1)); got.status != http.StatusCreated {
		t.Errorf("PUT of 0.01 = %d %s, want 201", got.status, got.body)
	}
}

func TestSendRefusesAnotherPayersKey(t *testing.T) {
	s, h := mustFront(t)
	body := strings.Replace(payout, "pagador@pixretry.example", "19974764017", 1)
	wantReply(t, put(h, "abc", body), http.StatusBadRequest, jsonType,
		`{"nome":"chave_invalida","mensagem":"pagador.chave is not a key of the authenticated account, `+
			`whose key is pagador@pixretry.example"}`+"\n")
	wantRequests(t, s, 0, 0)
}

// TestSendRefusesWhatTheCoreRefuses checks the values the core checks: the favorecido's key
// and the length of infoPagador. The core received the request.
func TestSendRefusesWhatTheCoreRefuses(t *testing.T) {
	s, h := mustFront(t)
	body := strings.NewReplacer("pix@example.com", "joão@meuemail.com", "rent", strings.Repeat("é", 141)).Replace(payout)
	wantReply(t, put(h, "abc", body), http.StatusBadRequest, jsonType, invalidJSON(
		`{"chave":"format","caminho":".body.favorecido.chave","mensagem":"must be a Pix key: CPF (11 digits), `+
			`CNPJ (14 digits), phone (+ and up to 15 digits), e-mail (lower case, at most 77 characters) or EVP `+
			`(lower-case UUID)"}`,
		`{"chave":"maxLength","caminho":".body.pagador.infoPagador","mensagem":"must be at most 140 characters"}`))
	wantRequests(t, s, 1, 0)
	body = strings.Replace(payout, "rent", strings.Repeat("é", 140), 1)
	if got := put(h, "abd", body); got.status != http.StatusCreated {
		t.Errorf("PUT with 140 characters of infoPagador = %d %s, want 201", got.status, got.body)
	}
}

func TestSendRefusesABodyTooLarge(t *testing.T) {
	s, h := mustFront(t)
	body := strings.Replace(payout, "rent", strings.Repeat("x", psp.MaxBodyBytes), 1)
	wantReply(t, put(h, "abc", body), http.StatusBadRequest, jsonType,
		invalidJSON(`{"chave":"maxLength","caminho":".body","mensagem":"must be at most 65536 bytes"}`))
	wantRequests(t, s, 0, 0)
}

func TestSendRefusesABodyItCannotRead(t *testing.T) {
	s, h := mustFront(t)
	r := putRequest("abc", "")
	r.Body = io.NopCloser(iotest.ErrReader(errors.New("connection reset")))
	wantReply(t, serve(h, r), http.StatusBadRequest, jsonType,
		invalidJSON(`{"chave":"json","caminho":".body","mensagem":"could not be read"}`))
	wantRequests(t, s, 0, 0)
}
