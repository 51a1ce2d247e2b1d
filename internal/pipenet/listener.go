package pipenet

import (
	"context"
	"errors"
	"net"
	"sync"
)

// ErrClosed is returned by Accept and Dial once the Listener is closed.
var ErrClosed = errors.New("pipenet: listener closed")

// Listener is a net.Listener whose connections are the server ends of net.Pipe pairs made by
// Dial. The zero value is not usable; make one with Listen. It is safe for concurrent use.
type Listener struct {
	conns     chan net.Conn
	done      chan struct{}
	closeOnce sync.Once
}

// Listen returns a Listener ready to Accept.
func Listen() *Listener {
	return &Listener{conns: make(chan net.Conn), done: make(chan struct{})}
}

// Accept waits for the next Dial and returns the server end of its pipe. It returns ErrClosed
// once the Listener is closed.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, ErrClosed
	}
}

// Close stops Accept and Dial. It never fails; closing twice is harmless. Connections already
// made stay open.
func (l *Listener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return nil
}

// Addr returns a placeholder address: the Listener has no network address.
func (l *Listener) Addr() net.Addr { return pipeAddr{} }

// Dial makes a net.Pipe, hands the server end to Accept and returns the client end. It waits
// until Accept takes the connection, ctx ends (returning ctx's error) or the Listener is closed
// (ErrClosed). Its signature fits http.Transport.DialContext; network and address are ignored.
func (l *Listener) Dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-ctx.Done():
		return nil, closeBoth(client, server, ctx.Err())
	case <-l.done:
		return nil, closeBoth(client, server, ErrClosed)
	}
}

func closeBoth(a, b net.Conn, err error) error {
	a.Close()
	b.Close()
	return err
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }
