package main

import (
	"strings"
	"testing"

	"pixretry/psp"
	"pixretry/psp/control"
)

// TestPSPServesItsOpenAPIDocument: psp serves the OpenAPI document without the control token,
// and net/http's own answer to an Expect it does not know, 417, is the document's too (the
// client of mustStart checks every answer against it).
func TestPSPServesItsOpenAPIDocument(t *testing.T) {
	s := mustStart(t, "-tokens", "smoke", "-control-token", "ctl")
	if status, body := s.do(t, "GET", control.OpenAPIPath, "", nil); status != 200 || !strings.Contains(body, `"openapi": "3.1.0"`) {
		t.Errorf("GET %s = %d %.40q, want 200 and the document", control.OpenAPIPath, status, body)
	}
	if got := s.send(t, "POST", psp.PaymentsPath, payment, "Expect", "a pony"); got != 417 {
		t.Errorf("POST with Expect: a pony = %d, want 417", got)
	}
	if err := s.stop(); err != nil {
		t.Errorf("run() = %v, want nil", err)
	}
}
