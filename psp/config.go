package psp

import (
	"cmp"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"time"
)

// The values of DefaultConfig.
const (
	DefaultToken          = "test-token"
	defaultBalanceCents   = 100000 // 1000.00
	defaultKeyTTL         = 24 * time.Hour
	defaultMaxKeys        = 500_000
	defaultMaxSettlements = 1_000_000
	defaultISPB           = "12345678"
	defaultJournalMax     = 1_000
	defaultJournalBytes   = 1 << 20 // 1 MiB
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
	// KeyTTL is how long a completed key is remembered, counted from its completion: the end
	// of its payment, if pending. The key is then new again. 0 means 24 hours. A negative
	// KeyTTL is invalid.
	KeyTTL time.Duration
	// MaxKeys is the most Idempotency-Keys stored at once, over all tokens. A new key beyond it
	// gets 503 key_store_full, and no stored key is forgotten before its TTL. 0 means
	// 500000; negative is invalid.
	MaxKeys int
	// MaxSettlements is the most settlements the ledger keeps: the latest ones, the oldest
	// dropped first (Stats.Dropped). The latest MaxSettlements closed keys are kept too. Once a
	// settlement has been dropped, a lookup that finds nothing answers 410 outcome_unprovable.
	// 0 means 1000000; negative is invalid.
	MaxSettlements int
	// ISPB is the 8-digit participant code in every endToEndId the Server makes. "" means
	// 12345678.
	ISPB string
	// Logger receives one record per payment request and per lookup. Nil discards them.
	// Tokens are never logged.
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
	// JournalMax is the most requests the journal (Server.Requests) keeps: the latest ones, the
	// oldest dropped first. 0 means 1000; negative is invalid.
	JournalMax int
	// JournalBytes is the most bytes the journal's requests may take, the oldest dropped first.
	// A request counts its method, path, key, traceparent and payload (as allocated), and 256
	// bytes more. A request larger than JournalBytes empties the journal, itself included. 0
	// means 1 MiB; negative is invalid.
	JournalBytes int
	// CompleteAfter, if positive, leaves every payment that would settle pending for that
	// long: accepted (202 EM_PROCESSAMENTO, its valor held), then settled (REALIZADO). 0
	// settles at once (201); negative is invalid. A pending fault overrides it.
	CompleteAfter time.Duration
	// RejectFromCents and RejectToCents are the range of valor, in cents, both included, whose
	// payments are accepted (202), then rejected (NAO_REALIZADO) after CompleteAfter, even if
	// it is 0, their valor released. Both 0 (the default) reject none. A negative bound, or a
	// range that ends before it starts, is invalid. A pending fault overrides it.
	RejectFromCents, RejectToCents int64
	// OnEnd, if not nil, is called once for each payment that reaches its terminal status,
	// settled or rejected, after the Server's lock is released, from the goroutine that ended
	// the payment: the request's, for a payment settled at once; for a pending one, the timer's
	// at its end, or that of a request or method call of the Server that came first. Calls may
	// run concurrently. A payment in flight across a Reset, or one that ends after Close, is
	// not reported.
	OnEnd func(Ended)
}

// DefaultConfig has one token (DefaultToken), a balance of 1000.00, keys kept 24 hours, at most
// 500000 keys and 1000000 settlements, the ISPB 12345678, no capacity limit, no logging, and a
// journal of at most 1000 requests in 1 MiB.
func DefaultConfig() Config {
	return Config{
		Tokens:         []string{DefaultToken},
		BalanceCents:   defaultBalanceCents,
		KeyTTL:         defaultKeyTTL,
		MaxKeys:        defaultMaxKeys,
		MaxSettlements: defaultMaxSettlements,
		ISPB:           defaultISPB,
		JournalMax:     defaultJournalMax,
		JournalBytes:   defaultJournalBytes,
	}
}

