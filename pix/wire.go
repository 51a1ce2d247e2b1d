package pix

import (
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

// transmit sends req, one attempt a Dialect wrote, and reads the answer, both under req's context,
// for the call whose observer is o.
//
// Every request on the wire is an attempt that retry.Do counts, classifies and logs. net/http's
// Transport would otherwise resend a request by itself, on a new connection, when a reused
// connection fails after the request was written: a payment carrying its key, or a GET. That
// hidden resend would not count against the budget, would not be logged, and would consume the
// PSP's next fault. So the request's body cannot be rewound (GetBody is nil), and a request
// without one gets an empty body that cannot be rewound either: net/http sends no body, and
// does not resend. The one case where that resend helped is taken over by a *lostConnError,
// which pix retries.
func (c *Client) transmit(req *http.Request, o Observer) (Answer, error) {
	if req.Body == nil || req.Body == http.NoBody {
		req.Body = io.NopCloser(strings.NewReader(""))
	}
	req.GetBody = nil
	return c.roundTrip(req, o)
}

// roundTrip adds the headers every request carries, and those the call's observer o injects
// (nil for none), sends req and reads the answer. The answer's body is read to its end when it is within the limit, which
// returns the connection to the pool, and closed in every case.
func (c *Client) roundTrip(req *http.Request, o Observer) (Answer, error) {
	var w wire
	ctx := httptrace.WithClientTrace(req.Context(), w.trace())
	req = req.WithContext(ctx)
	req.Header.Set("Authorization", "Bearer "+c.Token)
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "application/json, application/problem+json")
	}
	if o != nil {
		o.Inject(ctx, req.Header)
	}
	resp, err := c.do(req)
	if err != nil {
		return Answer{}, w.failed(ctx, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, bodyLimit+1))
	if err != nil {
		return Answer{}, fmt.Errorf("pix: reading the %d answer: %w", resp.StatusCode, err)
	}
	return Answer{Status: resp.StatusCode, Header: resp.Header, Body: data}, nil
}
