package retry

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"syscall"
)

// Transient is the default classifier: it reports whether err is worth another
// attempt. It looks through the whole error chain (errors.Is and errors.As):
//
//   - context.Canceled is permanent, whatever else the chain holds: someone
//     gave up on the call.
//   - An error with a StatusCode() int method, the first one in the chain,
//     decides alone: 5xx, 429 Too Many Requests and 409 Conflict (the same
//     idempotency key is still being processed) are transient; every other
//     status, including 501 Not Implemented and 505 HTTP Version Not Supported,
//     which no retry can fix, is permanent.
//   - A timeout is transient: any net.Error whose Timeout() is true, such as an
//     attempt's own context.DeadlineExceeded or an http.Client timeout. (When
//     the caller's context is what expired, Do sees it and stops anyway.)
//   - A connection failure is transient: connection refused or reset, broken
//     pipe, EOF or unexpected EOF while reading the response, use of a closed
//     connection.
//   - Everything else is permanent, a DNS "no such host" and unknown errors
//     included. A nil error is not transient.
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
