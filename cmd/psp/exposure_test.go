package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"

	"pixretry/psp"
	"pixretry/psp/control"
)

// send sends method path to s with body and the header fields in pairs (name, value; a Host
// field sets the request's Host), and returns the status.
func (s *started) send(t *testing.T, method, path, body string, fields ...string) int {
	t.Helper()
	r, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(fields); i += 2 {
		r.Header.Set(fields[i], fields[i+1])
	}
	r.Host = r.Header.Get("Host")
	resp, err := s.client.Do(r)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// port is the port s listens on.
func (s *started) port(t *testing.T) string {
	t.Helper()
	u, err := url.Parse(s.url)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

// stopAndLogs stops s and returns what it logged on stderr from now on.
func (s *started) stopAndLogs(t *testing.T) string {
	t.Helper()
	s.cancel()
	var logs strings.Builder
	for line := range s.logs {
		logs.WriteString(line + "\n")
	}
	if err := <-s.done; err != nil {
		t.Errorf("run() = %v, want nil", err)
	}
	return logs.String()
}

const json = "application/json"

func TestControlOnLoopbackAnswersItsNamesOnly(t *testing.T) {
	s := mustStart(t, "-tokens", "smoke")
	port := s.port(t)
	for _, host := range []string{"localhost:" + port, "LocalHost:" + port, "127.0.0.1:" + port, "[::1]:" + port} {
		if got := s.send(t, "POST", "/_psp/reset", "", "Content-Type", json, "Host", host); got != 204 {
			t.Errorf("POST /_psp/reset for Host %s = %d, want 204", host, got)
		}
	}
	for _, host := range []string{"evil.example:" + port, "evil.example", "localhost:1", "localhost"} {
		if got := s.send(t, "POST", "/_psp/reset", "", "Content-Type", json, "Host", host); got != 403 {
			t.Errorf("POST /_psp/reset for Host %s = %d, want 403", host, got)
		}
		if got := s.send(t, "GET", "/_psp/balance", "", "Host", host); got != 403 {
			t.Errorf("GET /_psp/balance for Host %s = %d, want 403", host, got)
		}
	}
	if got := s.send(t, "POST", psp.PaymentsPath, payment, "Host", "psp.internal:"+port, "Content-Type", json,
		"Authorization", "Bearer smoke", "Idempotency-Key", "k1"); got != 201 {
		t.Errorf("payment for another Host = %d, want 201: payments are not checked", got)
	}
	if logs := s.stopAndLogs(t); strings.Contains(logs, "WARNING") {
		t.Errorf("a loopback PSP warned:\n%s", logs)
	}
}

// TestControlRefusesACrossSiteReset sends the reset a web page can send without asking: no
// JSON, another Origin, with a body or without. The ledger stays.
func TestControlRefusesACrossSiteReset(t *testing.T) {
	s := mustStart(t, "-tokens", "smoke", "-balance", "200.00")
	s.do(t, "POST", psp.PaymentsPath, "k1", strings.NewReader(payment))
	for _, contentType := range []string{"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""} {
		got := s.send(t, "POST", "/_psp/reset", "{}", "Content-Type", contentType, "Origin", "http://evil.example")
		if got != 415 {
			t.Errorf("POST /_psp/reset as %q = %d, want 415", contentType, got)
		}
		for _, from := range [][2]string{{"Origin", "http://evil.example"}, {"Sec-Fetch-Site", "cross-site"}} {
			if got := s.send(t, "POST", "/_psp/reset", "", "Content-Type", contentType, from[0], from[1]); got != 415 {
				t.Errorf("POST /_psp/reset without a body as %q, %s %s = %d, want 415", contentType, from[0], from[1], got)
			}
			if got := s.send(t, "DELETE", "/_psp/faults", "", "Content-Type", contentType, from[0], from[1]); got != 415 {
				t.Errorf("DELETE /_psp/faults as %q, %s %s = %d, want 415", contentType, from[0], from[1], got)
			}
		}
	}
	if status, body := s.do(t, "GET", "/_psp/balance", "", nil); status != 200 || body != `{"balance":"50.00"}`+"\n" {
		t.Errorf("GET /_psp/balance = %d %s, want 200 50.00: nothing was reset", status, body)
	}
	s.stop()
}

// mustStartEverywhere starts run on every address (not a loopback one) with args; its URL is
// rewritten to 127.0.0.1.
func mustStartEverywhere(t *testing.T, args ...string) *started {
	t.Helper()
	s := mustStart(t, append([]string{"-addr", "0.0.0.0:0"}, args...)...)
	s.url = "http://127.0.0.1:" + s.port(t)
	return s
}

func TestNonLoopbackServesNoControlWithoutAToken(t *testing.T) {
	s := mustStartEverywhere(t, "-tokens", "smoke")
	for _, route := range [][2]string{{"GET", "/_psp/balance"}, {"POST", "/_psp/reset"}, {"POST", "/_psp/faults"}} {
		if got := s.send(t, route[0], route[1], `{"faults":[]}`, "Content-Type", json); got != 404 {
			t.Errorf("%s %s = %d, want 404: the control API is off", route[0], route[1], got)
		}
	}
	if status, body := s.do(t, "POST", psp.PaymentsPath, "k1", strings.NewReader(payment)); status != 201 {
		t.Errorf("payment = %d %s, want 201", status, body)
	}
	logs := s.stopAndLogs(t)
	if !strings.Contains(logs, "psp: WARNING: ") || !strings.Contains(logs, "is not a loopback address") ||
		!strings.Contains(logs, "the control API is off; -control-token turns it on") {
		t.Errorf("stderr lacks the warning:\n%s", logs)
	}
}

func TestNonLoopbackServesControlWithTheToken(t *testing.T) {
	s := mustStartEverywhere(t, "-tokens", "smoke", "-control-token", "ctl-secret")
	for _, authorization := range []string{"", "Bearer smoke", "Bearer ctl-wrong", "Basic ctl-secret"} {
		if got := s.send(t, "GET", "/_psp/balance", "", "Authorization", authorization); got != 401 {
			t.Errorf("GET /_psp/balance with %q = %d, want 401", authorization, got)
		}
		if got := s.send(t, "POST", "/_psp/reset", "", "Authorization", authorization, "Content-Type", json); got != 401 {
			t.Errorf("POST /_psp/reset with %q = %d, want 401", authorization, got)
		}
	}
	if got := s.send(t, "POST", "/_psp/faults", `{"faults":[]}`, "Authorization", "Bearer ctl-secret"); got != 415 {
		t.Errorf("POST /_psp/faults with the token, a body and no Content-Type = %d, want 415", got)
	}
	if got := s.send(t, "POST", "/_psp/reset", "", "Authorization", "Bearer ctl-secret"); got != 204 {
		t.Errorf("POST /_psp/reset with the token, no body and no Content-Type = %d, want 204", got)
	}
	ctl := control.Client{BaseURL: s.url, HTTPClient: s.client, Token: "ctl-secret"}
	if err := ctl.Inject(context.Background(), psp.Status(503)); err != nil {
		t.Errorf("Inject() with the token: %v", err)
	}
	if status, _ := s.do(t, "POST", psp.PaymentsPath, "k1", strings.NewReader(payment)); status != 503 {
		t.Errorf("payment after a 503 fault = %d, want 503", status)
	}
	if got := s.send(t, "GET", "/_psp/balance", "", "Authorization", "Bearer ctl-secret", "Host", "psp.internal:"+s.port(t)); got != 403 {
		t.Errorf("GET /_psp/balance with the token for another Host = %d, want 403", got)
	}
	logs := s.stopAndLogs(t)
	if !strings.Contains(logs, "is not a loopback address") || !strings.Contains(logs, "the control API answers only with the control token") {
		t.Errorf("stderr lacks the warning:\n%s", logs)
	}
	if strings.Contains(logs, "ctl-secret") {
		t.Errorf("stderr holds the control token:\n%s", logs)
	}
}

func TestControlHostsFlagAddsHosts(t *testing.T) {
	s := mustStart(t, "-tokens", "smoke", "-control-hosts", "psp:8080,psp.internal:"+"9")
	for host, want := range map[string]int{"psp:8080": 200, "PSP.internal:9": 200, "psp:9": 403} {
		if got := s.send(t, "GET", "/_psp/balance", "", "Host", host); got != want {
			t.Errorf("GET /_psp/balance for Host %s = %d, want %d", host, got, want)
		}
	}
	s.stop()
}

func TestControlHosts(t *testing.T) {
	tests := []struct {
		addr, bound string
		want        []string
	}{
		{"127.0.0.1:8080", "127.0.0.1:8080", []string{"127.0.0.1:8080", "localhost:8080", "[::1]:8080"}},
		{"localhost:0", "127.0.0.1:41000", []string{"localhost:41000", "127.0.0.1:41000", "[::1]:41000"}},
		{":8080", "[::]:8080", []string{"localhost:8080", "127.0.0.1:8080", "[::1]:8080"}},
		{"0.0.0.0:8080", "0.0.0.0:8080", []string{"localhost:8080", "127.0.0.1:8080", "[::1]:8080"}},
		{"psp.internal:8080", "10.0.0.7:8080", []string{"psp.internal:8080", "localhost:8080", "127.0.0.1:8080", "[::1]:8080", "10.0.0.7:8080"}},
		{"[fe80::1]:8080", "[fe80::1]:8080", []string{"[fe80::1]:8080", "localhost:8080", "127.0.0.1:8080", "[::1]:8080"}},
		{"127.0.0.1:80", "127.0.0.1:80", []string{"127.0.0.1:80", "127.0.0.1", "localhost:80", "localhost", "[::1]:80", "[::1]"}},
	}
	for _, tt := range tests {
		got := controlHosts(tt.addr, tt.bound)
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("controlHosts(%q, %q) = %q, want %q", tt.addr, tt.bound, got, tt.want)
		}
	}
}

// TestResetFaultIsAResetBehindTheConnectionLimit sends a reset fault through -max-conns's
// listener, which must keep the connection's SetLinger.
func TestResetFaultIsAResetBehindTheConnectionLimit(t *testing.T) {
	s := mustStart(t, "-tokens", "smoke", "-max-conns", "2")
	ctl := control.Client{BaseURL: s.url, HTTPClient: s.client}
	if err := ctl.Inject(context.Background(), psp.ResetConn()); err != nil {
		t.Fatalf("Inject() error = %v", err)
	}
	r, _ := http.NewRequest("POST", s.url+psp.PaymentsPath, strings.NewReader(payment))
	r.Header.Set("Authorization", "Bearer smoke")
	r.Header.Set("Content-Type", json)
	r.Header.Set("Idempotency-Key", "k1")
	resp, err := s.client.Do(r)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("payment = %d, want connection reset by peer", resp.StatusCode)
	}
	if !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("payment error = %v, want connection reset by peer", err)
	}
	s.stop()
}

