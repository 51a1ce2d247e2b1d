package psp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"pixretry/psp"
)

// mustLoopback serves s on 127.0.0.1:0 until the test ends, with a client that opens a
// connection per request (so net/http cannot silently resend a payment) and gives up after
// 10 s of wall time: a bound for a broken build, never reached by a passing test.
func mustLoopback(tb testing.TB, s *psp.Server) (*httptest.Server, *http.Client) {
	srv := httptest.NewServer(s)
	tb.Cleanup(srv.Close)
	tr := &http.Transport{DisableKeepAlives: true}
	tb.Cleanup(tr.CloseIdleConnections)
	return srv, &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

// transportError sends a payment and returns the error the client saw instead of an answer.
func transportError(tb testing.TB, client *http.Client, url string) error {
	tb.Helper()
	resp, err := post(context.Background(), client, url, "k1", validBody)
	if err == nil {
		resp.Body.Close()
		tb.Fatalf("POST answered %d, want a transport error", resp.StatusCode)
	}
	return err
}

func TestOverTCPDropIsEOFAfterTheCommit(t *testing.T) {
	s := mustServer(t)
	srv, client := mustLoopback(t, s)
	s.Inject(psp.Drop())
	if err := transportError(t, client, srv.URL); !errors.Is(err, io.EOF) {
		t.Fatalf("POST error = %v, want EOF (a closed connection, not a reset)", err)
	}
	if n := len(s.Settlements()); n != 1 {
		t.Fatalf("%d settlements after a drop, want 1", n)
	}
	a := mustPost(t, client, srv.URL, "k1", validBody)
	if a.status != 201 || a.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("retry = %d replayed %q, want a replayed 201", a.status, a.header.Get("Idempotent-Replayed"))
	}
}

func TestOverTCPResetIsConnectionReset(t *testing.T) {
	s := mustServer(t)
	srv, client := mustLoopback(t, s)
	s.Inject(psp.ResetConn())
	if err := transportError(t, client, srv.URL); !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("POST error = %v, want connection reset by peer", err)
	}
	if n := len(s.Settlements()); n != 0 {
		t.Fatalf("%d settlements after a reset, want 0", n)
	}
	wantSettled(t, mustPost(t, client, srv.URL, "k1", validBody))
}

func TestOverTCPDownResetsEveryConnection(t *testing.T) {
	s := mustServer(t)
	srv, client := mustLoopback(t, s)
	s.Inject(psp.Down(time.Hour))
	for range 3 {
		if err := transportError(t, client, srv.URL); !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("POST error = %v, want connection reset by peer", err)
		}
	}
	if n := len(s.Settlements()); n != 0 {
		t.Fatalf("%d settlements while down, want 0", n)
	}
	s.Reset()
	wantSettled(t, mustPost(t, client, srv.URL, "k1", validBody))
}

// A cut body ends with a close, not a reset: the client reads half the body, then an unexpected EOF.
func TestOverTCPCutBodyIsUnexpectedEOF(t *testing.T) {
	s := mustServer(t)
	srv, client := mustLoopback(t, s)
	s.Inject(psp.BadBody("cut"))
	resp, err := post(context.Background(), client, srv.URL, "k1", validBody)
	if err != nil {
		t.Fatalf("POST error = %v, want the 201's header", err)
	}
	defer resp.Body.Close()
	if _, err := io.ReadAll(resp.Body); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("reading the body: %v, want %v (a closed connection, not a reset)", err, io.ErrUnexpectedEOF)
	}
}

// TestOverTCPLookupResetAndDownAreConnectionResets: a lookup's reset and down faults close
// with RST, as a payment's do.
func TestOverTCPLookupResetAndDownAreConnectionResets(t *testing.T) {
	s := mustServer(t)
	srv, client := mustLoopback(t, s)
	s.Inject(psp.ResetConn().ForLookup(), psp.Down(time.Hour).ForLookup())
	for range 3 { // the reset, the down fault, a lookup in its window
		resp, err := get(context.Background(), client, srv.URL, "k1")
		if err == nil {
			resp.Body.Close()
			t.Fatalf("GET answered %d, want a transport error", resp.StatusCode)
		}
		if !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("GET error = %v, want connection reset by peer", err)
		}
	}
	wantSettled(t, mustPost(t, client, srv.URL, "k1", validBody))
}
