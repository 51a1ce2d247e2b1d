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

// TestBadFlagsExit2: a bad command line exits 2 with the problem on stderr, then the usage.
// The problem names the flag and what it wants, in the words of the command line, and never
// repeats a token.
func TestBadFlagsExit2(t *testing.T) {
	const tokens = "; want visible ASCII tokens without spaces, comma-separated, as in test-token"
	const amounts = "want the lowest and the highest valor rejected, each 1 to 10 digits, a dot and 2 digits, " +
		"joined by a hyphen, as in 10.01-20.00"
	tests := map[string]struct {
		args []string
		want string // the first line of stderr
	}{
		"unknown flag":        {[]string{"-nope"}, "flag provided but not defined: -nope"},
		"positional argument": {[]string{"serve"}, `psp: unexpected argument "serve"`},
		"balance format":      {[]string{"-balance", "1.5"}, `psp: -balance "1.5": want 1 to 10 digits, a dot and 2 digits, as in 1000.00`},
		"negative balance":    {[]string{"-balance", "-1.00"}, `psp: -balance "-1.00": want 1 to 10 digits, a dot and 2 digits, as in 1000.00`},
		"zero key TTL":        {[]string{"-key-ttl", "0s"}, "psp: -key-ttl 0s: want a positive duration, as in 24h"},
		"bad key TTL": {[]string{"-key-ttl", "soon"},
			`invalid value "soon" for flag -key-ttl: want a duration, a number and a unit, as in 1500ms, 2s or 24h`},
		"negative max keys":   {[]string{"-max-keys", "-1"}, "psp: -max-keys -1: want a positive number, as in 500000"},
		"zero max keys":       {[]string{"-max-keys", "0"}, "psp: -max-keys 0: want a positive number, as in 500000"},
		"max keys format":     {[]string{"-max-keys", "many"}, `invalid value "many" for flag -max-keys: want a whole number, as in 1000`},
		"max keys too large":  {[]string{"-max-keys", "99999999999999999999"}, `invalid value "99999999999999999999" for flag -max-keys: out of range`},
		"negative max ledger": {[]string{"-max-settlements", "-1"}, "psp: -max-settlements -1: want a positive number, as in 1000000"},
		"zero max ledger":     {[]string{"-max-settlements", "0"}, "psp: -max-settlements 0: want a positive number, as in 1000000"},
		"max ledger format":   {[]string{"-max-settlements", "all"}, `invalid value "all" for flag -max-settlements: want a whole number, as in 1000`},
		"empty token":         {[]string{"-tokens", "secret1,,secret2"}, "psp: -tokens: token 2 of 3 is empty" + tokens},
		"no tokens":           {[]string{"-tokens", ""}, "psp: -tokens: token 1 of 1 is empty" + tokens},
		"a token with a space": {[]string{"-tokens", "secret1,secret 2"},
			"psp: -tokens: token 2 of 2 has a space or a character that is not visible ASCII" + tokens},
		"short ISPB":         {[]string{"-ispb", "123"}, `psp: -ispb "123": want 8 digits, as in 12345678`},
		"empty ISPB":         {[]string{"-ispb", ""}, `psp: -ispb "": want 8 digits, as in 12345678`},
		"ISPB of letters":    {[]string{"-ispb", "abcdefgh"}, `psp: -ispb "abcdefgh": want 8 digits, as in 12345678`},
		"negative service":   {[]string{"-service-time", "-1ms"}, "psp: -service-time -1ms: want 0 or a positive duration, as in 50ms"},
		"negative capacity":  {[]string{"-capacity", "-1"}, "psp: -capacity -1: want 0 (no limit) or more"},
		"negative shed hint": {[]string{"-shed-retry-after", "-1s"}, "psp: -shed-retry-after -1s: want 0 (none) or a positive duration, as in 2s"},
		"capacity format":    {[]string{"-capacity", "many"}, `invalid value "many" for flag -capacity: want a whole number, as in 1000`},
		"log level":          {[]string{"-log", "debug"}, `invalid value "debug" for flag -log: want info, warn or off`},
		"unknown dialect":    {[]string{"-dialect", "Efi"}, `invalid value "Efi" for flag -dialect: want pix, efi or openfinance`},
		"empty dialect":      {[]string{"-dialect", ""}, `invalid value "" for flag -dialect: want pix, efi or openfinance`},
		"open finance's flag without its dialect": {[]string{"-openfinance-org-id", "bank"},
			"psp: -openfinance-org-id: needs -dialect openfinance"},
		"open finance's key file in another dialect": {[]string{"-dialect", "efi", "-openfinance-signing-key-file", "key.pem"},
			"psp: -openfinance-signing-key-file: needs -dialect openfinance"},
		"zero open finance key TTL": {[]string{"-dialect", "openfinance", "-openfinance-key-ttl", "0s"},
			"psp: -openfinance-key-ttl 0s: want a positive duration, as in 24h"},
		"negative open finance key TTL": {[]string{"-dialect", "openfinance", "-openfinance-key-ttl", "-1s"},
			"psp: -openfinance-key-ttl -1s: want a positive duration, as in 24h"},
		"zero open finance consent TTL": {[]string{"-dialect", "openfinance", "-openfinance-consent-ttl", "0s"},
			"psp: -openfinance-consent-ttl 0s: want a positive duration, as in 60m"},
		"negative open finance consent TTL": {[]string{"-dialect", "openfinance", "-openfinance-consent-ttl", "-1m"},
			"psp: -openfinance-consent-ttl -1m0s: want a positive duration, as in 60m"},
		"open finance consent TTL without its dialect": {[]string{"-openfinance-consent-ttl", "1m"},
			"psp: -openfinance-consent-ttl: needs -dialect openfinance"},
		"open finance key TTL over the key TTL": {[]string{"-dialect", "openfinance", "-key-ttl", "1h"},
			"psp: -key-ttl 1h0m0s: want at least -openfinance-key-ttl (24h0m0s) with -dialect openfinance"},
		"empty organisationId": {[]string{"-dialect", "openfinance", "-openfinance-org-id", ""},
			"psp: -openfinance-org-id: want an organisationId, as in pixretry-psp"},
		"empty client organisationId": {[]string{"-dialect", "openfinance", "-openfinance-client-org-id", ""},
			"psp: -openfinance-client-org-id: want an organisationId, as in pixretry-initiator"},
		"negative max conns": {[]string{"-max-conns", "-1"}, "psp: -max-conns -1: want 0 (no limit) or more"},
		"max conns format":   {[]string{"-max-conns", "all"}, `invalid value "all" for flag -max-conns: want a whole number, as in 1000`},
		"control token space": {[]string{"-control-token", "ctl secret"},
			"psp: -control-token: want visible ASCII without spaces"},
		"control hosts with an empty entry": {[]string{"-control-hosts", "a,,b"},
			`psp: -control-hosts: "": want HOST:PORT values, comma-separated, none empty`},
		"control hosts with a space": {[]string{"-control-hosts", "psp :8080"},
			`psp: -control-hosts: "psp :8080": want HOST:PORT values, comma-separated, none empty`},
		"zero journal max":   {[]string{"-journal-max", "0"}, "psp: -journal-max 0: want a positive number, as in 1000"},
		"negative journal":   {[]string{"-journal-max", "-1"}, "psp: -journal-max -1: want a positive number, as in 1000"},
		"journal max format": {[]string{"-journal-max", "many"}, `invalid value "many" for flag -journal-max: want a whole number, as in 1000`},
		"zero journal bytes": {[]string{"-journal-bytes", "0"}, "psp: -journal-bytes 0: want a positive number, as in 1048576"},
		"negative bytes":     {[]string{"-journal-bytes", "-1"}, "psp: -journal-bytes -1: want a positive number, as in 1048576"},
		"journal bytes unit": {[]string{"-journal-bytes", "1MiB"}, `invalid value "1MiB" for flag -journal-bytes: want a whole number, as in 1000`},
		"negative complete after": {[]string{"-complete-after", "-1s"},
			"psp: -complete-after -1s: want 0 (at once) or a positive duration, as in 5s"},
		"complete after format": {[]string{"-complete-after", "later"},
			`invalid value "later" for flag -complete-after: want a duration, a number and a unit, as in 1500ms, 2s or 24h`},
		"reject range of one amount": {[]string{"-reject-range", "10.01"}, `invalid value "10.01" for flag -reject-range: ` + amounts},
		"reject range of three":      {[]string{"-reject-range", "1.00-2.00-3.00"}, `invalid value "1.00-2.00-3.00" for flag -reject-range: ` + amounts},
		"reject range in centavos":   {[]string{"-reject-range", "1001-2000"}, `invalid value "1001-2000" for flag -reject-range: ` + amounts},
		"reject range with a comma":  {[]string{"-reject-range", "10,01-20,00"}, `invalid value "10,01-20,00" for flag -reject-range: ` + amounts},
		"empty reject range":         {[]string{"-reject-range", ""}, `invalid value "" for flag -reject-range: ` + amounts},
		"negative reject range":      {[]string{"-reject-range", "-1.00-2.00"}, `invalid value "-1.00-2.00" for flag -reject-range: ` + amounts},
		"reject range backwards": {[]string{"-reject-range", "20.00-10.01"},
			`invalid value "20.00-10.01" for flag -reject-range: want the lowest valor first and a highest above 0.00, as in 10.01-20.00`},
		"reject range of nothing": {[]string{"-reject-range", "0.00-0.00"},
			`invalid value "0.00-0.00" for flag -reject-range: want the lowest valor first and a highest above 0.00, as in 10.01-20.00`},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), tt.args, &stdout, &stderr)
			if got := cmdline.ExitCode(err); got != 2 {
				t.Errorf("exit code = %d (run: %v), want 2", got, err)
			}
			if !strings.HasPrefix(stderr.String(), tt.want+"\nUsage of psp:\n") || stdout.Len() != 0 {
				t.Errorf("stderr = %.200q..., stdout = %q; want %q, then the usage, on stderr only", stderr.String(), stdout.String(), tt.want)
			}
			// the usage says "secret" (-webhook-secret-file); the problem must not
			if problem, _, _ := strings.Cut(stderr.String(), "\nUsage of psp:"); strings.Contains(problem, "secret") {
				t.Errorf("stderr repeats a token: %q", problem)
			}
			wantNoGoWords(t, err)
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
