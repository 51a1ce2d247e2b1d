package pix

import (
	"context"
	"errors"
	"io"
	"testing"
)

// A connection lost before the PSP answered a byte is retried, and its error reads and
// unwraps as the round trip's own, so that a log and errors.Is see what net/http saw.
func TestLostConnectionReadsAsTheRoundTripsError(t *testing.T) {
	var w wire
	w.connected.Store(true)
	err := w.failed(context.Background(), io.ErrUnexpectedEOF)
	if got, want := err.Error(), "pix: unexpected EOF"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("errors.Is(%v, io.ErrUnexpectedEOF) = false, want true", err)
	}
	if !transient(err) {
		t.Errorf("transient(%v) = false, want true: nothing was answered", err)
	}
}
