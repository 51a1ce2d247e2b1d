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

// Defaults of Config.
const (
	DefaultToken        = "test-token"
	DefaultBalanceCents = 100000                            // 1000.00
	DefaultKeyTTL       = time.Duration(86_400_000_000_000) // 24 h
	DefaultISPB         = "12345678"
)

var (
	tokenPattern = regexp.MustCompile(`^[\x21-\x7E]+$`)
	ispbPattern  = regexp.MustCompile(`^\d{8}$`)
)

// Config configures a Server. Its zero value is not valid (no tokens); start from
// DefaultConfig.
type Config struct {
	// Tokens are the accepted bearer tokens: at least one, each visible ASCII without spaces.
	// Idempotency keys are scoped per token.
	Tokens []string
	// BalanceCents is the payer's starting balance in cents; 0 is valid, negative is not.
	BalanceCents int64
	// KeyTTL is how long a completed key is remembered, counted from its completion; then the
	// key is new again. 0 means DefaultKeyTTL (24 h); negative is invalid.
	KeyTTL time.Duration
	// ISPB is the 8-digit participant code in every endToEndId; "" means DefaultISPB.
	ISPB string
	// Control mounts the /_psp/ control surface (faults, settlements, balance, reset) on
	// ServeHTTP, without authentication: turn it on only in a test double.
	Control bool
	// Logger receives one record per payment request; nil discards them. Tokens are never
	// logged.
	Logger *slog.Logger
}

// DefaultConfig is one token ("test-token"), a balance of 1000.00, keys kept 24 h, the ISPB
// 12345678, no control surface and no logging.
func DefaultConfig() Config {
	return Config{
		Tokens:       []string{DefaultToken},
		BalanceCents: DefaultBalanceCents,
		KeyTTL:       DefaultKeyTTL,
		ISPB:         DefaultISPB,
	}
}

// withDefaults checks c and fills in its zero values.
func (c Config) withDefaults() (Config, error) {
	c.ISPB = cmp.Or(c.ISPB, DefaultISPB)
	if len(c.Tokens) == 0 {
		return c, fmt.Errorf("%w: no tokens", ErrInvalidConfig)
	}
	if c.BalanceCents < 0 {
		return c, fmt.Errorf("%w: negative balance %d cents", ErrInvalidConfig, c.BalanceCents)
	}
	if c.KeyTTL < 0 {
		return c, fmt.Errorf("%w: negative key TTL %v", ErrInvalidConfig, c.KeyTTL)
	}
	if !ispbPattern.MatchString(c.ISPB) {
		return c, fmt.Errorf("%w: ISPB %q is not 8 digits", ErrInvalidConfig, c.ISPB)
	}
	for i, t := range c.Tokens {
		if !tokenPattern.MatchString(t) {
			return c, fmt.Errorf("%w: token %d (%q) must be visible ASCII without spaces", ErrInvalidConfig, i, t)
		}
	}
	c.KeyTTL = cmp.Or(c.KeyTTL, DefaultKeyTTL)
	c.Logger = cmp.Or(c.Logger, slog.New(slog.DiscardHandler))
	return c, nil
}
