package control_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"pixretry/internal/openapitest"
	"pixretry/psp"
	"pixretry/psp/control"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(openapitest.Main(m)) }

const (
	token     = psp.DefaultToken
	validBody = `{"valor":"150.00","chave":"pix@example.com","infoPagador":"rent"}`
)

// bank is a psp.Server behind its control API: requests go through the control handler, and
// checks read the Server. Its answers that the OpenAPI document does not describe fail the test
// that made it (openapitest.Handler).
type bank struct {
	*psp.Server
	handler http.Handler
}

func (b bank) ServeHTTP(w http.ResponseWriter, r *http.Request) { b.handler.ServeHTTP(w, r) }

// mustBank is a Server of DefaultConfig behind a control handler whose Options edits make.
func mustBank(tb testing.TB, edits ...func(*control.Options)) bank {
	tb.Helper()
	var opts control.Options
	for _, edit := range edits {
		edit(&opts)
	}
	s := mustServer(tb)
	h, err := control.NewHandler(s, opts)
	if err != nil {
		tb.Fatalf("NewHandler() error = %v", err)
	}
	return bank{s, openapitest.Handler(tb, h, s)}
}

// mustServer is a Server of DefaultConfig, without the control API.
func mustServer(tb testing.TB) *psp.Server {
	tb.Helper()
	s, err := psp.NewServer(psp.DefaultConfig())
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

// serve runs r through h in process.
func serve(h http.Handler, r *http.Request) answer {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return answer{rec.Code, rec.Header(), rec.Body.String()}
}

// pay sends a valid payment with key and body.
func pay(h http.Handler, key, body string) answer { return serve(h, paymentRequest(key, body)) }

// lookUp sends a status lookup of key.
func lookUp(h http.Handler, key string) answer {
	r := httptest.NewRequest(http.MethodGet, psp.PaymentsPath+"?"+url.Values{psp.LookupParam: {key}}.Encode(), nil)
	r.Header.Set("Authorization", "Bearer "+token)
	return serve(h, r)
}

// roundTripper is an http.RoundTripper made of a function.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// inProcess is a transport that serves every request with h, in process.
func inProcess(h http.Handler) roundTripper {
	return func(r *http.Request) (*http.Response, error) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec.Result(), nil
	}
}

// wantProblem checks that a is a problem+json answer with status and code, and returns it.
func wantProblem(tb testing.TB, a answer, status int, code string) psp.Problem {
	tb.Helper()
	if a.status != status || a.header.Get("Content-Type") != "application/problem+json" {
		tb.Fatalf("answer = %d %s %s, want %d application/problem+json", a.status, a.header.Get("Content-Type"), a.body, status)
	}
	var p psp.Problem
	if err := json.Unmarshal([]byte(a.body), &p, json.RejectUnknownMembers(true)); err != nil {
		tb.Fatalf("decoding the problem %s: %v", a.body, err)
	}
	if p.Code != code || p.Status != status || p.Title != http.StatusText(status) ||
		p.Type != "urn:pixretry:psp:problem:"+code || p.Detail == "" {
		tb.Errorf("problem = %+v, want code %q, status %d, its title and type, a detail", p, code, status)
	}
	return p
}

// wantSettled checks that a is a fresh 201.
func wantSettled(tb testing.TB, a answer) {
	tb.Helper()
	if a.status != http.StatusCreated || a.header.Get("Idempotent-Replayed") != "" {
		tb.Fatalf("answer = %d %v %s, want a fresh 201", a.status, a.header, a.body)
	}
}

// wantViolations compares violations.
func wantViolations(tb testing.TB, got, want []psp.Violation) {
	tb.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		tb.Errorf("violacoes mismatch (-want +got):\n%s", diff)
	}
}

// wantJSONWords checks that err speaks of the JSON a client wrote, never of the Go that reads
// it: no Go type, no package, no struct.
func wantJSONWords(tb testing.TB, err error) {
	tb.Helper()
	for _, goWord := range []string{"Go ", "control.", "struct", "jsontext", "json: cannot"} {
		if err != nil && strings.Contains(err.Error(), goWord) {
			tb.Errorf("error %q names %q, want only the words of the JSON", err, goWord)
		}
	}
}

// drops is n drop faults.
func drops(n int) []psp.Fault {
	faults := make([]psp.Fault, n)
	for i := range faults {
		faults[i] = psp.Drop()
	}
	return faults
}
