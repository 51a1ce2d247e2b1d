package main

import (
	"io"
	"log/slog"
	"time"
)

// newLogger returns the logger the demo's pix.Client writes its per-attempt records with:
// slog text lines on w, trimmed by compact.
func newLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{ReplaceAttr: compact}))
}

// compact trims a record so that, for a given seed, it reads the same on every run: no time
// and no elapsed time; no error text, which names the PSP's port and the client's (the outcome
// attribute names the reason, and the demo prints each payment's final error itself); keys
// cut to their prefix; waits rounded to the microsecond.
func compact(_ []string, a slog.Attr) slog.Attr {
	switch a.Key {
	case slog.TimeKey, "elapsed", "error":
		return slog.Attr{}
	case "key":
		return slog.String(a.Key, prefix(a.Value.String()))
	case "wait":
		if a.Value.Kind() == slog.KindDuration {
			return slog.Duration(a.Key, a.Value.Duration().Round(time.Microsecond))
		}
	}
	return a
}
