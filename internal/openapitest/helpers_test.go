package openapitest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"pixretry/psp"
	"pixretry/psp/control"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	payment = `{"valor":"150.00","chave":"pix@example.com"}`
	receipt = `{"endToEndId":"E12345678202401021504000000000ab","valor":"150.00","chave":"pix@example.com",` +
		`"status":"REALIZADO","horario":"2024-01-02T15:04:05.5Z"}`
)

// failures is a TB that keeps what it is told to fail with.
type failures struct {
	mu   sync.Mutex
	msgs []string
}

func (f *failures) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.msgs = append(f.msgs, fmt.Sprintf(format, args...))
}

// mustDouble is a Server of DefaultConfig changed by edit, behind its control API.
func mustDouble(tb testing.TB, edits ...func(*psp.Config)) (*psp.Server, http.Handler) {
	tb.Helper()
	cfg := psp.DefaultConfig()
	for _, edit := range edits {
		edit(&cfg)
	}
	s, err := psp.NewServer(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	h, err := control.NewHandler(s, control.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return s, h
}

// request is method target with body, a payment's header fields and key.
func request(method, target, key, body string) *http.Request {
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	r.Header.Set("Authorization", "Bearer "+psp.DefaultToken)
	r.Header.Set("Content-Type", "application/json")
	if key != "" {
		r.Header.Set(psp.IdempotencyKeyHeader, key)
	}
	return r
}

// serve sends r through h and returns the status.
func serve(h http.Handler, r *http.Request) int {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec.Code
}

// answering is a handler that writes status, header fields in pairs (name, value) and body.
func answering(status int, body string, fields ...string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i < len(fields); i += 2 {
			w.Header().Set(fields[i], fields[i+1])
		}
		w.WriteHeader(status)
		w.Write([]byte(body))
	})
}

// countOf is how many answers this test binary has counted in r, Answers aside.
func countOf(r row) int {
	counts.Lock()
	defer counts.Unlock()
	return counts.rows[r]
}

// serveAborted sends r through h, which may abort: it then reports true.
func serveAborted(h http.Handler, r *http.Request) (status int, aborted bool) {
	defer func() {
		if p := recover(); p != nil {
			if p != http.ErrAbortHandler {
				panic(p)
			}
			aborted = true
		}
	}()
	return serve(h, r), false
}

// inProcess is a transport that serves every request with h, in process.
func inProcess(h http.Handler) http.RoundTripper {
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec.Result(), nil
	})
}

// tests is a test binary's tests, for Main.
type tests func() int

func (run tests) Run() int { return run() }
