package main

import (
	"net"
	"sync"

	"golang.org/x/net/netutil"
)

// listen listens on addr over TCP and admits at most maxConns connections at once (0: no
// limit).
func listen(addr string, maxConns int) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return limit(ln, maxConns), nil
}

// limit admits at most n connections of ln at once (0: no limit), with netutil.LimitListener.
// The next connection waits in the system's backlog until one closes. A connection that can
// close with a reset (a *net.TCPConn) keeps its SetLinger, which netutil's wrapper hides, so
// that psp's reset fault still sends an RST.
func limit(ln net.Listener, n int) net.Listener {
	if n == 0 {
		return ln
	}
	inner := &lingerers{Listener: ln, conns: map[string]lingerer{}}
	return &limited{Listener: netutil.LimitListener(inner, n), inner: inner}
}

// lingerer is a connection whose close can be made a reset, such as a *net.TCPConn.
type lingerer interface{ SetLinger(sec int) error }

// lingerers remembers each lingerer it accepts, by remote address, until limited takes it.
type lingerers struct {
	net.Listener
	mu    sync.Mutex
	conns map[string]lingerer
}

func (l *lingerers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if lc, ok := c.(lingerer); ok {
		l.mu.Lock()
		l.conns[c.RemoteAddr().String()] = lc
		l.mu.Unlock()
	}
	return c, err
}

// take returns and forgets the lingerer c wraps, if any.
func (l *lingerers) take(c net.Conn) (lingerer, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	key := c.RemoteAddr().String()
	lc, ok := l.conns[key]
	delete(l.conns, key)
	return lc, ok
}

// limited is netutil.LimitListener over inner, whose connections keep inner's SetLinger.
type limited struct {
	net.Listener
	inner *lingerers
}

func (l *limited) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if lc, ok := l.inner.take(c); ok {
		return lingeringConn{c, lc}, nil
	}
	return c, nil
}

// lingeringConn is a limited connection (its Close frees its slot) with its SetLinger.
type lingeringConn struct {
	net.Conn
	lingerer
}
