package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"pixretry/internal/cmdline"
	"pixretry/internal/openapitest"
	"pixretry/psp"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(openapitest.Main(m)) }

// started is run going in the background.
type started struct {
	url    string
	cancel context.CancelFunc
	done   chan error   // run's result
	logs   chan string  // stderr, line by line, until run returns
	client *http.Client // one connection per request, waits for 100 Continue
}

// mustStart calls run with args plus -addr 127.0.0.1:0 and waits for the URL it prints.
func mustStart(t *testing.T, args ...string) *started {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	s := &started{cancel: cancel, done: make(chan error, 1), logs: make(chan string, 100)}
	go func() {
		err := run(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), outW, errW)
		outW.Close()
		errW.Close()
		s.done <- err
	}()
	go func() {
		defer close(s.logs)
		for sc := bufio.NewScanner(errR); sc.Scan(); {
			select {
			case s.logs <- sc.Text():
			default: // nobody is watching: drop the line
			}
		}
	}()
	s.awaitURL(t, outR)
	return s
}

// awaitURL reads the URL run prints on stdout (out) and gives s a client for it, whose answers
// that the OpenAPI document does not describe fail tb; the rest of stdout is drained. If run
// prints anything else, awaitURL stops run and fails tb.
func (s *started) awaitURL(tb testing.TB, out io.Reader) {
	tb.Helper()
	line, err := bufio.NewReader(out).ReadString('\n')
	go io.Copy(io.Discard, out)
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "psp: listening on ")
	if err != nil || !ok {
		s.cancel()
		tb.Fatalf("run printed %q, %v; want its URL (run: %v)", line, err, <-s.done)
	}
	s.url = url
	tr := &http.Transport{DisableKeepAlives: true, ExpectContinueTimeout: time.Hour}
	tb.Cleanup(tr.CloseIdleConnections)
	s.client = &http.Client{Transport: openapitest.Transport(tb, tr)}
}

// stop cancels run's context and returns its result.
func (s *started) stop() error {
	s.cancel()
	return <-s.done
}

// do sends method path with body (JSON if not empty) and a key, and returns status and body.
func (s *started) do(t *testing.T, method, path, key string, body io.Reader) (int, string) {
	t.Helper()
	r, err := http.NewRequest(method, s.url+path, body)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Authorization", "Bearer smoke")
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Idempotency-Key", key)
	resp, err := s.client.Do(r)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

const payment = `{"valor":"150.00","chave":"pix@example.com"}`

func TestSmoke(t *testing.T) {
	s := mustStart(t, "-tokens", "smoke,other", "-balance", "200.00", "-key-ttl", "1h", "-ispb", "87654321")

	status, body := s.do(t, "POST", psp.PaymentsPath, "k1", strings.NewReader(payment))
	if status != 201 || !strings.Contains(body, `"endToEndId":"E87654321`) {
		t.Errorf("payment = %d %s, want 201 with an endToEndId of ISPB 87654321", status, body)
	}
	status, _ = s.do(t, "POST", "/_psp/faults", "", strings.NewReader(`{"faults":[{"kind":"status","status":503}]}`))
	if status != 204 {
		t.Errorf("POST %s = %d, want 204", "/_psp/faults", status)
	}
	if status, _ = s.do(t, "POST", psp.PaymentsPath, "k2", strings.NewReader(payment)); status != 503 {
		t.Errorf("payment with a fault queued = %d, want 503", status)
	}
	if status, _ = s.do(t, "POST", psp.PaymentsPath, "k2", strings.NewReader(payment)); status != 422 {
		t.Errorf("payment over the balance = %d, want 422", status)
	}
	if status, body = s.do(t, "GET", "/_psp/balance", "", nil); status != 200 || body != `{"balance":"50.00"}`+"\n" {
		t.Errorf("GET %s = %d %s, want 200 50.00", "/_psp/balance", status, body)
	}
	if err := s.stop(); err != nil {
		t.Errorf("run() = %v, want nil after the context ends", err)
	}
}

// TestShutdownLetsARequestInFlightFinish holds a payment in the handler by streaming its body:
// with Expect: 100-continue the client sends the body only once the handler reads it, so a
// finished first write proves the request is in flight.
func TestShutdownLetsARequestInFlightFinish(t *testing.T) {
	s := mustStart(t, "-tokens", "smoke")
	body, bodyW := io.Pipe()
	answered := make(chan int, 1)
	go func() { answered <- s.post("k1", body) }()
	io.WriteString(bodyW, payment[:10]) // returns once the handler is reading the body

	s.cancel()
	waitForLog(t, s.logs, "psp: shutting down")
	waitRefused(t, s.url) // Shutdown has closed the listener
	io.WriteString(bodyW, payment[10:])
	bodyW.Close()
	if got := <-answered; got != 201 {
		t.Errorf("the payment in flight got %d, want 201", got)
	}
	if err := <-s.done; err != nil {
		t.Errorf("run() = %v, want nil", err)
	}
}

func waitForLog(t *testing.T, logs <-chan string, want string) {
	t.Helper()
	for line := range logs {
		if strings.Contains(line, want) {
			return
		}
	}
	t.Fatalf("the log never said %q", want)
}

// waitRefused dials the server until the connection is refused.
func waitRefused(t *testing.T, url string) {
	t.Helper()
	addr := strings.TrimPrefix(url, "http://")
	for {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			return
		}
		conn.Close()
	}
}

