package main

import (
	"net/http"
	"sync"
)

// paymentPath is the PSP's payment endpoint.
const paymentPath = "/v1/pix/payments"

// wireAttempt is one payment request as it left the client: the Idempotency-Key it carried,
// and the answer's status or the transport error.
type wireAttempt struct {
	Key    string
	Status int   // 0 when Err is set
	Err    error // the round trip's error, as the transport returned it
}

// wire is an http.RoundTripper that records every payment request going through it, so the
// demo can check what the client actually sent (how many attempts, which keys) instead of
// trusting the client's own account. Other requests pass through unrecorded. It is safe for
// concurrent use.
type wire struct {
	next http.RoundTripper

	mu       sync.Mutex
	attempts []wireAttempt
}

// RoundTrip records req if it is a payment and hands it to the next transport.
func (w *wire) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := w.next.RoundTrip(req)
	if req.Method != http.MethodPost || req.URL.Path != paymentPath {
		return resp, err
	}
	a := wireAttempt{Key: req.Header.Get("Idempotency-Key"), Err: err}
	if err == nil {
		a.Status = resp.StatusCode
	}
	w.mu.Lock()
	w.attempts = append(w.attempts, a)
	w.mu.Unlock()
	return resp, err
}

// take returns the payment requests recorded since the last take, in order, and forgets them.
func (w *wire) take() []wireAttempt {
	w.mu.Lock()
	defer w.mu.Unlock()
	got := w.attempts
	w.attempts = nil
	return got
}

// recording returns a copy of c whose transport records payment requests into a new wire.
// A nil transport stands for http.DefaultTransport, as in net/http.
func recording(c *http.Client) (*http.Client, *wire) {
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	w := &wire{next: next}
	copied := *c
	copied.Transport = w
	return &copied, w
}
