package main

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"

	"pixretry/pix"
	"pixretry/psp"
)

// The in-process PSP listens on a real loopback port with its control API, accepts the token
// it was given, and stops cleanly. (Real sockets: no synctest bubble, and nothing here waits
// on a clock.)
func TestLocalPSPOverLoopback(t *testing.T) {
	local, err := startLocalPSP("demo-token")
	if err != nil {
		t.Fatalf("startLocalPSP() error = %v", err)
	}
	if !strings.HasPrefix(local.URL, "http://127.0.0.1:") {
		t.Errorf("URL = %q, want http://127.0.0.1:PORT", local.URL)
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport}
	ctl := control{baseURL: local.URL, token: "demo-token", client: client}
	if got, err := ctl.balanceCents(t.Context()); err != nil || got != 100000 {
		t.Errorf("balanceCents() = %d, %v; want 100000, nil", got, err)
	}
	payer := &pix.Client{BaseURL: local.URL, Token: "demo-token", HTTPClient: client, Policy: policy}
	if _, err := payer.Send(t.Context(), pix.Payment{AmountCents: 100, PixKey: "maria@example.com"}); err != nil {
		t.Errorf("Send() with the PSP's token error = %v", err)
	}
	payer.Token = "test-token"
	if _, err := payer.Send(t.Context(), pix.Payment{AmountCents: 100, PixKey: "maria@example.com"}); err == nil {
		t.Error("Send() with another token error = nil, want 401")
	}

	if err := local.stop(); err != nil {
		t.Errorf("stop() error = %v", err)
	}
	transport.CloseIdleConnections()
	if _, err := ctl.balanceCents(t.Context()); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("balanceCents() after stop error = %v, want connection refused", err)
	}
}

// `make demo` itself: run with no flags, against the in-process PSP over real loopback. This
// is the one test that spends real time (about half a second of the demo's own backoff and
// attempt timeouts); the timing cannot decide its verdict, because every fault is sized with
// a wide margin against the policy (see TestFaultsAreSizedAgainstThePolicy).
func TestRunOverLoopback(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), nil, &stdout, &stderr); err != nil {
		t.Fatalf("run() error = %v\nstderr:\n%s\nstdout:\n%s", err, stderr.String(), stdout.String())
	}
	if got, want := lastLine(stdout.String()), "PSP recorded 3 settlements for 3 successful payments"; got != want {
		t.Errorf("last line = %q, want %q", got, want)
	}
	if !strings.Contains(stdout.String(), "against an in-process PSP (seed 1)") {
		t.Errorf("stdout does not name the in-process PSP and seed 1:\n%s", stdout.String())
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr = %q, want nothing", stderr.String())
	}
}

// A run against a PSP that cannot be driven says so on stderr and exits 1.
func TestRunReportsAFailure(t *testing.T) {
	srv, err := psp.NewServer(psp.DefaultConfig()) // no control API
	if err != nil {
		t.Fatalf("psp.NewServer() error = %v", err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	var stdout, stderr bytes.Buffer
	err = run(t.Context(), []string{"-psp", ts.URL + "/"}, &stdout, &stderr)
	if got, want := exitCode(err), 1; got != want {
		t.Errorf("exitCode(run()) = %d (error %v), want %d", got, err, want)
	}
	if want := "demo FAILED:\ndemo: POST /_psp/reset: status 404, want 204"; !strings.HasPrefix(stderr.String(), want) {
		t.Errorf("stderr = %q, want it to start %q", stderr.String(), want)
	}
}
