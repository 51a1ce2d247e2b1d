package psp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"pixretry/psp"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	token     = psp.DefaultToken
	validBody = `{"valor":"150.00","chave":"pix@example.com","infoPagador":"rent"}`
)

// mustServer returns a Server made from DefaultConfig changed by edits.
func mustServer(tb testing.TB, edits ...func(*psp.Config)) *psp.Server {
	tb.Helper()
	cfg := psp.DefaultConfig()
	for _, edit := range edits {
		edit(&cfg)
	}
	s, err := psp.NewServer(cfg)
	if err != nil {
		tb.Fatalf("NewServer() error = %v", err)
	}
	return s
}

// paymentRequest is a valid POST /v1/pix/payments with key and body; edit it before sending.
func paymentRequest(key, body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, psp.PaymentsPath, strings.NewReader(body))
	r.Header.Set("Authorization", "Bearer "+token)
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(psp.IdempotencyKeyHeader, key)
	return r
}

// answer is a response read whole.
type answer struct {
	status int
	header http.Header
	body   string
}

// serve runs r through h in process, checked if h is a Server that mustServer made.
func serve(h http.Handler, r *http.Request) answer {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return answer{rec.Code, rec.Header(), rec.Body.String()}
}

// pay sends a valid payment with key and body.
func pay(h http.Handler, key, body string) answer { return serve(h, paymentRequest(key, body)) }

// readAnswer reads resp whole and closes its body.
func readAnswer(tb testing.TB, resp *http.Response) answer {
	tb.Helper()
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatalf("reading the body: %v", err)
	}
	return answer{resp.StatusCode, resp.Header, string(body)}
}

// receipt is the body of a 201.
type receipt struct {
	EndToEndID  string `json:"endToEndId"`
	Valor       string `json:"valor"`
	Chave       string `json:"chave"`
	InfoPagador string `json:"infoPagador"`
	Status      string `json:"status"`
	Horario     string `json:"horario"`
}

// mustDecode decodes a JSON body strictly into a T.
func mustDecode[T any](tb testing.TB, body string) T {
	tb.Helper()
	var v T
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		tb.Fatalf("decoding %T from %q: %v", v, body, err)
	}
	return v
}

// wantProblem checks that a is a problem+json answer with status and code, and returns it.
func wantProblem(tb testing.TB, a answer, status int, code string) psp.Problem {
	tb.Helper()
	if a.status != status {
		tb.Fatalf("status = %d, want %d (body %s)", a.status, status, a.body)
	}
	if got, want := a.header.Get("Content-Type"), "application/problem+json"; got != want {
		tb.Errorf("Content-Type = %q, want %q", got, want)
	}
	p := mustDecode[psp.Problem](tb, a.body)
	if p.Code != code || p.Status != status || p.Title != http.StatusText(status) ||
		p.Type != "urn:pixretry:psp:problem:"+code || p.Detail == "" {
		tb.Errorf("problem = %+v, want code %q, status %d, its title and type, a detail", p, code, status)
	}
	return p
}

// wantSettled checks that a is a fresh (not replayed) 201 and returns its receipt.
func wantSettled(tb testing.TB, a answer) receipt {
	tb.Helper()
	if a.status != http.StatusCreated {
		tb.Fatalf("status = %d, want 201 (body %s)", a.status, a.body)
	}
	if got := a.header.Get("Idempotent-Replayed"); got != "" {
		tb.Errorf("%s = %q on a first answer, want none", "Idempotent-Replayed", got)
	}
	return mustDecode[receipt](tb, a.body)
}

func itoa(i int) string { return strconv.Itoa(i) }
