package webhook

import (
	"cmp"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"time"
)

// The limits and defaults of a Config.
const (
	// MinSecretBytes is the shortest Secret a Config may have.
	MinSecretBytes = 32
	// MaxAttempts is the most tries a delivery may have, and the most a fail fault may fail.
	MaxAttempts = 100

	defaultAttempts  = 8
	defaultDelayBase = time.Second
	defaultWaitMax   = time.Minute
	defaultTimeout   = 5 * time.Second
	defaultQueue     = 1000
	defaultParallel  = 4
)

// Config configures a Sender. Its zero value has no URL and no secret, and is not valid. The
// zero value of every other field means its default.
type Config struct {
	// URL is where every delivery is POSTed, as given: an absolute http or https URL.
	URL string
	// Secret signs every delivery. It has at least MinSecretBytes bytes. It is never logged,
	// recorded or printed: its type formats as [secret].
	Secret Secret
	// Attempts is how many tries a delivery gets, the first included: 1 to MaxAttempts. 0
	// means 8.
	Attempts int
	// DelayBase is the ceiling of the wait after a delivery's first try. The ceiling doubles
	// with each try. 0 means 1 s; negative is invalid.
	DelayBase time.Duration
	// WaitMax caps the ceiling of every wait. It is not below DelayBase. 0 means 1 min, or
	// DelayBase if that is longer.
	WaitMax time.Duration
	// Timeout bounds one try, from its start to the end of the answer's body. A try without an
	// answer by then is retried. 0 means 5 s; negative is invalid.
	Timeout time.Duration
	// Queue is the most deliveries under way at once, waiting or in a try. 0 means 1000;
	// negative is invalid.
	Queue int
	// Parallel is the most tries in flight at once. Tries start in the order they come due,
	// ties in the order Send queued them, so with Parallel 1 and no fault deliveries arrive in
	// the order sent until one is retried. 0 means 4; negative is invalid.
	Parallel int
	// Transport makes the requests. Nil means a transport of the Sender's own, as
	// http.DefaultTransport, whose idle connections Close closes. The Sender follows no
	// redirect: a 3xx is a refusal.
	Transport http.RoundTripper
	// Logger gets a record for each try and each delivery's end, at Info, and a drop or a
	// delivery given up at Warn. Nil discards them.
	Logger *slog.Logger
	// Form writes each delivery: its body, where it goes and how it is signed. Nil means the
	// double's own form, described in the package documentation.
	Form Form
	// Rand is the source of the uniform draws in [0, 1) that retry.FullJitter turns into
	// waits, one per wait, one call at a time. Nil means math/rand/v2's Float64. A fixed
	// sequence of draws makes every wait exact.
	Rand func() float64
}

// Secret is the key that signs deliveries. Printed with any verb of package fmt, logged or
// encoded as text, it is [secret]: its bytes never reach a log or an answer by mistake.
type Secret []byte

// redacted is what a Secret prints as.
const redacted = "[secret]"

func (Secret) Format(f fmt.State, _ rune)   { io.WriteString(f, redacted) }
func (Secret) LogValue() slog.Value         { return slog.StringValue(redacted) }
func (Secret) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// ConfigError is the error of New for a Config it cannot follow: which field, and why.
type ConfigError struct {
	Field  string // the field of Config, such as "URL"
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("webhook: invalid config: %s %s", e.Field, e.Reason)
}

// withDefaults checks c as given, then fills in its zero values.
func (c Config) withDefaults() (Config, error) {
	u, err := url.Parse(c.URL)
	var field, reason string
	switch {
	case err != nil || !u.IsAbs() || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		field, reason = "URL", fmt.Sprintf("%q is not an absolute http or https URL", c.URL)
	case len(c.Secret) < MinSecretBytes:
		field, reason = "Secret", fmt.Sprintf("has %d bytes, want at least %d", len(c.Secret), MinSecretBytes)
	case c.Attempts < 0 || c.Attempts > MaxAttempts:
		field, reason = "Attempts", fmt.Sprintf("is %d, want 1 to %d (0 for %d)", c.Attempts, MaxAttempts, defaultAttempts)
	case c.DelayBase < 0:
		field, reason = "DelayBase", fmt.Sprintf("is %v, want 0 or more", c.DelayBase)
	case c.WaitMax < 0 || c.WaitMax > 0 && c.WaitMax < cmp.Or(c.DelayBase, defaultDelayBase):
		field, reason = "WaitMax", fmt.Sprintf("is %v, want 0 or at least DelayBase (%v)", c.WaitMax,
			cmp.Or(c.DelayBase, defaultDelayBase))
	case c.Timeout < 0:
		field, reason = "Timeout", fmt.Sprintf("is %v, want 0 or more", c.Timeout)
	case c.Queue < 0:
		field, reason = "Queue", fmt.Sprintf("is %d, want 0 or more", c.Queue)
	case c.Parallel < 0:
		field, reason = "Parallel", fmt.Sprintf("is %d, want 0 or more", c.Parallel)
	}
	if field != "" {
		return c, &ConfigError{Field: field, Reason: reason}
	}
	c.Secret = append(Secret(nil), c.Secret...) // the caller's bytes may change
	c.Attempts = cmp.Or(c.Attempts, defaultAttempts)
	c.DelayBase = cmp.Or(c.DelayBase, defaultDelayBase)
	c.WaitMax = cmp.Or(c.WaitMax, max(defaultWaitMax, c.DelayBase))
	c.Timeout = cmp.Or(c.Timeout, defaultTimeout)
	c.Queue = cmp.Or(c.Queue, defaultQueue)
	c.Parallel = cmp.Or(c.Parallel, defaultParallel)
	c.Logger = cmp.Or(c.Logger, slog.New(slog.DiscardHandler))
	if c.Form == nil {
		c.Form = nativeForm{}
	}
	if c.Rand == nil {
		c.Rand = rand.Float64
	}
	return c, nil
}
