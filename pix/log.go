package pix

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// logger is the Observer that writes Client.Logger's records: one consumer of a Client's
// events, beside the caller's Observer. It keeps the start of each call in the call's context,
// for the elapsed time of its attempts. Client.Logger's doc is the contract of its records.
type logger struct{ log *slog.Logger }

// callStart is the context key of the instant a call started.
type callStart struct{}

func (logger) CallStarted(ctx context.Context, _ Call) context.Context {
	return context.WithValue(ctx, callStart{}, time.Now())
}

func (logger) AttemptStarted(ctx context.Context, _ Attempt) context.Context { return ctx }

func (logger) Inject(context.Context, http.Header) {}

// KeyRotated logs nothing: the caller that gives a key up logs it.
func (logger) KeyRotated(context.Context, string, string) {}

// AttemptEnded logs "pix attempt" or "pix lookup attempt": at Info when the PSP answered for
// the key with a receipt, a lookup's proof or a pending payment, else at Warn with the error.
func (l logger) AttemptEnded(ctx context.Context, a Attempt) {
	msg, level, outcome := "pix attempt", slog.LevelInfo, string(a.Outcome)
	if a.Method == http.MethodGet {
		msg = "pix lookup attempt"
	}
	switch {
	case a.Outcome == OutcomeLookupFound:
		outcome = "found"
	case a.Outcome == OutcomeLookupNone:
		outcome = "not found"
	case a.Outcome == OutcomePending:
	case a.Err != nil:
		level, outcome = slog.LevelWarn, reason(a.Err)
	}
	if !l.log.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{slog.Int("attempt", a.Number), slog.String("key", a.Key), slog.String("outcome", outcome)}
	if level == slog.LevelWarn {
		attrs = append(attrs, slog.String("error", a.Err.Error()))
	}
	start, _ := ctx.Value(callStart{}).(time.Time)
	attrs = append(attrs, slog.Bool("transient", a.Outcome == OutcomeTransient), slog.Duration("wait", a.Wait),
		slog.Duration("elapsed", time.Since(start)))
	l.log.LogAttrs(ctx, level, msg, attrs...)
}

// CallEnded logs the end of a payment, a lookup or an await. A Resume logs none of its own:
// its resend and its lookup log theirs.
func (l logger) CallEnded(ctx context.Context, c Call) {
	key, attempts := slog.String("key", c.Key), slog.Int("attempts", c.Attempts)
	msg := "pix " + callNoun(c.Kind)
	switch {
	case c.Kind == CallResume:
	case c.Err == nil && c.Kind == CallLookup:
		l.log.LogAttrs(ctx, slog.LevelInfo, "pix lookup found", key, attempts,
			slog.String("endToEndId", c.Receipt.EndToEndID))
	case c.Err == nil:
		l.log.LogAttrs(ctx, slog.LevelInfo, msg+" settled", key, attempts,
			slog.String("endToEndId", c.Receipt.EndToEndID), slog.Bool("replayed", c.Receipt.Replayed))
	case errors.Is(c.Err, ErrNoSettlement):
		l.log.LogAttrs(ctx, slog.LevelInfo, msg+" found nothing", key, attempts)
	case errors.Is(c.Err, ErrPending):
		l.log.LogAttrs(ctx, slog.LevelInfo, msg+" pending", key, attempts, slog.String("error", c.Err.Error()))
	default:
		l.log.LogAttrs(ctx, slog.LevelError, msg+" failed", key, attempts,
			slog.Bool("outcome_unknown", errors.Is(c.Err, ErrOutcomeUnknown)), slog.String("error", c.Err.Error()))
	}
}

// callNoun is the word for a call of kind in its records: lookup, await or payment.
func callNoun(kind CallKind) string {
	switch kind {
	case CallLookup, CallAwait:
		return string(kind)
	}
	return "payment"
}

// tee reports each event to the caller's Observer, then to the Logger's. The Logger's context
// values go on top of the caller's.
type tee struct{ obs, log Observer }

func (t tee) CallStarted(ctx context.Context, c Call) context.Context {
	return t.log.CallStarted(t.obs.CallStarted(ctx, c), c)
}

func (t tee) CallEnded(ctx context.Context, c Call) {
	t.obs.CallEnded(ctx, c)
	t.log.CallEnded(ctx, c)
}

func (t tee) AttemptStarted(ctx context.Context, a Attempt) context.Context {
	return t.log.AttemptStarted(t.obs.AttemptStarted(ctx, a), a)
}

func (t tee) Inject(ctx context.Context, h http.Header) { t.obs.Inject(ctx, h) }

func (t tee) AttemptEnded(ctx context.Context, a Attempt) {
	t.obs.AttemptEnded(ctx, a)
	t.log.AttemptEnded(ctx, a)
}

func (t tee) KeyRotated(ctx context.Context, from, to string) { t.obs.KeyRotated(ctx, from, to) }

// observer is where a call reports its events: c.Observer, a logger for c.Logger, both, or nil
// when the Client has neither.
func (c *Client) observer() Observer {
	switch {
	case c.Logger == nil:
		return c.Observer
	case c.Observer == nil:
		return logger{c.Logger}
	}
	return tee{c.Observer, logger{c.Logger}}
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
	case errors.Is(err, ErrPending):
		return "pending"
	case errors.Is(err, ErrRejected):
		return "rejected"
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
