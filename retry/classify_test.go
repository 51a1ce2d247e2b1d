package retry_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"

	"pixretry/retry"
)

// TestTransientStatus classifies every status from 400 to 599, bare and
// wrapped the ways callers wrap them.
func TestTransientStatus(t *testing.T) {
	want := map[int]bool{}
	mark := func(from, to int, transient bool) {
		for code := from; code <= to; code++ {
			if _, dup := want[code]; dup {
				t.Fatalf("status %d listed twice", code)
			}
			want[code] = transient
		}
	}
	mark(400, 408, false)
	mark(409, 409, true) // the same idempotency key is still being processed
	mark(410, 428, false)
	mark(429, 429, true)
	mark(430, 499, false)
	mark(500, 500, true)
	mark(501, 501, false) // Not Implemented: no retry fixes it
	mark(502, 504, true)
	mark(505, 505, false) // HTTP Version Not Supported: no retry fixes it
	mark(506, 599, true)
	// Outside 4xx and 5xx nothing is transient.
	mark(100, 399, false)
	mark(600, 999, false)
	for code := 400; code <= 599; code++ {
		if _, ok := want[code]; !ok {
			t.Fatalf("status %d has no expectation", code)
		}
	}

	for code, transient := range want {
		se := &statusError{code: code}
		for _, err := range []error{
			se,
			fmt.Errorf("pix: send: %w", se),
			&url.Error{Op: "Post", URL: "http://psp.test/pix", Err: se},
			errors.Join(errors.New("context"), se),
		} {
			if got := retry.Transient(err); got != transient {
				t.Errorf("Transient(%v) = %t, want %t", err, got, transient)
			}
		}
	}
}

// TestTransientErrorShapes covers the rules that do not need a network: how
// errors are wrapped and which rule wins when a chain holds several.
func TestTransientErrorShapes(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"unknown", errors.New("psp: unexpected answer"), false},
		{"canceled", context.Canceled, false},
		{"canceled wrapped in url.Error", &url.Error{Op: "Get", URL: "http://psp.test", Err: context.Canceled}, false},
		{"canceled beside a closed connection", errors.Join(context.Canceled, net.ErrClosed), false},
		{"canceled beside a 503", errors.Join(&statusError{code: 503}, context.Canceled), false},
		{"deadline exceeded", context.DeadlineExceeded, true},
		{"os deadline exceeded", fmt.Errorf("read: %w", os.ErrDeadlineExceeded), true},
		{"broken pipe", &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.EPIPE)}, true},
		{"status decides over EOF", fmt.Errorf("%w: %w", &statusError{code: 400}, io.EOF), false},
		{"status decides over timeout", fmt.Errorf("%w: %w", &statusError{code: 422}, context.DeadlineExceeded), false},
		{"DNS no such host", &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "psp.invalid", IsNotFound: true}}, false},
		{"DNS timeout", &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "i/o timeout", Name: "psp.test", IsTimeout: true}}, true},
		{"connection aborted (not listed)", syscall.ECONNABORTED, false},
		{"a net.Error that is no timeout", &net.OpError{Op: "read", Net: "tcp", Err: errors.New("odd")}, false},
	}
	for _, tt := range tests {
		if got := retry.Transient(tt.err); got != tt.want {
			t.Errorf("%s: Transient(%v) = %t, want %t", tt.name, tt.err, got, tt.want)
		}
	}
}
