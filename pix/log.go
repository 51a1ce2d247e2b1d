package pix

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	"pixretry/retry"
)

// journal is what the log records of one payment or lookup share.
type journal struct {
	ctx   context.Context // the caller's
	log   *slog.Logger
	key   string
	start time.Time
}

// journal starts the records of a call for key.
func (c *Client) journal(ctx context.Context, key string) journal {
	return journal{ctx: ctx, log: c.logger(), key: key, start: time.Now()}
}

// logAttempt writes attempt a's record, msg, at level, with outcome, and error on failure.
func (j *journal) logAttempt(msg string, level slog.Level, a retry.Attempt, outcome ...slog.Attr) {
	if !j.log.Enabled(j.ctx, level) {
		return
	}
	wait := time.Duration(0)
	if a.Stop == retry.StopNone {
		wait = a.Wait
	}
	attrs := append([]slog.Attr{slog.Int("attempt", a.Number), slog.String("key", j.key)}, outcome...)
	attrs = append(attrs, slog.Bool("transient", a.Transient), slog.Duration("wait", wait),
		slog.Duration("elapsed", time.Since(j.start)))
	j.log.LogAttrs(j.ctx, level, msg, attrs...)
}

// settledOutcome is the outcome of a receipt, replayed or not.
func settledOutcome(replayed bool) Outcome {
	if replayed {
		return OutcomeReplayed
	}
	return OutcomeSettled
}

// reason says in a few words why an attempt failed, such as "status 503 injected_fault", "timeout",
// "connection reset", "contract violation" ...
func reason(err error) string {
	if e, ok := errors.AsType[*Error](err); ok {
		return strings.TrimSuffix("status "+strconv.Itoa(e.Status)+" "+e.Code, " ")
	}
	switch {
	case errors.Is(err, ErrContract):
		return "contract violation"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case isTimeout(err):
		return "timeout"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.EPIPE):
		return "connection closed"
	}
	return "transport error"
}

// isTimeout reports whether err is a timeout, such as an attempt's deadline (context.DeadlineExceeded
// is a net.Error), a dial or response-header timeout.
func isTimeout(err error) bool {
	e, ok := errors.AsType[net.Error](err)
	return ok && e.Timeout()
}
