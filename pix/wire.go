package pix

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
)

// bodyLimit is the largest answer body read, 64 KiB. headerLimit is the largest answer header
// that the default transport reads, 64 KiB from the status line to the blank line. An answer
// over either limit breaks the contract (ErrContract). A larger body is not read, and the
// connection is closed without draining it. A larger header ends the attempt, and net/http
// closes the connection.
const (
	bodyLimit   = 65536
	headerLimit = 65536
)

// answer is what one attempt got back, the status, the headers, and at most bodyLimit+1 bytes
// of the body (one more than allowed, so that an oversized body can be told apart).
type answer struct {
	status int
	header http.Header
	body   []byte
}

// post sends one payment request and reads the answer, both under ctx, for the call whose
// observer is o.
//
// Every request on the wire is an attempt that retry.Do counts, classifies and logs. net/http's
// Transport would otherwise resend a request carrying an Idempotency-Key, on a new connection,
// when a reused connection fails after the request was written. That hidden resend would not
// count against the budget, would not be logged, and would consume the PSP's next fault. So
// the request's body cannot be rewound (GetBody is nil), which keeps net/http from resending.
// The one case where that resend helped is taken over by a *lostConnError, which pix retries.
func (c *Client) post(ctx context.Context, o Observer, endpoint, key string, body []byte) (answer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return answer{}, fmt.Errorf("pix: building the request: %w", err)
	}
	req.GetBody = nil
	req.Header.Set("Idempotency-Key", key)
	req.Header.Set("Content-Type", "application/json")
	return c.roundTrip(req, o)
}

// get sends one lookup request to target and reads the answer, both under ctx, for the call
// whose observer is o. net/http would resend a GET by itself, as it would a payment (see
// post). An empty body that cannot be rewound keeps it from doing so: net/http sends no body,
// and pix retries.
func (c *Client) get(ctx context.Context, o Observer, target string) (answer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return answer{}, fmt.Errorf("pix: building the request: %w", err)
	}
	req.Body = io.NopCloser(strings.NewReader(""))
	return c.roundTrip(req, o)
}

// roundTrip adds the headers every request carries, and those the call's observer o injects
// (nil for none), sends req and reads the answer. The answer's body is read to its end when it is within the limit, which
// returns the connection to the pool, and closed in every case.
func (c *Client) roundTrip(req *http.Request, o Observer) (answer, error) {
	var w wire
	ctx := httptrace.WithClientTrace(req.Context(), w.trace())
	req = req.WithContext(ctx)
	req.Header.Set("Authorization", "Bearer "+c.Token)
	req.Header.Set("Accept", "application/json, application/problem+json")
	if o != nil {
		o.Inject(ctx, req.Header)
	}
	resp, err := c.do(req)
	if err != nil {
		return answer{}, w.failed(ctx, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, bodyLimit+1))
	if err != nil {
		return answer{}, fmt.Errorf("pix: reading the %d answer: %w", resp.StatusCode, err)
	}
	return answer{status: resp.StatusCode, header: resp.Header, body: data}, nil
}
