package psp_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
)

func TestPaymentSettles(t *testing.T) {
	s := mustServer(t)
	a := pay(s, "k1", validBody)
	got := wantSettled(t, a)

	if ct := a.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	if k := a.header.Get(psp.IdempotencyKeyHeader); k != "k1" {
		t.Errorf("%s = %q, want the key echoed", psp.IdempotencyKeyHeader, k)
	}
	if cl := a.header.Get("Content-Length"); cl != strconv.Itoa(len(a.body)) {
		t.Errorf("Content-Length = %q, want %d", cl, len(a.body))
	}
	ledger := s.Settlements()
	if len(ledger) != 1 {
		t.Fatalf("Settlements() has %d entries, want 1", len(ledger))
	}
	settledAt := ledger[0].SettledAt
	want := receipt{
		EndToEndID:  ledger[0].EndToEndID,
		Valor:       "150.00",
		Chave:       "pix@example.com",
		InfoPagador: "rent",
		Status:      "REALIZADO",
		Horario:     settledAt.Format(time.RFC3339Nano),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("receipt mismatch (-want +got):\n%s", diff)
	}
	wantLedger := []psp.Settlement{{
		Token: token, IdempotencyKey: "k1", EndToEndID: got.EndToEndID, AmountCents: 15000,
		PixKey: "pix@example.com", Description: "rent", SettledAt: settledAt,
	}}
	if diff := cmp.Diff(wantLedger, ledger); diff != "" {
		t.Errorf("Settlements() mismatch (-want +got):\n%s", diff)
	}
	if settledAt.Location() != time.UTC || time.Since(settledAt) < 0 || time.Since(settledAt) > time.Minute {
		t.Errorf("SettledAt = %v, want a recent UTC time", settledAt)
	}
	wantEndToEndID(t, got.EndToEndID, "12345678", settledAt)
	if got, want := s.Stats().BalanceCents, int64(100000-15000); got != want {
		t.Errorf("Stats().BalanceCents = %d, want %d", got, want)
	}
}

var endToEndPattern = regexp.MustCompile(`^E(\d{8})(\d{12})[0-9a-z]{11}$`)

// wantEndToEndID checks id's shape: E, the ISPB, the settlement minute in UTC, 11 alphanumerics.
func wantEndToEndID(tb testing.TB, id, ispb string, settledAt time.Time) {
	tb.Helper()
	m := endToEndPattern.FindStringSubmatch(id)
	if len(id) != 32 || m == nil || m[1] != ispb || m[2] != settledAt.UTC().Format("200601021504") {
		tb.Errorf("endToEndId = %q, want E + %s + %s + 11 alphanumerics (32 characters)",
			id, ispb, settledAt.UTC().Format("200601021504"))
	}
}

func TestEndToEndIDsAreUniqueAcrossServersAndResets(t *testing.T) {
	a := mustServer(t)
	b := mustServer(t, func(c *psp.Config) { c.ISPB = "87654321" })
	seen := map[string]bool{}
	for round := range 3 {
		for i := range 50 {
			for _, s := range []*psp.Server{a, b} {
				id := wantSettled(t, pay(s, fmt.Sprint("k", i), `{"valor":"1.00","chave":"pix@example.com"}`)).EndToEndID
				if seen[id[9:]] {
					t.Fatalf("round %d: endToEndId suffix of %s seen before", round, id)
				}
				seen[id[9:]] = true
			}
		}
		a.Reset()
		b.Reset()
	}
	ledger := b.Settlements()
	if len(ledger) != 0 {
		t.Fatalf("Settlements() after Reset has %d entries, want 0", len(ledger))
	}
	id := wantSettled(t, pay(b, "k", `{"valor":"1.00","chave":"pix@example.com"}`)).EndToEndID
	wantEndToEndID(t, id, "87654321", b.Settlements()[0].SettledAt)
}

