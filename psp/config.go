package psp

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"time"
)

// ErrInvalidConfig is wrapped by every error from NewServer.
var ErrInvalidConfig = errors.New("psp: invalid config")

// DefaultToken is the one bearer token of DefaultConfig.
const DefaultToken = "test-token"

// The other values of DefaultConfig.
const (
	defaultBalanceCents = 100000                            // 1000.00
	defaultKeyTTL       = time.Duration(86_400_000_000_000) // 24 h
	defaultISPB         = "12345678"
	defaultMaxKeys      = 500_000
)

var (
	tokenPattern = regexp.MustCompile(`^[\x21-\x7E]+$`)
	ispbPattern  = regexp.MustCompile(`^\d{8}$`)
)

// Config configures a Server. Its zero value has no tokens and is not valid. Start from
// DefaultConfig.
type Config struct {
	// Tokens are the accepted bearer tokens. There must be at least one, each visible ASCII
	// without spaces. Idempotency keys are scoped per token.
	Tokens []string
	// BalanceCents is the payer's starting balance in cents. It may be 0 but not negative.
	BalanceCents int64
	// KeyTTL is how long a completed key is remembered, counted from its completion. The key is
	// then new again. 0 means 24 hours. A negative KeyTTL is invalid.
	KeyTTL time.Duration
	// MaxKeys is the most Idempotency-Keys stored at once, in flight or committed, over all
	// tokens. A new key beyond it is refused with 503 key_store_full and a Retry-After, and
	// nothing is stored. A stored key is never forgotten before its TTL, and its replays keep
	// working. The ledger keeps the latest MaxKeys settlements, so it holds the settlement of
	// every key that has not expired; older ones are dropped, oldest first, and counted in
	// Stats.Dropped. 0 means 500000: with typical payments, about 175 MB of live heap and
	// 400 MB of RSS. Negative is invalid.
	MaxKeys int
	// ISPB is the 8-digit participant code in every endToEndId. "" means 12345678.
	ISPB string
	// Control mounts the control API under /_psp/ (faults, settlements, balance, reset, stats).
	// Turn it on only in a test double. A control request that changes state (any method but
	// GET) must carry Content-Type application/json, or it gets 415 unsupported_media_type: no
	// HTML form or other simple cross-site request can send one.
	Control bool
	// ControlToken, if not empty, must come with every control request as
	// "Authorization: Bearer <ControlToken>", or the request gets 401 unauthorized. It is
	// visible ASCII without spaces, like Tokens, and never logged.
	ControlToken string
	// ControlHosts, if not empty, are the Host values a control request may carry, such as
	// "127.0.0.1:8080", matched without regard to case. A control request with another Host gets
	// 403 host_not_allowed, which keeps a web page that rebinds its own name to the PSP's
	// address (DNS rebinding) out. Empty means any Host. Payment requests are not checked.
	ControlHosts []string
	// Logger receives one record per payment request. Nil discards them. Tokens are never
	// logged.
	Logger *slog.Logger
	// ServiceTime is how long every payment takes before its commit, with its key in flight;
	// a slow fault adds to it. 0 means none; negative is invalid.
	ServiceTime time.Duration
	// Capacity is how many payment requests may be in processing at once; the next ones are
	// shed with 503 overloaded before any processing. 0 means no limit; negative is invalid.
	Capacity int
	// ShedRetryAfter, if positive, is sent with every shed answer as Retry-After in whole
	// seconds, rounded up. Negative is invalid.
	ShedRetryAfter time.Duration
}

// DefaultConfig has one token (DefaultToken), a balance of 1000.00, keys kept 24 hours, at most
// 500000 keys, the ISPB 12345678, no control API and no logging.
func DefaultConfig() Config {
	return Config{
		Tokens:       []string{DefaultToken},
		BalanceCents: defaultBalanceCents,
		KeyTTL:       defaultKeyTTL,
		MaxKeys:      defaultMaxKeys,
		ISPB:         defaultISPB,
	}
}

// withDefaults checks c and fills in its zero values.
func (c Config) withDefaults() (Config, error) {
	c.ISPB = cmp.Or(c.ISPB, defaultISPB)
	if len(c.Tokens) == 0 {
		return c, fmt.Errorf("%w: no tokens", ErrInvalidConfig)
	}
	if c.BalanceCents < 0 {
		return c, fmt.Errorf("%w: negative balance %d cents", ErrInvalidConfig, c.BalanceCents)
	}
	if c.KeyTTL < 0 {
		return c, fmt.Errorf("%w: negative key TTL %v", ErrInvalidConfig, c.KeyTTL)
	}
	if c.MaxKeys < 0 {
		return c, fmt.Errorf("%w: negative MaxKeys %d", ErrInvalidConfig, c.MaxKeys)
	}
	if !ispbPattern.MatchString(c.ISPB) {
		return c, fmt.Errorf("%w: ISPB %q is not 8 digits", ErrInvalidConfig, c.ISPB)
	}
	if err := c.checkCapacity(); err != nil {
		return c, err
	}
	for i, t := range c.Tokens {
		if !tokenPattern.MatchString(t) {
			return c, fmt.Errorf("%w: token %d (%q) must be visible ASCII without spaces", ErrInvalidConfig, i, t)
		}
	}
	if c.ControlToken != "" && !tokenPattern.MatchString(c.ControlToken) {
		return c, fmt.Errorf("%w: the control token must be visible ASCII without spaces", ErrInvalidConfig)
	}
	c.KeyTTL = cmp.Or(c.KeyTTL, defaultKeyTTL)
	c.MaxKeys = cmp.Or(c.MaxKeys, defaultMaxKeys)
	c.Logger = cmp.Or(c.Logger, slog.New(slog.DiscardHandler))
	return c, nil
}