// ConfigError is the error of NewServer for a Config it refuses: which field, and why. A
// caller that set the fields from its own input, such as command-line flags, branches on
// Field to say which input is wrong.
type ConfigError struct {
	// Field is the field of Config refused, such as "KeyTTL". A range that ends before it
	// starts is RejectToCents's fault, a negative start RejectFromCents's.
	Field string
	// Token is, when Field is "Tokens", the position from 0 of the first token refused. It is
	// -1 otherwise, and when there are no tokens at all.
	Token int
	// Reason says what is wrong with the value given, as in "negative key TTL -1s".
	Reason string
}

func (e *ConfigError) Error() string {
	return "psp: invalid config: " + e.Reason
}

// withDefaults checks c as given, then fills in its zero values. It returns a *ConfigError
// for the first field it refuses, the Tokens first.
func (c Config) withDefaults() (Config, error) {
	if err := c.check(); err != nil {
		return c, err
	}
	c.Tokens = slices.Clone(c.Tokens) // the caller's slice may change
	c.ISPB = cmp.Or(c.ISPB, defaultISPB)
	c.KeyTTL = cmp.Or(c.KeyTTL, defaultKeyTTL)
	c.MaxKeys = cmp.Or(c.MaxKeys, defaultMaxKeys)
	c.MaxSettlements = cmp.Or(c.MaxSettlements, defaultMaxSettlements)
	c.JournalMax = cmp.Or(c.JournalMax, defaultJournalMax)
	c.JournalBytes = cmp.Or(c.JournalBytes, defaultJournalBytes)
	c.Logger = cmp.Or(c.Logger, slog.New(slog.DiscardHandler))
	return c, nil
}

// check returns a *ConfigError for the first field of c it refuses, or nil.
func (c Config) check() *ConfigError {
	bad := func(field, reason string, args ...any) *ConfigError {
		return &ConfigError{Field: field, Token: -1, Reason: fmt.Sprintf(reason, args...)}
	}
	token := slices.IndexFunc(c.Tokens, func(t string) bool { return !tokenPattern.MatchString(t) })
	switch {
	case len(c.Tokens) == 0:
		return bad("Tokens", "no tokens")
	case token >= 0:
		return &ConfigError{Field: "Tokens", Token: token, Reason: "every token must be visible ASCII without spaces"}
	case c.BalanceCents < 0:
		return bad("BalanceCents", "negative balance %d cents", c.BalanceCents)
	case c.KeyTTL < 0:
		return bad("KeyTTL", "negative key TTL %v", c.KeyTTL)
	case c.MaxKeys < 0:
		return bad("MaxKeys", "negative MaxKeys %d", c.MaxKeys)
	case c.MaxSettlements < 0:
		return bad("MaxSettlements", "negative MaxSettlements %d", c.MaxSettlements)
	case c.ISPB != "" && !ispbPattern.MatchString(c.ISPB):
		return bad("ISPB", "ISPB %q is not 8 digits", c.ISPB)
	case c.ServiceTime < 0:
		return bad("ServiceTime", "negative service time %v", c.ServiceTime)
	case c.Capacity < 0:
		return bad("Capacity", "negative capacity %d", c.Capacity)
	case c.ShedRetryAfter < 0:
		return bad("ShedRetryAfter", "negative shed Retry-After %v", c.ShedRetryAfter)
	case c.JournalMax < 0:
		return bad("JournalMax", "negative JournalMax %d", c.JournalMax)
	case c.JournalBytes < 0:
		return bad("JournalBytes", "negative JournalBytes %d", c.JournalBytes)
	case c.CompleteAfter < 0:
		return bad("CompleteAfter", "negative CompleteAfter %v", c.CompleteAfter)
	case c.RejectFromCents < 0 || c.RejectFromCents > c.RejectToCents:
		field := "RejectToCents"
		if c.RejectFromCents < 0 {
			field = "RejectFromCents"
		}
		return bad(field, "rejected range %d to %d cents: want 0 <= RejectFromCents <= RejectToCents",
			c.RejectFromCents, c.RejectToCents)
	}
	return nil
}
