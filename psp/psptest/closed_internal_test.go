package psptest

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"pixretry/psp"
)

// A request that a connection read just before Close must not reach the double once Close
// waits: it gets 503 and the handler count is left alone.
func TestRequestDuringCloseIsRefused(t *testing.T) {
	s, err := NewServer(psp.DefaultConfig())
	if err != nil {
		t.Fatalf("NewServer() error = %v", err)
	}
	reached := false
	h := s.counted(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached = true }))
	s.Close()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, psp.PaymentsPath, nil))
	if rec.Code != http.StatusServiceUnavailable || reached {
		t.Errorf("after Close: status %d, reached the double %t; want 503 and false", rec.Code, reached)
	}
}
