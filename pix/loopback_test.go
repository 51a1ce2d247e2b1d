package pix_test

// Tests over real loopback TCP (httptest on 127.0.0.1:0), for what only a real transport
// shows: connection reuse, resets, refused connections. None of them waits on a clock.

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

// loopbackFixture serves a real psp, behind a recorder, on 127.0.0.1:0. Its srv is nil.
func loopbackFixture(t *testing.T) (*fixture, *httptest.Server) {
	t.Helper()
	p, err := psp.NewServer(testConfig(psp.Config{}))
	if err != nil {
		t.Fatalf("psp.NewServer() error = %v", err)
	}
	f := &fixture{psp: p, rec: &recorder{next: p}, log: &logRecorder{}}
	ts := httptest.NewServer(f.rec)
	t.Cleanup(ts.Close)
	return f, ts
}

func loopbackClient(f *fixture, ts *httptest.Server, change ...func(*pix.Client)) *pix.Client {
	c := &pix.Client{
		BaseURL: ts.URL, Token: token, HTTPClient: ts.Client(),
		Policy: retry.Policy{AttemptsMax: 1}, Logger: slogOf(f.log),
	}
	for _, ch := range change {
		ch(c)
	}
	return c
}

// TestNoHiddenResendOnAReusedConnection: a lost response on a kept-alive connection shows as
// one PSP request, one attempt, and an unknown outcome, where net/http on its own would have
// resent the request and hidden the failure from the retry budget.
func TestNoHiddenResendOnAReusedConnection(t *testing.T) {
	f, ts := loopbackFixture(t)
	c := loopbackClient(f, ts)
	if _, err := c.Send(t.Context(), payment); err != nil { // leaves a connection in the pool
		t.Fatalf("first Send() error = %v", err)
	}
	f.psp.Inject(psp.Drop())

	_, err := c.SendWithKey(t.Context(), "order-2", payment)

	var unknown *pix.OutcomeUnknownError
	if !errors.As(err, &unknown) || unknown.Attempts != 1 || !errors.Is(err, io.EOF) {
		t.Fatalf("Send() error = %v, want an unknown outcome after 1 attempt, from EOF", err)
	}
	if got := f.rec.requests(); len(got) != 2 || got[1].Key != "order-2" {
		t.Errorf("PSP got %+v, want the first payment and one request for order-2", got)
	}
	if got := len(f.settlementsFor("order-2")); got != 1 {
		t.Errorf("PSP holds %d settlements for order-2, want 1 (drop settles): the outcome was rightly unknown", got)
	}
}

// TestNetHTTPResendsARewindableIdempotentRequest is the control of the test above: it shows
// that its setup does reach the reused-connection path, where net/http resends a request that
// carries an Idempotency-Key and a rewindable body.
func TestNetHTTPResendsARewindableIdempotentRequest(t *testing.T) {
	f, ts := loopbackFixture(t)
	if _, err := loopbackClient(f, ts).Send(t.Context(), payment); err != nil {
		t.Fatalf("Send() error = %v", err)
	}
	f.psp.Inject(psp.Drop())

	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+psp.PaymentsPath,
		bytes.NewReader([]byte(`{"valor":"1.00","chave":"pix@example.com"}`)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Idempotency-Key", "order-3")
	req.Header.Set("Content-Type", "application/json")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatalf("Do() error = %v, want net/http to resend and succeed", err)
	}
	resp.Body.Close()
	if got := len(f.rec.requests()); got != 3 {
		t.Errorf("PSP got %d requests, want 3: the first payment, and order-3 twice", got)
	}
	if resp.StatusCode != http.StatusCreated || resp.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("answer = %d, replayed %q; want a replayed 201", resp.StatusCode, resp.Header.Get("Idempotent-Replayed"))
	}
}

func TestConnectionResetIsRetried(t *testing.T) {
	f, ts := loopbackFixture(t)
	f.psp.Inject(psp.ResetConn())
	c := loopbackClient(f, ts, func(c *pix.Client) { c.Policy = retry.Policy{AttemptsMax: 2} })

	r, err := c.Send(t.Context(), payment)

	if err != nil || r.Attempts != 2 || r.Replayed {
		t.Fatalf("Send() = %+v, %v; want a fresh settlement on attempt 2", r, err)
	}
	if got, want := f.log.all()[0].Attrs["outcome"], "connection reset"; got != want {
		t.Errorf("attempt 1 outcome = %v, want %q", got, want)
	}
}

// TestRefusedConnectionIsNotAnUnknownOutcome: a connection that could not be made carried no
// request, so the PSP cannot hold a settlement.
func TestRefusedConnectionIsNotAnUnknownOutcome(t *testing.T) {
	log := &logRecorder{}
	c := &pix.Client{BaseURL: refusingURL(t), Token: token, HTTPClient: &http.Client{Transport: &http.Transport{}},
		Policy: retry.Policy{AttemptsMax: 2}, Logger: slogOf(log)}

	_, err := c.Send(t.Context(), payment)

	if !errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, pix.ErrOutcomeUnknown) {
		t.Fatalf("Send() error = %v, want connection refused, not an unknown outcome", err)
	}
	records := log.all()
	if len(records) != 3 {
		t.Fatalf("log = %+v, want 2 attempts (refused is transient) and the final record", records)
	}
	if got, want := records[0].Attrs["outcome"], "connection refused"; got != want {
		t.Errorf("attempt 1 outcome = %v, want %q", got, want)
	}
}

// refusingURL is the URL of a loopback port where nothing listens: connections to it are
// refused.
func refusingURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}
