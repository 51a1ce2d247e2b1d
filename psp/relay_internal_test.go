package psp

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestCatcherTakesABodyWithoutAStatusAs200: as net/http does, a Write before any WriteHeader
// sends 200, and a later WriteHeader changes nothing.
func TestCatcherTakesABodyWithoutAStatusAs200(t *testing.T) {
	c := &catcher{w: httptest.NewRecorder(), header: http.Header{}}
	c.Write([]byte("ab"))
	c.WriteHeader(http.StatusTeapot)
	c.Write([]byte("c"))
	if c.status != http.StatusOK || c.body.String() != "abc" {
		t.Errorf("catcher = %d %q, want 200 %q", c.status, c.body.String(), "abc")
	}
}
