package properties

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"

	"pgregory.net/rapid"
)

// The line is the network between the clients and the PSP. It breaks connections the way real
// networks do, at the two moments a client cannot tell apart from the inside: before the
// request was written (a refused dial; a connection the server closed while it sat idle in the
// pool; one reset as the request goes out) and after it was written (the PSP received the whole
// request and answered, and the answer was lost). Each can happen on a fresh connection or on a pooled
// one, and the trace records which.

// lineFault is what the line does to one payment request.
type lineFault int

const (
	lineIntact         lineFault = iota
	lineRefused                  // the dial is refused: nothing was sent, on a connection that never existed
	lineCutBeforeWrite           // the connection breaks as the request is written: the PSP receives nothing
	lineCutAfterWrite            // the connection breaks as the answer arrives: the PSP received the request and answered
	// lineClosedIdle: the peer closed the connection before the request went out. Writes vanish,
	// reads see its end.
	lineClosedIdle
	lineNoSuchHost // the PSP's name does not resolve: nothing was sent, and retrying will not help
)

func (f lineFault) String() string {
	return [...]string{"intact", "refused", "cut before write", "cut after write", "closed while idle", "no such host"}[f]
}

// reachesPSP reports whether a request the line treated this way arrives at the PSP.
func (f lineFault) reachesPSP() bool { return f == lineIntact || f == lineCutAfterWrite }

// lineEvent is what the line did to one round trip, and on which connection.
type lineEvent struct {
	Fault  lineFault
	Pooled bool // the request went out on a connection that had carried an earlier request
}

// lineStep is one entry of the line's queue: a fault, and whether it waits for a request that
// goes out on a pooled connection (the requests before it pass intact).
type lineStep struct {
	Fault      lineFault
	PooledOnly bool
}

// line hands out its steps, in arrival order, to the payment requests of every call of a run. A
// refused dial is taken as the request starts; any other step once net/http has picked the
// request's connection. It is safe for concurrent use.
type line struct {
	mu    sync.Mutex
	steps []lineStep
}

// dialFails takes the next step if it fails the dial (a refused connection, a name that does
// not resolve) and returns it; else it returns lineIntact.
func (l *line) dialFails() lineFault {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.steps) == 0 || !l.steps[0].Fault.failsDial() {
		return lineIntact
	}
	f := l.steps[0].Fault
	l.steps = l.steps[1:]
	return f
}

// failsDial reports whether f fails the dial, before any connection exists.
func (f lineFault) failsDial() bool { return f == lineRefused || f == lineNoSuchHost }

// on takes the fault for a request that goes out on a fresh or a pooled connection.
func (l *line) on(pooled bool) lineFault {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.steps) == 0 || l.steps[0].Fault.failsDial() || l.steps[0].PooledOnly && !pooled {
		return lineIntact
	}
	f := l.steps[0].Fault
	l.steps = l.steps[1:]
	return f
}

// dialFunc is the type of http.Transport.DialContext.
type dialFunc = func(ctx context.Context, network, addr string) (net.Conn, error)

// dial wraps the connections that dial makes, so that the line can break them.
func (l *line) dial(dial dialFunc) dialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &lineConn{Conn: c}, nil
	}
}

// lineTripper is one call's view of the line: it takes the line's next fault for each round
// trip, applies it to the connection net/http picks for the request, and records what it did.
type lineTripper struct {
	next   http.RoundTripper
	line   *line
	events []lineEvent // one per round trip, in order: the call's round trips are sequential
}

func (lt *lineTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if f := lt.line.dialFails(); f != lineIntact {
		lt.events = append(lt.events, lineEvent{Fault: f})
		if req.Body != nil {
			req.Body.Close() // a RoundTripper closes the body, even on error
		}
		var err error = os.NewSyscallError("connect", syscall.ECONNREFUSED)
		if f == lineNoSuchHost {
			err = &net.DNSError{Err: "no such host", Name: req.URL.Hostname(), IsNotFound: true}
		}
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: err}
	}
	var mu sync.Mutex
	var ev lineEvent // the fault is recorded once it is applied to a connection
	var conn *lineConn
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		mu.Lock()
		defer mu.Unlock()
		if c, ok := info.Conn.(*lineConn); ok {
			f := lt.line.on(info.Reused)
			conn, ev = c, lineEvent{Fault: f, Pooled: info.Reused}
			c.arm(f)
			if f == lineClosedIdle {
				// net/http's read loop sees the end before the request goes out, so the client
				// meets "server closed idle connection" every time. One goroutine at a time may
				// wait: the calls of a run with a line never share an instant (startGen).
				synctest.Wait()
			}
		}
	}}
	resp, err := lt.next.RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
	mu.Lock()
	defer mu.Unlock()
	if conn != nil {
		conn.disarm() // else a fault armed for a request never written would fall on the next one
	}
	lt.events = append(lt.events, ev)
	return resp, err
}

