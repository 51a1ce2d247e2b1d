package pix

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
)

// reason is the outcome an attempt's log record gives for its error: a few words per class
// of failure, checked here for each class, wrapped as net/http and pix wrap them.
func TestReasonNamesEachClassOfFailure(t *testing.T) {
	dial := func(err error) error { return &net.OpError{Op: "dial", Net: "tcp", Err: err} }
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&Error{Status: 503, Code: "busy"}, "status 503 busy"},
		{&Error{Status: 500}, "status 500"},
		{&Error{Status: 302}, "status 302"}, // a contract breach, named by its status
		{fmt.Errorf("%w: endToEndId E1, accepted at 2025-01-02T15:04:05Z", ErrPending), "pending"},
		{fmt.Errorf("%w: endToEndId E1, rejected at 2025-01-02T15:04:05Z: no motivo given", ErrRejected), "rejected"},
		{fmt.Errorf("%w: the 201 body is over 65536 bytes", ErrContract), "contract violation"},
		{fmt.Errorf("pix: %w", context.Canceled), "canceled"},
		{fmt.Errorf("pix: %w", context.DeadlineExceeded), "timeout"},
		{dial(syscall.ECONNREFUSED), "connection refused"},
		{dial(syscall.ECONNRESET), "connection reset"},
		{fmt.Errorf("pix: %w", io.EOF), "connection closed"},
		{fmt.Errorf("pix: %w", io.ErrUnexpectedEOF), "connection closed"},
		{dial(syscall.EPIPE), "connection closed"},
		{errors.New("tls: handshake failure"), "transport error"},
	} {
		if got := reason(tc.err); got != tc.want {
			t.Errorf("reason(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