func TestAcceptedEdgeCases(t *testing.T) {
	long := strings.Repeat("ç", 140)
	tests := []struct {
		name  string
		edit  func(*http.Request)
		body  string
		valor string // as echoed
		cents int64
	}{
		{name: "one-character key", edit: setHeader(psp.IdempotencyKeyHeader, "!")},
		{name: "255-character key", edit: setHeader(psp.IdempotencyKeyHeader, strings.Repeat("~", 255))},
		{name: "quoted key", edit: setHeader(psp.IdempotencyKeyHeader, `"abc"`)},
		{name: "quoted key with escapes", edit: setHeader(psp.IdempotencyKeyHeader, `"a\"b\\c"`)},
		{name: "lower-case bearer", edit: setHeader("Authorization", "bearer "+token)},
		{name: "spaces after the scheme", edit: setHeader("Authorization", "Bearer   "+token)},
		{name: "charset utf-8", edit: setHeader("Content-Type", "application/json; charset=utf-8")},
		{name: "charset UTF-8", edit: setHeader("Content-Type", "Application/JSON; charset=UTF-8")},
		{name: "other media type parameter", edit: setHeader("Content-Type", "application/json; q=1")},
		{name: "body of exactly 64 KiB", body: padTo(validBody, psp.MaxBodyBytes)},
		{name: "140-character infoPagador", body: `{"valor":"150.00","chave":"pix@example.com","infoPagador":"` + long + `"}`},
		{name: "no infoPagador", body: `{"chave":"pix@example.com","valor":"150.00"}`},
		{name: "leading zeros", body: `{"valor":"0150.00","chave":"pix@example.com"}`},
		{name: "smallest amount", body: `{"valor":"0.01","chave":"pix@example.com"}`, valor: "0.01", cents: 1},
		{name: "whitespace around the object", body: " \n\t" + validBody + "\r\n "},
		{name: "whitespace between every token", body: "{ \"valor\" : \"150.00\" ,\n\t\"chave\"\t:\r\n\"pix@example.com\" }"},
		{name: "escaped member names", body: `{"val\u006fr":"150.00","\u0063have":"pix@example.com"}`},
		{name: "CPF key", body: `{"valor":"150.00","chave":"12345678901"}`},
		{name: "CNPJ key", body: `{"valor":"150.00","chave":"12345678000195"}`},
		{name: "phone key", body: `{"valor":"150.00","chave":"+5511987654321"}`},
		{name: "EVP key", body: `{"valor":"150.00","chave":"123e4567-e89b-12d3-a456-426614174000"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustServer(t)
			body := cmpOr(tt.body, validBody)
			r := paymentRequest("key", body)
			if tt.edit != nil {
				tt.edit(r)
			}
			got := wantSettled(t, serve(s, r))
			valor, cents := cmpOr(tt.valor, "150.00"), cmpOr(tt.cents, 15000)
			if got.Valor != valor {
				t.Errorf("valor = %q, want %q", got.Valor, valor)
			}
			if b := s.Stats().BalanceCents; b != 100000-cents {
				t.Errorf("Stats().BalanceCents = %d, want %d", b, 100000-cents)
			}
		})
	}
}

func cmpOr[T comparable](v, fallback T) T {
	var zero T
	if v == zero {
		return fallback
	}
	return v
}

func setHeader(name, value string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Set(name, value) }
}

// padTo pads a JSON body with trailing spaces to n bytes.
func padTo(body string, n int) string { return body + strings.Repeat(" ", n-len(body)) }

func TestRouting(t *testing.T) {
	s := mustServer(t)
	tests := []struct {
		method, path string
		status       int
		code, allow  string
	}{
		{http.MethodPut, psp.PaymentsPath, 405, "method_not_allowed", "GET, POST"},
		{http.MethodDelete, psp.PaymentsPath, 405, "method_not_allowed", "GET, POST"},
		{http.MethodHead, psp.PaymentsPath, 405, "method_not_allowed", "GET, POST"},
		{http.MethodPost, "/v1/pix/payments/", 404, "not_found", ""},
		{http.MethodPost, "/", 404, "not_found", ""},
		{http.MethodGet, "/_psp/balance", 404, "not_found", ""}, // the control API is package control's
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			a := serve(s, httptest.NewRequest(tt.method, tt.path, nil))
			wantProblem(t, a, tt.status, tt.code)
			if got := a.header.Get("Allow"); got != tt.allow {
				t.Errorf("Allow = %q, want %q", got, tt.allow)
			}
		})
	}
}
