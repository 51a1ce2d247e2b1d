package main

import (
	"bufio"
	"io"
	"log/slog"
	"sync"
	"time"
)

// flushEvery bounds how long a log record waits in a logBuffer before it is written.
const flushEvery = 100 * time.Millisecond

// logBuffer holds log records on their way to w, so that the records of many payments go out
// in one write instead of one write each. A record waits at most flushEvery, or until the buffer
// fills (64 KiB), Flush or Close. A write to a logBuffer never splits a record. It is safe for
// concurrent use.
type logBuffer struct {
	mu      sync.Mutex
	w       io.Writer
	buf     *bufio.Writer
	pending *time.Timer // the flush that the first buffered record scheduled, or nil
	closed  bool
}

func newLogBuffer(w io.Writer) *logBuffer {
	return &logBuffer{w: w, buf: bufio.NewWriterSize(w, 64<<10)}
}

// Write buffers p, and writes it through to w once the logBuffer is closed.
func (l *logBuffer) Write(p []byte) (int, error) { return l.write(p, false) }

// write buffers p, then flushes if now, or else makes sure that a flush is due.
func (l *logBuffer) write(p []byte, now bool) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return l.w.Write(p)
	}
	n, err := l.buf.Write(p)
	if now {
		l.flush()
	} else if l.pending == nil {
		l.pending = time.AfterFunc(flushEvery, l.Flush)
	}
	return n, err
}

// Flush writes the records held so far.
func (l *logBuffer) Flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flush()
}

func (l *logBuffer) flush() {
	if l.pending != nil {
		l.pending.Stop()
		l.pending = nil
	}
	l.buf.Flush() // a log that cannot be written has nowhere to report it
}

// Close writes the records held so far. Records written after it go straight to w.
func (l *logBuffer) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flush()
	l.closed = true
}

// writeNow is a Writer that writes through the logBuffer at once, with the records held before.
type writeNow struct{ l *logBuffer }

func (w writeNow) Write(p []byte) (int, error) { return w.l.write(p, true) }

// newLoggers returns, for the records at level or above, the payments' logger, whose records wait in a logBuffer on their way to
// stderr, and the logger of the records a person waits for (listening, shutting down, server
// errors), which go out at once and in order after the payments before them. done writes every
// record held and must be called before the command exits.
func newLoggers(stderr io.Writer, level logLevel) (payments, now *slog.Logger, done func()) {
	l := newLogBuffer(stderr)
	opts := &slog.HandlerOptions{Level: slog.Level(level)}
	return slog.New(slog.NewTextHandler(l, opts)), slog.New(slog.NewTextHandler(writeNow{l}, opts)), l.Close
}
