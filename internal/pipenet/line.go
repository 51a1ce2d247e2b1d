package pipenet

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
	"testing/synctest"
)

// Fault is what a Line does to one request. It breaks a connection before the request was
// written or after; a client cannot tell the two apart from the inside. Its errors are those of
// TCP: a refused dial, a broken pipe, a reset, a name that does not resolve.
type Fault int

const (
	Intact         Fault = iota
	Refused              // the dial is refused: nothing was sent
	CutBeforeWrite       // the connection breaks as the request is written: the server receives nothing
	CutAfterWrite        // the answer is lost: the server received the request and answered
	ClosedIdle           // the peer closed the connection before the request went out
	NoSuchHost           // the server's name does not resolve: nothing was sent
)

func (f Fault) String() string {
	return [...]string{"intact", "refused", "cut before write", "cut after write", "closed while idle",
		"no such host"}[f]
}

// ReachesServer reports whether a request f fell on arrives at the server.
func (f Fault) ReachesServer() bool { return f == Intact || f == CutAfterWrite }

// FailsDial reports whether f fails the dial, before any connection exists.
func (f Fault) FailsDial() bool { return f == Refused || f == NoSuchHost }

// Step is one entry of a Line's queue. PooledOnly waits for a request on a pooled connection;
// the requests before it pass intact.
type Step struct {
	Fault      Fault
	PooledOnly bool
}

// Event is what a Line did to one round trip, and on which connection.
type Event struct {
	Fault  Fault
	Pooled bool // the connection had carried an earlier request
}

// Line is a network that breaks connections: it hands out its steps, in arrival order, to the
// round trips of every Tripper on it. A failed dial is taken as the round trip starts, any other
// step once net/http has picked the round trip's connection, which must come from the Line's
// Dial. A step closed while idle waits with synctest.Wait for net/http to see the close, so use
// a Line inside a synctest bubble, with one round trip starting at each instant. The zero Line
// breaks nothing. It is safe for concurrent use.
type Line struct {
	mu    sync.Mutex
	steps []Step
}

// NewLine returns a Line that takes steps in order.
func NewLine(steps ...Step) *Line { return &Line{steps: steps} }

// take takes the next step if it fails the dial (dial true), or else if it falls on a round trip
// on a connection pooled or not. It returns Intact when the step waits.
func (l *Line) take(dial, pooled bool) Fault {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.steps) == 0 || l.steps[0].Fault.FailsDial() != dial || l.steps[0].PooledOnly && !pooled {
		return Intact
	}
	f := l.steps[0].Fault
	l.steps = l.steps[1:]
	return f
}

// DialFunc is the type of http.Transport.DialContext.
type DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error)

// Dial wraps the connections that dial makes, so that the Line can break them.
func (l *Line) Dial(dial DialFunc) DialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &lineConn{Conn: c}, nil
	}
}

// Tripper is one client's view of a Line: an http.RoundTripper that takes the Line's next step
// for each round trip, applies it to the connection Next picks, and records what it did. Next
// must dial through Line.Dial. Its round trips must be sequential, as one client's retries are.
type Tripper struct {
	Next   http.RoundTripper
	Line   *Line
	events []Event
}

// Events returns what the Line did to each round trip, in order.
func (lt *Tripper) Events() []Event { return lt.events }

func (lt *Tripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if f := lt.Line.take(true, true); f != Intact {
		lt.events = append(lt.events, Event{Fault: f})
		if req.Body != nil {
			req.Body.Close() // a RoundTripper closes the body, even on error
		}
		var err error = os.NewSyscallError("connect", syscall.ECONNREFUSED)
		if f == NoSuchHost {
			err = &net.DNSError{Err: "no such host", Name: req.URL.Hostname(), IsNotFound: true}
		}
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: err}
	}
	var mu sync.Mutex
	var ev Event // recorded once the fault falls on a connection
	var conn *lineConn
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		mu.Lock()
		defer mu.Unlock()
		if c, ok := info.Conn.(*lineConn); ok {
			conn, ev = c, Event{Fault: lt.Line.take(false, info.Reused), Pooled: info.Reused}
			if c.arm(ev.Fault); ev.Fault == ClosedIdle {
				// net/http's read loop sees the end before the request goes out: the client meets
				// "server closed idle connection" every time.
				synctest.Wait()
			}
		}
	}}
	resp, err := lt.Next.RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
	mu.Lock()
	defer mu.Unlock()
	if conn != nil {
		conn.arm(Intact) // else a fault for a request never written would fall on the next
	}
	lt.events = append(lt.events, ev)
	return resp, err
}

// lineConn is a client connection the Line can break.
type lineConn struct {
	net.Conn
	mu      sync.Mutex
	pending Fault // for the next request written
	cutRead bool  // the answer under way is lost
	closed  bool  // the peer closed the connection
}

// arm sets what happens to the request about to be written. A connection closed while idle is
// closed at once: net/http's read loop may see the end before or after the request is
// registered, as with a real socket.
func (c *lineConn) arm(f Fault) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending, c.cutRead = f, false
	if f == ClosedIdle {
		c.closed = true
		c.Conn.Close()
	}
}

// Write sends the request on. Cut before the write, nothing leaves, and the write fails as on a
// connection the peer has closed.
func (c *lineConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	f, closed := c.pending, c.closed
	c.pending = Intact
	c.cutRead = c.cutRead || f == CutAfterWrite
	c.mu.Unlock()
	if closed {
		return len(p), nil // the kernel takes the bytes; the peer never reads them
	}
	if f == CutBeforeWrite {
		return 0, &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.EPIPE)}
	}
	n, err := c.Conn.Write(p)
	return n, asTCP("write", err)
}

// Read passes the answer on. Cut after the write, the answer's first bytes, which prove the
// server answered, are lost with the connection, and the read fails as on a reset connection.
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

// asTCP turns the error of a pipe the client closed into TCP's. net/http closes a connection
// whose write failed while its read loop still reads. Over TCP that read fails with
// net.ErrClosed, not io.ErrClosedPipe.
func asTCP(op string, err error) error {
	if errors.Is(err, io.ErrClosedPipe) {
		return &net.OpError{Op: op, Net: "tcp", Err: net.ErrClosed}
	}
	return err
}
