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

// payment is the payment the tests pay, R$ 150.00 with a message.
var payment = pix.Payment{AmountCents: 15000, PixKey: "pix@example.com", Description: "aluguel"}

// e2eID is an endToEndId of the ISPB 12345678, made 2024-01-02 15:04.
const e2eID = "E12345678202401021504abcdefghijk"

// sentBody is a 201 as the page shows one, with valor, status and the idEnvio as given.
func sentBody(idEnvio, valor, status string) string {
	return `{"idEnvio":"` + idEnvio + `","e2eId":"` + e2eID + `","valor":"` + valor +
		`","horario":{"solicitacao":"2024-01-02T15:04:05.678Z"},"status":"` + status + `"}`
}

// at is the solicitacao of sentBody.
var at = time.Date(2024, 1, 2, 15, 4, 5, 678_000_000, time.UTC)

// TestPaidReadsA201: a 201 EM_PROCESSAMENTO is pending, and a 201 REALIZADO a replayed
// settlement. The payee is the payment's, which the 201 does not name.
func TestPaidReadsA201(t *testing.T) {
	tests := []struct {
		name string
		body string
		want pix.Found
	}{
		{
			name: "pending",
			body: sentBody("abc123", "150.00", "EM_PROCESSAMENTO"),
			want: pix.Found{State: pix.Pending, EndToEndID: e2eID, AmountCents: 15000, PixKey: payment.PixKey, At: at,
				Key: "abc123"},
		},
		{
			name: "settled, replayed",
			body: sentBody(strings.Repeat("9", 35), "150.00", "REALIZADO"),
			want: pix.Found{State: pix.Settled, EndToEndID: e2eID, AmountCents: 15000, PixKey: payment.PixKey, At: at,
				Replayed: true, Key: strings.Repeat("9", 35)},
		},
		{
			name: "members the page adds later are ignored",
			body: `{"novo":1,` + sentBody("a", "150.00", "EM_PROCESSAMENTO")[1:],
			want: pix.Found{State: pix.Pending, EndToEndID: e2eID, AmountCents: 15000, PixKey: payment.PixKey, At: at,
				Key: "a"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := dialect.Paid(pix.Answer{Status: http.StatusCreated, Body: []byte(tt.body)}, payment)
			if err != nil {
				t.Fatalf("Paid() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Paid() (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPaidRefusesA201OutsideTheContract: a 201 whose body breaks the contract, or that is for
// another valor, is a *pix.Error of status 201 that wraps ErrContract and says which member.
func TestPaidRefusesA201OutsideTheContract(t *testing.T) {
	const prefix = "pix: PSP answered 201: pix: PSP broke the response contract: efi: "
	good := sentBody("abc123", "150.00", "EM_PROCESSAMENTO")
	tests := []struct {
		name, body, want string
	}{
		{"not JSON", "<html>", "the 201 is not the expected JSON: invalid character '<' looking for beginning of value"},
		{"not an object", `[]`, "the 201 is not the expected JSON: json: cannot unmarshal array into Go value of type efi.sent"},
		{"no idEnvio", strings.Replace(good, `"idEnvio":"abc123"`, `"x":""`, 1),
			`the 201 has idEnvio "", not 1 to 35 letters and digits`},
		{"idEnvio of 36", sentBody(strings.Repeat("a", 36), "150.00", "EM_PROCESSAMENTO"),
			`the 201 has idEnvio "` + strings.Repeat("a", 36) + `", not 1 to 35 letters and digits`},
		{"NAO_REALIZADO", sentBody("abc123", "150.00", "NAO_REALIZADO"),
			`the 201 has status "NAO_REALIZADO", want "EM_PROCESSAMENTO" or "REALIZADO"`},
		{"no status", strings.Replace(good, `"status"`, `"estado"`, 1),
			`the 201 has status "", want "EM_PROCESSAMENTO" or "REALIZADO"`},
		{"e2eId short", strings.Replace(good, e2eID, e2eID[:31], 1),
			`e2eId "` + e2eID[:31] + `" is not E, an ISPB, yyyyMMddHHmm and 11 letters and digits`},
		{"e2eId of month 13", strings.Replace(good, "202401021504", "202413021504", 1),
			`e2eId "E12345678202413021504abcdefghijk" holds no real time`},
		{"e2eId as endToEndId", strings.Replace(good, `"e2eId"`, `"endToEndId"`, 1),
			`e2eId "" is not E, an ISPB, yyyyMMddHHmm and 11 letters and digits`},
		{"valor without centavos", sentBody("abc123", "150", "EM_PROCESSAMENTO"),
			`valor "150" is not an amount such as "150.00"`},
		{"valor of three decimals", sentBody("abc123", "150.000", "EM_PROCESSAMENTO"),
			`valor "150.000" is not an amount such as "150.00"`},
		{"valor of 11 digits", sentBody("abc123", "12345678901.00", "EM_PROCESSAMENTO"),
			`valor "12345678901.00" is not an amount such as "150.00"`},
		{"valor zero", sentBody("abc123", "0.00", "EM_PROCESSAMENTO"), `valor is "0.00"`},
		{"another valor", sentBody("abc123", "150.01", "EM_PROCESSAMENTO"),
			`the 201 is for valor "150.01", not the "150.00" sent`},
		{"no horario", strings.Replace(good, `"solicitacao"`, `"criacao"`, 1),
			`horario.solicitacao "" is not an RFC 3339 time`},
		{"horario without a zone", strings.Replace(good, ".678Z", ".678", 1),
			`horario.solicitacao "2024-01-02T15:04:05.678" is not an RFC 3339 time`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := dialect.Paid(pix.Answer{Status: http.StatusCreated, Body: []byte(tt.body)}, payment)
			e, ok := errors.AsType[*pix.Error](err)
			if !ok || e.Status != http.StatusCreated || !errors.Is(err, pix.ErrContract) || err.Error() != prefix+tt.want {
				t.Errorf("Paid() error = %v, want a *pix.Error of 201 wrapping ErrContract: %q", err, prefix+tt.want)
			}
		})
	}
}

// TestPaidReadsAValorToTheCentavo: valor is read to the centavo, up to ten digits of reais.
func TestPaidReadsAValorToTheCentavo(t *testing.T) {
	for valor, cents := range map[string]int64{"0.01": 1, "0.10": 10, "1.00": 100, "9999999999.99": 999_999_999_999,
		"0000000001.50": 150} {
		p := pix.Payment{AmountCents: cents, PixKey: payment.PixKey}
		got, err := dialect.Paid(pix.Answer{Status: http.StatusCreated,
			Body: []byte(sentBody("abc123", valor, "EM_PROCESSAMENTO"))}, p)
		if err != nil || got.AmountCents != cents {
			t.Errorf("Paid() of valor %q = %d cents, %v; want %d", valor, got.AmountCents, err, cents)
		}
	}
}
