package pix_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync/atomic"
	"testing"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/psp/psptest"
	"pixretry/retry"
)

// errIdleClosed stands for net/http's "http: server closed idle connection": an error that
// retry.Transient cannot classify (net/http exports no sentinel for it) and that says nothing
// about the PSP.
var errIdleClosed = errors.New("test: the server closed the idle connection")

// breakingConn fails every write once armed, as a pooled connection does when the server
// closed it while it sat idle: the request never leaves. Reads that fail once armed fail with
// the same error, as they do on a connection the server closed. net/http reads and writes from
// two goroutines and returns whichever failure it meets first, so both must carry the cause.
type breakingConn struct {
	net.Conn
	armed *atomic.Bool
}

func (c breakingConn) Write(p []byte) (int, error) {
	if c.armed.Load() {
		c.Conn.Close()
		return 0, errIdleClosed
	}
	return c.Conn.Write(p)
}

func (c breakingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if err != nil && c.armed.Load() {
		err = errIdleClosed
	}
	return n, err
}

// breakingClient is an HTTP client of srv whose connections break once armed is set: the
// connections made before, and also those made after if breakNew.
func breakingClient(t *testing.T, srv *psptest.Server, armed *atomic.Bool, breakNew bool) *http.Client {
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := srv.Transport().DialContext(ctx, network, addr)
		if err != nil || armed.Load() && !breakNew {
			return c, err
		}
		return breakingConn{Conn: c, armed: armed}, nil
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// TestConnectionFailingBeforeAnyAnswerIsRetried: a kept-alive connection that the server
// closed while it sat idle fails the next request before the PSP says anything, with an error
// retry.Transient cannot classify. That is the cost of keep-alive, not the PSP's verdict: pix
// tries again, on a new connection, with the same key. net/http would resend the request by
// itself if pix let it rewind the body; pix does not (so that every wire request is an attempt)
// and makes up for it here. A new connection that fails the same way is retried too, until the
// budget is spent.
func TestConnectionFailingBeforeAnyAnswerIsRetried(t *testing.T) {
	for _, tc := range []struct {
		name         string
		pooled       bool // a first payment leaves the connection in the pool before it breaks
		wantSettled  bool
		wantAttempts int
	}{
		{name: "pooled connection: tried again on a new one", pooled: true, wantSettled: true, wantAttempts: 2},
		{name: "every connection breaks: the budget is spent", wantAttempts: 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, psp.Config{})
			var armed atomic.Bool
			c := f.client(func(c *pix.Client) {
				c.HTTPClient = breakingClient(t, f.srv, &armed, !tc.pooled)
				c.Policy = retry.Policy{AttemptsMax: 4} // zero waits: no clock involved
			})
			if tc.pooled {
				if _, err := c.SendWithKey(t.Context(), "order-1", payment); err != nil {
					t.Fatalf("first SendWithKey() error = %v", err)
				}
			}
			armed.Store(true)

			r, err := c.Send(t.Context(), payment)

			if got := err == nil; got != tc.wantSettled {
				t.Fatalf("Send() = %+v, %v; want settled %t", r, err, tc.wantSettled)
			}
			if err != nil && !(errors.Is(err, pix.ErrOutcomeUnknown) && errors.Is(err, errIdleClosed)) {
				t.Errorf("Send() error = %v, want the write error, outcome unknown (it may have left)", err)
			}
			if err == nil && (r.Attempts != tc.wantAttempts || r.Replayed || len(f.settlementsFor(r.IdempotencyKey)) != 1) {
				t.Errorf("Send() = %+v, want %d attempts, not replayed, one settlement", r, tc.wantAttempts)
			}
			var verdicts []any // transient, per attempt of the second payment
			for _, rec := range f.log.all() {
				if rec.Message == "pix attempt" && rec.Attrs["key"] != "order-1" {
					verdicts = append(verdicts, rec.Attrs["transient"])
				}
			}
			if got := len(verdicts); got != tc.wantAttempts {
				t.Fatalf("%d attempts logged, want %d", got, tc.wantAttempts)
			}
			for i, v := range verdicts {
				if failed := i < len(verdicts)-1 || !tc.wantSettled; failed && v != true {
					t.Errorf("attempt %d logged transient = %v, want true", i+1, v)
				}
			}
		})
	}
}
