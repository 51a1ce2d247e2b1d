package pixotel

import (
	"context"
	"fmt"
	"io"
	"testing"

	"pixretry/pix"
)

func TestErrorType(t *testing.T) {
	contract := fmt.Errorf("%w: the 201 is for another valor", pix.ErrContract)
	tests := []struct {
		name   string
		status int
		err    error
		want   string
	}{
		{"a receipt", 201, nil, ""},
		{"a 503", 503, &pix.Error{Status: 503}, "503"},
		{"a 400", 400, &pix.Error{Status: 400}, "400"},
		{"a 201 that breaks the contract", 201, contract, "contract"},
		{"a 399 that breaks the contract", 399, contract, "contract"},
		{"a context canceled", 0, fmt.Errorf("pix: %w", context.Canceled), "canceled"},
		{"a timeout", 0, fmt.Errorf("pix: %w", context.DeadlineExceeded), "timeout"},
		{"a connection closed", 0, fmt.Errorf("pix: %w", io.EOF), "transport"},
	}
	for _, tt := range tests {
		if got := errorType(pix.Attempt{Status: tt.status, Err: tt.err}); got != tt.want {
			t.Errorf("%s: errorType() = %q, want %q", tt.name, got, tt.want)
		}
	}
}
