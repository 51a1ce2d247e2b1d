package pix

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
	"pixretry/retry"
)

// TestNilHTTPClientUsesTheSharedDefault pays over loopback with the default client and checks
// the settings its documentation promises.
func TestNilHTTPClientUsesTheSharedDefault(t *testing.T) {
	bank, err := psp.NewServer(psp.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(bank)
	defer ts.Close()
	defer defaultHTTPClient().CloseIdleConnections()
	c := &Client{BaseURL: ts.URL, Token: psp.DefaultToken, Policy: retry.Policy{AttemptsMax: 1}}

	if _, err := c.Send(t.Context(), Payment{AmountCents: 100, PixKey: "pix@example.com"}); err != nil {
		t.Fatalf("Send() error = %v", err)
	}
	if got := len(bank.Settlements()); got != 1 {
		t.Errorf("PSP holds %d settlements, want 1", got)
	}
	first := defaultHTTPClient()
	if second := defaultHTTPClient(); second != first {
		t.Errorf("defaultHTTPClient() returned %p then %p, want one shared pool", first, second)
	}

	type settings struct {
		DialTimeout, KeepAlive, IdleConnTimeout, TLSHandshakeTimeout time.Duration
		ResponseHeaderTimeout, ExpectContinueTimeout, ClientTimeout  time.Duration
		MaxIdleConns, MaxIdleConnsPerHost                            int
		HTTP2, Proxy                                                 bool
	}
	tr := defaultHTTPClient().Transport.(*http.Transport)
	got := settings{
		DialTimeout: newDefaultDialer().Timeout, KeepAlive: newDefaultDialer().KeepAlive,
		IdleConnTimeout: tr.IdleConnTimeout, TLSHandshakeTimeout: tr.TLSHandshakeTimeout,
		ResponseHeaderTimeout: tr.ResponseHeaderTimeout, ExpectContinueTimeout: tr.ExpectContinueTimeout,
		ClientTimeout: defaultHTTPClient().Timeout,
		MaxIdleConns:  tr.MaxIdleConns, MaxIdleConnsPerHost: tr.MaxIdleConnsPerHost,
		HTTP2: tr.ForceAttemptHTTP2, Proxy: tr.Proxy != nil,
	}
	want := settings{
		DialTimeout: 10 * time.Second, KeepAlive: 30 * time.Second,
		IdleConnTimeout: 30 * time.Second, TLSHandshakeTimeout: 10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second, ExpectContinueTimeout: time.Second,
		MaxIdleConns: 100, MaxIdleConnsPerHost: 16, HTTP2: true, Proxy: true,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("default client settings mismatch (-want +got):\n%s", diff)
	}
}
