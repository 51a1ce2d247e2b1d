package efi_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/pix"
)

// foundBody is a lookup's 200 as the page shows one, with the status, motivo and horario given.
func foundBody(status, motivo, horario string) string {
	return `{"endToEndId":"` + e2eID + `","idEnvio":"abc123","valor":"150.00","chave":"` + payerKey +
		`","status":"` + status + `","motivo":"` + motivo + `","infoPagador":"aluguel","horario":` + horario +
		`,"favorecido":{"chave":"pix@example.com","identificacao":{"nome":"Francisco da Silva"}}}`
}

// Horarios of a lookup: one asked for at, and one settled a second later.
const (
	asked   = `{"solicitacao":"2024-01-02T15:04:05.678Z"}`
	settled = `{"solicitacao":"2024-01-02T15:04:05.678Z","liquidacao":"2024-01-02T15:04:06.678Z"}`
)

// TestSeenReadsA200: a lookup's 200 says the payment is pending (since solicitacao), settled
// (at liquidacao) or rejected (with its motivo), and who it paid how much.
func TestSeenReadsA200(t *testing.T) {
	base := pix.Found{EndToEndID: e2eID, AmountCents: 15000, PixKey: "pix@example.com", Description: "aluguel", At: at,
		Key: "abc123"}
	tests := []struct {
		name string
		body string
		want func(pix.Found) pix.Found
	}{
		{"pending", foundBody("EM_PROCESSAMENTO", "", asked),
			func(f pix.Found) pix.Found { f.State = pix.Pending; return f }},
		{"settled", foundBody("REALIZADO", "", settled),
			func(f pix.Found) pix.Found { f.State, f.At = pix.Settled, at.Add(time.Second); return f }},
		{"rejected", foundBody("NAO_REALIZADO", "saldo insuficiente", asked),
			func(f pix.Found) pix.Found { f.State, f.Reason = pix.Rejected, "saldo insuficiente"; return f }},
		{"rejected with liquidacao", foundBody("NAO_REALIZADO", "", settled),
			func(f pix.Found) pix.Found { f.State = pix.Rejected; return f }},
		{"payer of another key", strings.Replace(foundBody("EM_PROCESSAMENTO", "", asked), payerKey, "19974764017", 1),
			func(f pix.Found) pix.Found { f.State = pix.Pending; return f }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := dialect.Seen(pix.Answer{Status: http.StatusOK, Body: []byte(tt.body)}, pix.Ref{})
			if err != nil {
				t.Fatalf("Seen() error = %v", err)
			}
			if diff := cmp.Diff(tt.want(base), got); diff != "" {
				t.Errorf("Seen() (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSeenRefusesA200OutsideTheContract: a 200 whose body breaks the contract is a *pix.Error
// of status 200 that wraps ErrContract and says which member.
func TestSeenRefusesA200OutsideTheContract(t *testing.T) {
	const prefix = "pix: PSP answered 200: pix: PSP broke the response contract: efi: "
	good := foundBody("REALIZADO", "", settled)
	tests := []struct {
		name, body, want string
	}{
		{"not JSON", "{", "the lookup's 200 is not the expected JSON: unexpected end of JSON input"},
		{"idEnvio of 36", strings.Replace(good, `"abc123"`, `"`+strings.Repeat("a", 36)+`"`, 1),
			`the lookup's 200 has idEnvio "` + strings.Repeat("a", 36) + `", not 1 to 35 letters and digits`},
		{"payer's chave not a key", strings.Replace(good, payerKey, "pagador", 1),
			`the lookup's 200 has chave "pagador" and favorecido.chave "pix@example.com", not two Pix keys`},
		{"no favorecido", strings.Replace(good, `"favorecido"`, `"recebedor"`, 1),
			`the lookup's 200 has chave "` + payerKey + `" and favorecido.chave "", not two Pix keys`},
		{"favorecido's chave not a key", strings.Replace(good, `"chave":"pix@example.com"`, `"chave":"PIX"`, 1),
			`the lookup's 200 has chave "` + payerKey + `" and favorecido.chave "PIX", not two Pix keys`},
		{"another status", foundBody("DEVOLVIDO", "", settled),
			`the lookup's 200 has status "DEVOLVIDO", want "EM_PROCESSAMENTO", "REALIZADO" or "NAO_REALIZADO"`},
		{"endToEndId short", strings.Replace(good, e2eID, e2eID[1:], 1),
			`endToEndId "` + e2eID[1:] + `" is not E, an ISPB, yyyyMMddHHmm and 11 letters and digits`},
		{"endToEndId at 24:00", strings.Replace(good, "202401021504", "202401022400", 1),
			`endToEndId "E12345678202401022400abcdefghijk" holds no real time`},
		{"valor with a comma", strings.Replace(good, `"150.00"`, `"150,00"`, 1),
			`valor "150,00" is not an amount such as "150.00"`},
		{"settled without liquidacao", foundBody("REALIZADO", "", asked),
			`horario.liquidacao "" is not an RFC 3339 time`},
		{"pending without solicitacao", foundBody("EM_PROCESSAMENTO", "", `{"liquidacao":"2024-01-02T15:04:06Z"}`),
			`horario.solicitacao "" is not an RFC 3339 time`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := dialect.Seen(pix.Answer{Status: http.StatusOK, Body: []byte(tt.body)}, pix.Ref{})
			e, ok := errors.AsType[*pix.Error](err)
			if !ok || e.Status != http.StatusOK || !errors.Is(err, pix.ErrContract) || err.Error() != prefix+tt.want {
				t.Errorf("Seen() error = %v, want a *pix.Error of 200 wrapping ErrContract: %q", err, prefix+tt.want)
			}
		})
	}
}

// TestSeenRefusesAnother2xx: a lookup answered with a 2xx other than 200, such as a 202, breaks
// the contract whatever its body.
func TestSeenRefusesAnother2xx(t *testing.T) {
	_, err := dialect.Seen(pix.Answer{Status: http.StatusAccepted, Body: []byte(foundBody("EM_PROCESSAMENTO", "", asked))},
		pix.Ref{})
	if e, ok := errors.AsType[*pix.Error](err); !ok || e.Status != http.StatusAccepted || !errors.Is(err, pix.ErrContract) {
		t.Errorf("Seen() of a 202 error = %v, want a *pix.Error of 202 matching ErrContract", err)
	}
}
