package durable

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"pixretry/pix"
)

// Trouble is why the PSP cannot be used at all, whatever the payment: every attempt meets it,
// and no payment can end until someone fixes it. An intent that meets it stays pending, as
// for any unknown outcome: the key may hold a settlement, and the fix is the operator's.
type Trouble int

// The troubles a Payer tells apart.
const (
	// TroubleCredentials: the PSP answered 401 or 403, so it refuses the client's credentials
	// (Client.Token) or the client's access.
	TroubleCredentials Trouble = iota + 1
	// TroubleUnreachable: no connection to the PSP could be made (Client.BaseURL): refused,
	// no route, or a name that does not resolve.
	TroubleUnreachable
)

// String says what t means, in an operator's words.
func (t Trouble) String() string {
	switch t {
	case TroubleCredentials:
		return "the PSP refuses the client's credentials"
	case TroubleUnreachable:
		return "the PSP cannot be reached"
	}
	return "no trouble"
}

// troubleOf is the trouble that err, an attempt's error, shows, or 0 for none.
func troubleOf(err error) Trouble {
	var answered *pix.Error
	if errors.As(err, &answered) {
		if answered.Status == http.StatusUnauthorized || answered.Status == http.StatusForbidden {
			return TroubleCredentials
		}
		return 0
	}
	var dns *net.DNSError
	var op *net.OpError
	if errors.As(err, &dns) || errors.As(err, &op) && op.Op == "dial" {
		return TroubleUnreachable
	}
	return 0
}

// PSPUnusableError is Wait's error when every attempt for Config.PSPOutageMax met one
// Trouble. The intents it left are still pending, each with its key: a later Start, once the
// trouble is fixed, resumes them.
type PSPUnusableError struct {
	Trouble Trouble
	For     time.Duration // how long every attempt met it
	Last    error         // the last attempt's error
	Advice  string        // Config.Advice's advice for Trouble; "" without one
}

// Error says the trouble, how long it lasted, the advice, then the last attempt's error.
func (e *PSPUnusableError) Error() string {
	msg := fmt.Sprintf("durable: %v on every attempt for %v", e.Trouble, e.For.Round(time.Millisecond))
	if e.Advice != "" {
		msg += "; " + e.Advice
	}
	return msg + "; pending intents keep their keys; last error: " + e.Last.Error()
}

// Unwrap returns the last attempt's error.
func (e *PSPUnusableError) Unwrap() error { return e.Last }

// troubleEvery is how often, at most, an ongoing trouble is logged again.
const troubleEvery = 30 * time.Second

// troubleWatch follows the attempts' troubles across the workers: when the current run of
// attempts that all met the same trouble began, and when it was last logged. It is safe for
// concurrent use.
type troubleWatch struct {
	mu       sync.Mutex
	trouble  Trouble
	since    time.Time // the first attempt of the run
	last     error     // the run's last attempt's error
	logged   time.Time // when the run was last logged; zero if never
	attempts int       // the run's attempts since it was last logged
}

// note records an attempt that ended at now with err, and returns whether to log the run now:
// at its first attempt, then at most every troubleEvery. An attempt without trouble, or with
// another, ends the run.
func (w *troubleWatch) note(now time.Time, err error) (t Trouble, attempts int, log bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	t = troubleOf(err)
	if t != w.trouble {
		w.trouble, w.since, w.logged, w.attempts = t, now, time.Time{}, 0
	}
	if t == 0 {
		return 0, 0, false
	}
	w.last = err
	w.attempts++
	if !w.logged.IsZero() && now.Sub(w.logged) < troubleEvery {
		return t, w.attempts, false
	}
	attempts, w.attempts, w.logged = w.attempts, 0, now
	return t, attempts, true
}

// unusable is the error for the current run if it has lasted max by now's reading, else nil.
// It reads the clock only during a run.
func (w *troubleWatch) unusable(now func() time.Time, max time.Duration, advice func(Trouble) string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.trouble == 0 {
		return nil
	}
	d := now().Sub(w.since)
	if d < max {
		return nil
	}
	return &PSPUnusableError{Trouble: w.trouble, For: d, Last: w.last, Advice: advice(w.trouble)}
}

// advice is Config.Advice's advice for t, or "".
func (c Config) advice(t Trouble) string {
	if c.Advice == nil {
		return ""
	}
	return c.Advice(t)
}

// logTrouble logs the attempt that ended with sent at Error if the trouble it met is due a
// record, and returns whether it met one: the caller then logs the attempt at Debug only.
func (p *Payer[TTx]) logTrouble(ctx context.Context, sent error) bool {
	t, attempts, due := p.trouble.note(p.now(), sent)
	if t == 0 {
		return false
	}
	if due {
		attrs := []slog.Attr{slog.Int("resumptions", attempts), slog.String("error", sent.Error())}
		if a := p.cfg.advice(t); a != "" {
			attrs = append(attrs, slog.String("fix", a))
		}
		p.cfg.Logger.LogAttrs(ctx, slog.LevelError, "durable: "+t.String()+"; payments wait", attrs...)
	}
	return true
}
