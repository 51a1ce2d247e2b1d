package psp

import (
	"net/http"
	"regexp"
	"strings"
)

// Header names of the idempotency protocol.
const (
	// idempotencyKeyHeader carries the client's key for a payment (IETF Idempotency-Key draft).
	// The Server echoes it, as sent, on every answer once it has been found valid.
	idempotencyKeyHeader = "Idempotency-Key"
	// replayedHeader is "true" on an answer replayed from the key store, absent otherwise.
	replayedHeader = "Idempotent-Replayed"
)

// keyPattern is 1 to 255 visible ASCII characters.
var keyPattern = regexp.MustCompile(`^[\x21-\x7E]{1,255}$`)

// idempotencyKey reads the Idempotency-Key of h: the value as sent (to echo it) and the key it
// means. A value starting with a double quote is a structured-field string (RFC 8941): `"abc"`
// means abc, `"a\"b"` means a"b. The key must be 1 to 255 characters from 0x21 to 0x7E.
func idempotencyKey(h http.Header) (raw, key string, err error) {
	values := h.Values(idempotencyKeyHeader)
	if len(values) == 0 {
		return "", "", invalid(codeIdempotencyKeyMissing,
			violation{idempotencyKeyHeader, "required"})
	}
	raw = values[0]
	key, ok := unquote(raw)
	if len(values) > 1 || !ok || !keyPattern.MatchString(key) {
		return "", "", invalid(codeIdempotencyKeyInvalid, violation{idempotencyKeyHeader,
			"must be one header of 1 to 255 characters from 0x21 to 0x7E, or that quoted as a structured-field string"})
	}
	return raw, key, nil
}

// unquote decodes a structured-field string if s starts with a double quote; any other s is
// returned as is. ok is false for a broken quoted string: a bad escape, a missing closing quote
// or characters after it.
func unquote(s string) (unquoted string, ok bool) {
	rest, quoted := strings.CutPrefix(s, `"`)
	if !quoted {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if c == '"' {
			return b.String(), i == len(rest)-1
		}
		if c == '\\' {
			i++
			if i == len(rest) || rest[i] != '"' && rest[i] != '\\' {
				return "", false
			}
			c = rest[i]
		}
		b.WriteByte(c)
	}
	return "", false
}
