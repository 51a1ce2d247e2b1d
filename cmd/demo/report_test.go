package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestRootCause(t *testing.T) {
	base := errors.New("connection reset by peer")
	joinedErr := errors.Join(base, errors.New("other"))
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"bare", base, base},
		{"wrapped twice", fmt.Errorf("pix: %w", fmt.Errorf("Post: %w", base)), base},
		// A join has no single cause: it is its own root.
		{"joined", fmt.Errorf("retry: %w", joinedErr), joinedErr},
	}
	for _, tt := range tests {
		if got := rootCause(tt.err); got != tt.want {
			t.Errorf("%s: rootCause(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}

// A failure that is neither a refusal nor an unknown outcome is printed whole.
func TestPrintResultOfAnotherFailure(t *testing.T) {
	var out strings.Builder
	printResult(&out, result{
		Sent: []wireAttempt{{Key: "k"}, {Key: "k"}},
		Err:  fmt.Errorf("pix: %w", errors.New("boom")),
	})
	if got, want := out.String(), "=> failed after 2 attempt(s): pix: boom\n"; got != want {
		t.Errorf("printResult() wrote %q, want %q", got, want)
	}
}

func TestPrefix(t *testing.T) {
	tests := []struct{ key, want string }{
		{"", ""},
		{"abc", "abc"},
		{"12345678", "12345678"},
		{"123456789", "12345678"},
		{"8b971889-5c3e-4b1e-9d0a-2f1c3e4d5a6b", "8b971889"},
	}
	for _, tt := range tests {
		if got := prefix(tt.key); got != tt.want {
			t.Errorf("prefix(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
}
