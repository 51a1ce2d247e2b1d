package pix_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"pixretry/pix"
	"pixretry/retry"
)

// closeRecorder is an answer's body that remembers being closed.
type closeRecorder struct {
	io.Reader
	closed bool
}

func (b *closeRecorder) Close() error { b.closed = true; return nil }

// Each attempt's request says what it carries and what it accepts back, and the answer's body
// is closed whether it was read to its end or cut at the 64 KiB limit.
func TestAttemptRequestAndAnswerBody(t *testing.T) {
	for _, size := range []int{10, 70000} {
		var req *http.Request
		body := &closeRecorder{Reader: strings.NewReader(strings.Repeat("x", size))}
		c := pix.Client{
			BaseURL: "http://psp.test",
			Token:   "t0k",
			Policy:  retry.Policy{AttemptsMax: 1},
			HTTPClient: &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
				req = r
				return &http.Response{StatusCode: 503, Body: body, Header: http.Header{}, Request: r}, nil
			})},
		}
		if _, err := c.SendWithKey(context.Background(), "k-1", pix.Payment{AmountCents: 100, PixKey: "pix@example.com"}); err == nil {
			t.Fatalf("Send() = nil error, want the 503")
		}
		for name, want := range map[string]string{
			"Authorization":   "Bearer t0k",
			"Idempotency-Key": "k-1",
			"Content-Type":    "application/json",
			"Accept":          "application/json, application/problem+json",
		} {
			if got := req.Header.Get(name); got != want {
				t.Errorf("request header %s = %q, want %q", name, got, want)
			}
		}
		if !body.closed {
			t.Errorf("the answer's body of %d bytes was not closed", size)
		}
	}
}