func TestBadFlagsExit2(t *testing.T) {
	tests := map[string][]string{
		"unknown flag":        {"-nope"},
		"positional argument": {"serve"},
		"balance format":      {"-balance", "1.5"},
		"negative balance":    {"-balance", "-1.00"},
		"zero key TTL":        {"-key-ttl", "0s"},
		"bad key TTL":         {"-key-ttl", "soon"},
		"negative max keys":   {"-max-keys", "-1"},
		"zero max keys":       {"-max-keys", "0"},
		"max keys format":     {"-max-keys", "many"},
		"negative max ledger": {"-max-settlements", "-1"},
		"zero max ledger":     {"-max-settlements", "0"},
		"max ledger format":   {"-max-settlements", "all"},
		"empty token":         {"-tokens", "a,,b"},
		"no tokens":           {"-tokens", ""},
		"short ISPB":          {"-ispb", "123"},
		"empty ISPB":          {"-ispb", ""},
		"negative service":    {"-service-time", "-1ms"},
		"negative capacity":   {"-capacity", "-1"},
		"negative shed hint":  {"-shed-retry-after", "-1s"},
		"capacity format":     {"-capacity", "many"},
		"log level":           {"-log", "debug"},
		"negative max conns":  {"-max-conns", "-1"},
		"max conns format":    {"-max-conns", "all"},
		"control token space": {"-control-token", "a b"},
		"zero journal max":    {"-journal-max", "0"},
		"negative journal":    {"-journal-max", "-1"},
		"journal max format":  {"-journal-max", "many"},
		"zero journal bytes":  {"-journal-bytes", "0"},
		"negative bytes":      {"-journal-bytes", "-1"},
		"journal bytes unit":  {"-journal-bytes", "1MiB"},
	}
	for name, args := range tests {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), args, &stdout, &stderr)
			if got := cmdline.ExitCode(err); got != 2 {
				t.Errorf("exit code = %d (run: %v), want 2", got, err)
			}
			if !strings.Contains(stderr.String(), "Usage of psp") || stdout.Len() != 0 {
				t.Errorf("stderr = %q, stdout = %q; want a message and the usage on stderr only", stderr.String(), stdout.String())
			}
		})
	}
}

func TestHelpExits0(t *testing.T) {
	var stderr bytes.Buffer
	err := run(context.Background(), []string{"-h"}, io.Discard, &stderr)
	if !errors.Is(err, flag.ErrHelp) || cmdline.ExitCode(err) != 0 || !strings.Contains(stderr.String(), "-key-ttl") {
		t.Errorf("run(-h) = %v, exit %d, stderr %q; want help and 0", err, cmdline.ExitCode(err), stderr.String())
	}
}

func TestBadAddressExits2(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	tests := map[string]struct{ addr, want string }{
		"not an address": {"nonsense", "psp: -addr nonsense: listen tcp: address nonsense: missing port in address"},
		"port too large": {":99999", "psp: -addr :99999: listen tcp: address 99999: invalid port"},
		"port in use":    {taken.Addr().String(), "address already in use"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), []string{"-addr", tt.addr}, &stdout, &stderr)
			if got := cmdline.ExitCode(err); got != 2 {
				t.Errorf("exit code = %d (run: %v), want 2", got, err)
			}
			if !strings.Contains(stderr.String(), tt.want+"\nUsage of psp") || stdout.Len() != 0 {
				t.Errorf("stderr = %q, stdout = %q; want %q and the usage on stderr only", stderr.String(), stdout.String(), tt.want)
			}
		})
	}
}
