package main

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"pixretry/internal/pipenet"
	"pixretry/psp"
	"pixretry/psp/control"
)

// TestFaultsUpToTheLongestStillAnswer sends the slowest payment the limits must let through:
// its body arrives just before the read timeout, then the service time and the longest slow or
// late fault pass before its answer.
func TestFaultsUpToTheLongestStillAnswer(t *testing.T) {
	for _, fault := range []psp.Fault{psp.Slow(psp.MaxFaultDuration), psp.Late(psp.MaxFaultDuration)} {
		t.Run(string(fault.Kind), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := mustPipe(t, "-tokens", "smoke", "-service-time", "5s",
					"-control-token", "ctl", "-control-hosts", "pipe")
				ctl := control.Client{BaseURL: "http://pipe", HTTPClient: p.client, Token: "ctl"}
				if err := ctl.Inject(context.Background(), fault); err != nil {
					t.Fatalf("Inject() error = %v", err)
				}
				conn, err := p.ln.Dial(context.Background(), "tcp", "pipe")
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				mustWrite(t, conn, paymentHead("k1")+payment[:10])
				time.Sleep(defaultLimits.read - time.Millisecond)
				mustWrite(t, conn, payment[10:])
				resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
				if err != nil || resp.StatusCode != 201 {
					t.Fatalf("the slowest payment = %v, %v; want 201", resp, err)
				}
				if err := p.stop(); err != nil {
					t.Errorf("serve() = %v, want nil", err)
				}
			})
		})
	}
}

// TestAnAnswerPastTheWriteTimeoutIsLost shows the write timeout at work: a handler that answers
// after it loses its answer, and the client reads no response.
func TestAnAnswerPastTheWriteTimeoutIsLost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logger := slog.New(slog.DiscardHandler)
		var srv *http.Server
		srv = defaultLimits.server(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			time.Sleep(srv.WriteTimeout + time.Second)
			io.WriteString(w, "too late")
		}), 0, logger)
		ln := pipenet.Listen()
		go srv.Serve(ln)
		defer srv.Close()
		client := &http.Client{Transport: &http.Transport{DialContext: ln.Dial}}
		resp, err := client.Get("http://pipe/")
		if err == nil {
			resp.Body.Close()
			t.Fatalf("GET = %d, want an error: the answer came after the write timeout", resp.StatusCode)
		}
		if got, want := srv.WriteTimeout, defaultLimits.read+psp.MaxFaultDuration+writeSlack; got != want {
			t.Errorf("WriteTimeout = %v, want %v", got, want)
		}
	})
}

// TestShutdownGraceEndsWithExit0 holds a request in flight past the shutdown grace: the PSP
// closes its connection when the grace ends and serve returns nil (exit 0).
func TestShutdownGraceEndsWithExit0(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := mustPipe(t, "-tokens", "smoke")
		conn, err := p.ln.Dial(context.Background(), "tcp", "pipe")
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		mustWrite(t, conn, paymentHead("k1")+payment[:10]) // the handler waits for the rest
		synctest.Wait()
		start := time.Now()
		if err := p.stop(); err != nil {
			t.Errorf("serve() = %v, want nil when the grace ends", err)
		}
		if got, want := time.Since(start), defaultLimits.grace; got != want {
			t.Errorf("the shutdown took %v, want the grace %v", got, want)
		}
		if _, err := io.Copy(io.Discard, conn); err != nil {
			t.Errorf("reading the held connection: %v, want EOF", err)
		}
		if !strings.Contains(p.logs.String(), "the shutdown grace ended") {
			t.Errorf("the log lacks the end of the grace:\n%s", p.logs)
		}
	})
}
