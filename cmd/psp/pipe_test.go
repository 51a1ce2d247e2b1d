package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"pixretry/internal/openapitest"
	"pixretry/internal/pipenet"
	"pixretry/psp"
)

// piped is run's PSP served over an in-memory listener, for a testing/synctest bubble: its
// timeouts run in virtual time.
type piped struct {
	ln     *pipenet.Listener
	client *http.Client // one connection per request, checked against the OpenAPI document
	logs   *lockedBuffer
	stop   func() error // ends serve and returns its result
}

// mustPipe serves the PSP configured by args (and the default limits) over an in-memory
// listener that admits -max-conns connections at once. Call it inside a bubble and stop it
// before the bubble ends.
func mustPipe(t *testing.T, args ...string) *piped {
	t.Helper()
	opts, _, err := parseFlags(args, io.Discard)
	if err != nil {
		t.Fatalf("parseFlags(%q) error = %v", args, err)
	}
	ln := pipenet.Listen()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	p := &piped{ln: ln, logs: new(lockedBuffer)}
	go func() { done <- opts.serve(ctx, limit(ln, opts.maxConns), nil, io.Discard, p.logs) }()
	tr := &http.Transport{DialContext: ln.Dial, DisableKeepAlives: true}
	p.client = &http.Client{Transport: openapitest.Transport(t, tr)}
	p.stop = func() error {
		cancel()
		tr.CloseIdleConnections()
		return <-done
	}
	return p
}

// pay sends a payment with key and returns its status.
func (p *piped) pay(t *testing.T, key string) int {
	t.Helper()
	resp, err := p.client.Do(paymentRequest(t, "http://pipe", key))
	if err != nil {
		t.Fatalf("payment %s: %v", key, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// paymentRequest is a valid payment for base with key, under the token "smoke".
func paymentRequest(t *testing.T, base, key string) *http.Request {
	t.Helper()
	r, err := http.NewRequest("POST", base+psp.PaymentsPath, strings.NewReader(payment))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Authorization", "Bearer smoke")
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Idempotency-Key", key)
	return r
}

// paymentHead is the request line and header of a payment of key under the token "smoke",
// ready for its body.
func paymentHead(key string) string {
	return "POST " + psp.PaymentsPath + " HTTP/1.1\r\nHost: pipe\r\nAuthorization: Bearer smoke\r\n" +
		"Content-Type: application/json\r\nIdempotency-Key: " + key + "\r\n" +
		"Content-Length: " + strconv.Itoa(len(payment)) + "\r\n\r\n"
}

// A slow client holds a connection open in one of three ways.
type slowClient struct {
	name string
	hold func(t *testing.T, conn net.Conn, key string) // leaves conn held
	cut  func(limits) int64                            // the timeout that closes it, in ns
}

var slowClients = []slowClient{
	{"a header sent in part", func(t *testing.T, conn net.Conn, key string) {
		mustWrite(t, conn, paymentHead(key)[:20])
	}, func(l limits) int64 { return int64(l.readHeader) }},
	{"a body sent in part", func(t *testing.T, conn net.Conn, key string) {
		mustWrite(t, conn, paymentHead(key)+payment[:10])
	}, func(l limits) int64 { return int64(l.read) }},
	{"an idle keep-alive", func(t *testing.T, conn net.Conn, key string) {
		mustWrite(t, conn, paymentHead(key)+payment)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil || resp.StatusCode != 201 {
			t.Fatalf("the keep-alive's payment = %v, %v; want 201", resp, err)
		}
		io.Copy(io.Discard, resp.Body) // the body is whole in the reader's buffer
		resp.Body.Close()
	}, func(l limits) int64 { return int64(l.idle) }},
}

func mustWrite(t *testing.T, conn net.Conn, s string) {
	t.Helper()
	if _, err := io.WriteString(conn, s); err != nil {
		t.Fatalf("writing to a held connection: %v", err)
	}
}
