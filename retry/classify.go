package retry

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"syscall"
)

// Transient is the default classifier. It reports whether err is worth another attempt, and
// looks through the whole chain with errors.Is and errors.As.
//
//   - context.Canceled is permanent, whatever else the chain holds.
//   - Otherwise the first error with a StatusCode() int method decides alone. 5xx, 429 Too
//     Many Requests and 409 Conflict are transient. 501 Not Implemented, 505 HTTP Version Not
//     Supported and every other status are permanent, since no retry can fix them.
//   - A timeout is transient. That is any net.Error whose Timeout() is true, an attempt's own
//     context.DeadlineExceeded included.
//   - A failed connection is transient. That is a refused or reset connection, a broken pipe,
//     EOF or unexpected EOF while reading the response, and use of a closed connection.
//   - Everything else is permanent, a DNS "no such host" included. A nil error is not
//     transient.
//
// Transient allocates nothing, unless an error in the chain has an As method.
func Transient(err error) bool {
	if errors.Is(err, context.Canceled) {
		return false
	}
	if e, ok := errors.AsType[interface {
		error
		StatusCode() int
	}](err); ok {
		return transientStatus(e.StatusCode())
	}
	if e, ok := errors.AsType[net.Error](err); ok && e.Timeout() {
		return true
	}
	return connectionFailure(err)
}

// transientStatus reports whether an HTTP status is worth another attempt.
func transientStatus(code int) bool {
	switch code {
	case http.StatusConflict, http.StatusTooManyRequests:
		return true
	case http.StatusNotImplemented, http.StatusHTTPVersionNotSupported:
		return false
	}
	return code >= 500 && code <= 599
}

// connectionFailure reports whether err says the connection failed before a
// whole response came back.
func connectionFailure(err error) bool {
	for _, target := range connectionFailures {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

var connectionFailures = [...]error{
	syscall.ECONNREFUSED,
	syscall.ECONNRESET,
	syscall.EPIPE,
	io.EOF,
	io.ErrUnexpectedEOF,
	net.ErrClosed,
}