// lineConn is a client connection the line can break. arm sets what happens to the request about
// to be written on it.
type lineConn struct {
	net.Conn
	mu      sync.Mutex
	pending lineFault // applies to the next request written
	cutRead bool      // the answer under way is lost
	closed  bool      // the peer closed the connection
}

// arm sets what happens to the request about to be written. A connection the peer closed while
// it sat idle is closed at once: net/http's read loop, which reads even an idle connection, may
// see the end before or after the request is registered, as with a real socket.
func (c *lineConn) arm(f lineFault) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending, c.cutRead = f, false
	if f == lineClosedIdle {
		c.closed = true
		c.Conn.Close()
	}
}

func (c *lineConn) disarm() { c.arm(lineIntact) }

// Write sends the request's bytes on, unless the line cuts the connection before the request
// is written: then nothing leaves, the write fails as on a connection the peer has closed, and
// net/http closes the connection.
func (c *lineConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	f, closed := c.pending, c.closed
	c.pending = lineIntact
	c.cutRead = c.cutRead || f == lineCutAfterWrite
	c.mu.Unlock()
	if closed {
		return len(p), nil // the kernel takes the bytes; the peer never reads them
	}
	if f == lineCutBeforeWrite {
		return 0, &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.EPIPE)}
	}
	n, err := c.Conn.Write(p)
	return n, asTCP("write", err)
}

// Read passes the answer on, unless the line cuts the connection after the request was
// written: then the answer's first bytes, which prove the PSP answered, are thrown away with
// the connection, and the read fails as on a reset connection.
func (c *lineConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	cut, closed := c.cutRead && n > 0, c.closed
	c.mu.Unlock()
	if closed {
		return 0, io.EOF
	}
	if cut {
		c.Conn.Close()
		return 0, &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	}
	return n, asTCP("read", err)
}

// asTCP turns the error of an in-memory pipe the client closed into the one a TCP connection
// gives: net/http closes a connection whose write failed while its read loop is still
// reading, and over TCP that read fails with net.ErrClosed, not io.ErrClosedPipe.
func asTCP(op string, err error) error {
	if errors.Is(err, io.ErrClosedPipe) {
		return &net.OpError{Op: op, Net: "tcp", Err: net.ErrClosed}
	}
	return err
}

// lineStepGen draws a step of the line: nothing, or a break, a cut after the request was
// written (the case that hides a settlement) most often, half of them waiting for a pooled
// connection.
func lineStepGen() *rapid.Generator[lineStep] {
	return rapid.Custom(func(t *rapid.T) lineStep {
		f := rapid.SampledFrom([]lineFault{lineIntact, lineRefused, lineNoSuchHost, lineCutBeforeWrite, lineCutAfterWrite,
			lineCutAfterWrite, lineClosedIdle}).Draw(t, "fault")
		return lineStep{Fault: f, PooledOnly: f != lineIntact && !f.failsDial() && rapid.Bool().Draw(t,
			"waits for a pooled connection")}
	})
}

// brokenLineScenarios are the runs of TestBrokenConnectionsKeepInvariants: the runs of
// TestOnePaymentKeepsInvariants or of TestInterleavedPaymentsKeepInvariants over a line that
// breaks some of its connections. The calls share connections, so a call's first request may
// go out on a connection another call left in the pool.
func brokenLineScenarios() *rapid.Generator[scenario] {
	return rapid.Custom(func(t *rapid.T) scenario {
		sc := rapid.OneOf(onePaymentScenarios(), interleavedScenarios()).Draw(t, "scenario")
		sc.Line = rapid.SliceOfN(lineStepGen(), 1, 8).Draw(t, "line")
		return sc
	})
}

// TestBrokenConnectionsKeepInvariants: connections that break before the request was written
// (a refused dial, a connection the server closed while it sat idle, one reset) or after it
// (the answer lost once the PSP answered), on fresh and pooled connections, mixed with every PSP
// fault, keep every invariant. A failure after the request was written may hide a settlement,
// so it never ends a call as a definitive failure; every one is retried within the budget.
func TestBrokenConnectionsKeepInvariants(t *testing.T) {
	var cov coverage
	rapid.Check(t, checkScenarios(brokenLineScenarios(), &cov))
	t.Log(&cov)
	cov.require(t, 100, "line: refused", "line: no such host", "line: cut before write, fresh connection",
		"line: cut before write, pooled connection",
		"line: cut after write, fresh connection", "line: cut after write, pooled connection",
		"line: closed while idle, pooled connection",
		"call: outcome unknown", "call: settled on a replay")
}