// TestHeldConnectionsLeaveRoomForAPaymentOverTCP holds all connections but one of -max-conns
// open in the handler (each waits for a body it was told to send), then pays.
func TestHeldConnectionsLeaveRoomForAPaymentOverTCP(t *testing.T) {
	const maxConns = 4
	s := mustStart(t, "-tokens", "smoke", "-max-conns", fmt.Sprint(maxConns))
	var held []net.Conn
	defer func() {
		for _, conn := range held {
			conn.Close()
		}
	}()
	for i := range maxConns - 1 {
		conn, err := net.Dial("tcp", strings.TrimPrefix(s.url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, conn)
		head := strings.Replace(paymentHead(fmt.Sprint("held-", i)), "\r\n\r\n", "\r\nExpect: 100-continue\r\n\r\n", 1)
		mustWrite(t, conn, head)
		line, err := bufio.NewReader(conn).ReadString('\n')
		if line != "HTTP/1.1 100 Continue\r\n" {
			t.Fatalf("held connection %d read %q, %v; want 100 Continue (the handler reads its body)", i, line, err)
		}
	}
	if status, body := s.do(t, "POST", psp.PaymentsPath, "k1", strings.NewReader(payment)); status != 201 {
		t.Errorf("payment beside %d held connections = %d %s, want 201", maxConns-1, status, body)
	}
	for _, conn := range held {
		conn.Close() // before the shutdown, which would wait for them
	}
	s.stop()
}

func TestAHeaderOverTheLimitIs431(t *testing.T) {
	s := mustStart(t, "-tokens", "smoke")
	if got := s.send(t, "GET", "/_psp/balance", "", "X-Padding", strings.Repeat("x", maxHeaderBytes+4096)); got != 431 {
		t.Errorf("GET with a %d-byte header = %d, want 431", maxHeaderBytes+4096, got)
	}
	if got := s.send(t, "GET", "/_psp/balance", "", "X-Padding", strings.Repeat("x", maxHeaderBytes/2)); got != 200 {
		t.Errorf("GET with a %d-byte header = %d, want 200", maxHeaderBytes/2, got)
	}
	s.stop()
}
