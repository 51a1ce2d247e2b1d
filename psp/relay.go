package psp

import (
	"bufio"
	"bytes"
	"net"
	"net/http"
	"strconv"
)

// Relayed is one answer of the double's own API, as Relay caught it.
type Relayed struct {
	Status int         // the status code, such as 201
	Header http.Header // the header fields, Content-Type and Content-Length always
	Body   []byte      // the body whole, as its Content-Length says
}

// Relay serves r, a request of the double's own API, with next, as next.ServeHTTP does, and
// returns the answer instead of writing it, so that a front end speaking another PSP's API can
// translate it. next serves the double's own API: a *Server, or a handler in front of one,
// such as a recorder. The Server's journal and Stats count r as they count a request it
// serves. A front end whose client makes a payment's endToEndId hands it to the Server in r's
// context (WithEndToEndID).
//
// Faults that act on the connection (a reset, a down window, a drop, a body cut short) act on
// w's connection as they would under ServeHTTP: Relay hijacks it and closes it. Then ok is false,
// and the front end writes nothing. When w's connection cannot be hijacked (HTTP/2, a
// recorder), Relay panics with http.ErrAbortHandler, as ServeHTTP does, and net/http closes the
// connection or stream. A late fault holds Relay's return for its Duration.
//
// Relay writes nothing to w when ok is true: the front end writes its own answer. It is safe
// for concurrent use when next is.
//
// r may be built as a client's request, with a nil Body: next gets it with an empty one, as
// a server's request always has, so that a handler in front of the Server can read it.
func Relay(next http.Handler, w http.ResponseWriter, r *http.Request) (a Relayed, ok bool) {
	if r.Body == nil {
		r = r.WithContext(r.Context()) // a shallow copy: the caller's request stays as it is
		r.Body = http.NoBody
	}
	c := &catcher{w: w, header: http.Header{}}
	next.ServeHTTP(c, r)
	if c.hijacked {
		return Relayed{}, false
	}
	if c.short() { // net/http would write the part it has, then close the connection
		hangUp(w, false)
		return Relayed{}, false
	}
	return Relayed{Status: c.status, Header: c.header, Body: c.body.Bytes()}, true
}

// catcher is an http.ResponseWriter that keeps the answer written to it, but hands a hijack
// on to w, so that a fault closes the connection of the request that Relay serves.
type catcher struct {
	w        http.ResponseWriter
	header   http.Header
	status   int // 0 until written
	body     bytes.Buffer
	hijacked bool // the Server took w's connection: no answer is owed
}

func (c *catcher) Header() http.Header { return c.header }

func (c *catcher) WriteHeader(status int) {
	if c.status == 0 {
		c.status = status
	}
}

func (c *catcher) Write(p []byte) (int, error) {
	c.WriteHeader(http.StatusOK)
	return c.body.Write(p)
}

// Flush does nothing: the answer is kept whole for the front end, which writes its own.
func (c *catcher) Flush() {}

// Hijack takes over w's connection.
func (c *catcher) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, rw, err := http.NewResponseController(c.w).Hijack()
	c.hijacked = err == nil
	return conn, rw, err
}

// short reports whether the body is shorter than the Content-Length the header declares, as a
// bad_body fault's short breach writes it.
func (c *catcher) short() bool {
	n, err := strconv.Atoi(c.header.Get("Content-Length"))
	return err == nil && n != c.body.Len()
}
