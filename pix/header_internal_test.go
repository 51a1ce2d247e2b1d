package pix

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"pixretry/internal/pipenet"
	"pixretry/psp"
	"pixretry/retry"
)

var headerTestPayment = Payment{AmountCents: 15000, PixKey: "pix@example.com"}

// paddedPSP serves the real psp on loopback, behind a handler that adds an X-Pad header of pad
// bytes to every answer, and counts the payment requests. Clients use the default transport.
func paddedPSP(t *testing.T, pad int) (*psp.Server, *atomic.Int32, string) {
	t.Helper()
	bank, err := psp.NewServer(psp.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("X-Pad", strings.Repeat("a", pad))
		bank.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	t.Cleanup(defaultHTTPClient().CloseIdleConnections)
	return bank, &calls, ts.URL
}

// TestHeaderOverTheLimitBreaksTheContract: a PSP that settles and answers with a 9 MiB header
// gets one request, and the payment fails as a contract violation whose outcome is unknown.
// The default transport stops reading at the limit.
func TestHeaderOverTheLimitBreaksTheContract(t *testing.T) {
	bank, calls, url := paddedPSP(t, 9<<20)
	c := &Client{BaseURL: url, Token: psp.DefaultToken, Policy: retry.Policy{AttemptsMax: 3}}

	_, err := c.SendWithKey(t.Context(), "big-header", headerTestPayment)

	if !errors.Is(err, ErrContract) || !errors.Is(err, ErrOutcomeUnknown) {
		t.Fatalf("Send() error = %v, want ErrContract and ErrOutcomeUnknown", err)
	}
	if got := calls.Load(); got != 1 {
		t.Errorf("PSP got %d requests, want 1 (a contract violation is never retried)", got)
	}
	if got := len(bank.Settlements()); got != 1 {
		t.Errorf("PSP holds %d settlements, want 1: the outcome was rightly unknown", got)
	}
}

func TestHeaderWithinTheLimitIsRead(t *testing.T) {
	_, calls, url := paddedPSP(t, 60<<10)
	c := &Client{BaseURL: url, Token: psp.DefaultToken, Policy: retry.Policy{AttemptsMax: 3}}

	r, err := c.Send(t.Context(), headerTestPayment)

	if err != nil || r.Attempts != 1 {
		t.Fatalf("Send() = %+v, %v; want a settlement on attempt 1", r, err)
	}
	if got := calls.Load(); got != 1 {
		t.Errorf("PSP got %d requests, want 1", got)
	}
}

// rawAnswer is a 201 that settles headerTestPayment, whose status line and header are n bytes
// long with their blank line.
func rawAnswer(n int) string {
	body := `{"endToEndId":"E12345678202501021504abcDEF12345","valor":"150.00","chave":"pix@example.com",` +
		`"status":"REALIZADO","horario":"2025-01-02T15:04:05Z"}`
	head := "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nConnection: close\r\n" +
		"Content-Length: " + strconv.Itoa(len(body)) + "\r\nX-Pad: "
	return head + strings.Repeat("a", n-len(head)-4) + "\r\n\r\n" + body
}

// rawPSP answers every request with the bytes of answer, on loopback, and closes the
// connection.
func rawPSP(t *testing.T, answer string) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		buf.WriteString(answer)
		buf.Flush()
	}))
	t.Cleanup(ts.Close)
	t.Cleanup(defaultHTTPClient().CloseIdleConnections)
	return ts.URL
}

// TestHeaderLimitIs64KiB: the default transport reads a header of 64 KiB, status line and
// blank line included, and not one byte more.
func TestHeaderLimitIs64KiB(t *testing.T) {
	for _, tc := range []struct {
		name     string
		size     int
		contract bool
	}{
		{"exactly 64 KiB", 64 << 10, false},
		{"64 KiB + 1", 64<<10 + 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Client{BaseURL: rawPSP(t, rawAnswer(tc.size)), Token: psp.DefaultToken, Policy: retry.Policy{AttemptsMax: 1}}

			_, err := c.Send(t.Context(), headerTestPayment)

			if tc.contract && !errors.Is(err, ErrContract) {
				t.Errorf("Send() error = %v, want ErrContract", err)
			}
			if !tc.contract && err != nil {
				t.Errorf("Send() error = %v, want a settlement", err)
			}
		})
	}
}

// TestUnreadableAnswerBreaksTheContract: bytes that are not an HTTP response are an answer
// outside the contract, and nothing that failed before an answer, or by the caller's cancel, is.
func TestUnreadableAnswerBreaksTheContract(t *testing.T) {
	c := &Client{BaseURL: rawPSP(t, "HTTP/1.1 abc Created\r\n\r\n"), Token: psp.DefaultToken,
		Policy: retry.Policy{AttemptsMax: 2}}

	_, err := c.Send(t.Context(), headerTestPayment)

	if !errors.Is(err, ErrContract) || !errors.Is(err, ErrOutcomeUnknown) {
		t.Errorf("Send() error = %v, want ErrContract and ErrOutcomeUnknown", err)
	}
}

// failingTransport fails every round trip before anything is sent, with a permanent error.
type failingTransport struct{}

var errNoRoute = errors.New("test: no route to the PSP")

func (failingTransport) RoundTrip(*http.Request) (*http.Response, error) { return nil, errNoRoute }

func TestFailureBeforeAnAnswerIsNotAContractViolation(t *testing.T) {
	c := &Client{BaseURL: "http://psp.invalid", Policy: retry.Policy{AttemptsMax: 2},
		HTTPClient: &http.Client{Transport: failingTransport{}}}

	_, err := c.SendWithKey(t.Context(), "k", headerTestPayment)

	if !errors.Is(err, errNoRoute) || errors.Is(err, ErrContract) {
		t.Errorf("Send() error = %v, want the transport's error and not ErrContract", err)
	}
}

// TestCancelDuringTheAnswerIsNotAContractViolation: the caller cancels once the PSP has sent the
// first bytes of its answer. The call ends canceled, not as a broken contract.
func TestCancelDuringTheAnswerIsNotAContractViolation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		srv := pipenet.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			conn, buf, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close()
			buf.WriteString("HTTP/1.1 201 Created\r\n")
			buf.Flush()
			<-release
		}))
		defer srv.Close()
		defer close(release)
		ctx, cancel := context.WithCancel(t.Context())
		c := &Client{BaseURL: srv.URL, Token: psp.DefaultToken, Policy: retry.Policy{AttemptsMax: 1},
			HTTPClient: srv.Client()}
		done := make(chan error, 1)
		go func() {
			_, err := c.Send(ctx, headerTestPayment)
			done <- err
		}()
		synctest.Wait() // the status line is read, the rest of the header awaited
		cancel()

		err := <-done

		if !errors.Is(err, context.Canceled) || errors.Is(err, ErrContract) {
			t.Errorf("Send() error = %v, want context.Canceled and not ErrContract", err)
		}
	})
}
