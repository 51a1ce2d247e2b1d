package openfinance

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"pixretry/pix"
)

// maxKeyLen is the longest x-idempotency-key, in characters ([spec] parameter XIdempotencyKey).
const maxKeyLen = 40

// NewKey returns a fresh key: a UUIDv7 of time.Now() and 74 random bits, 36 characters.
//
// A key of this dialect carries its time, since the payment's endToEndId is made from it
// (see [Dialect.CheckKey]).
func (*Dialect) NewKey() string {
	var random [16]byte
	rand.Read(random[:]) // never fails: crypto/rand crashes the program rather than return an error
	return newKey(time.Now(), random)
}

// newKey returns the UUIDv7 (RFC 9562) of now's millisecond and the bits of random that its
// version and variant leave. It does not use uuid.NewV7, whose keys never go back in time
// within a process: a key's time must be now, so that its endToEndId is.
func newKey(now time.Time, random [16]byte) string {
	u := uuid.UUID(random)
	var ms [8]byte
	binary.BigEndian.PutUint64(ms[:], uint64(now.UnixMilli()))
	copy(u[:6], ms[2:])
	u[6] = u[6]&0x0f | 0x70 // version 7
	u[8] = u[8]&0x3f | 0x80 // variant 10
	return u.String()
}

// CheckKey returns nil for a key the PSP takes and this dialect can pay under, and otherwise
// an error wrapping [pix.ErrInvalidPayment] that says why.
//
// The PSP takes 1 to 40 characters that neither begin nor end with white space ([spec]
// parameter XIdempotencyKey, pattern ^(?!\s)(.*)(\S)$), and no control characters, which the
// pattern's "." and an HTTP header both refuse. This dialect takes, among those, only a UUIDv7
// in lower case, such as NewKey makes. The reason is the endToEndId, which the initiator makes
// ([spec] schema EndToEndIdWithoutRestriction) and which every attempt under a key must repeat,
// since the PSP compares each attempt's data with the first's ([idempotency]). It holds the
// minute the payment was ordered. A UUIDv7 holds its own time, so the endToEndId is a function
// of the key alone, the same after a restart, with nothing more to store.
func (*Dialect) CheckKey(key string) error {
	n := utf8.RuneCountInString(key)
	if n < 1 || n > maxKeyLen {
		return fmt.Errorf("openfinance: %w: x-idempotency-key %q has %d characters, want 1 to %d", pix.ErrInvalidPayment, key, n,
			maxKeyLen)
	}
	first, _ := utf8.DecodeRuneInString(key)
	last, _ := utf8.DecodeLastRuneInString(key)
	if unicode.IsSpace(first) || unicode.IsSpace(last) {
		return fmt.Errorf("openfinance: %w: x-idempotency-key %q begins or ends with white space", pix.ErrInvalidPayment, key)
	}
	if !utf8.ValidString(key) || strings.ContainsFunc(key, unicode.IsControl) {
		return fmt.Errorf("openfinance: %w: x-idempotency-key %q is not UTF-8 without control characters", pix.ErrInvalidPayment, key)
	}
	if u, err := uuid.Parse(key); err != nil || u.Version() != 7 || u.String() != key {
		return fmt.Errorf("openfinance: %w: x-idempotency-key %q is not a UUIDv7 in lower case, which the endToEndId takes its time from",
			pix.ErrInvalidPayment, key)
	}
	return nil
}

// base62 are the 62 characters of the end of an endToEndId.
const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// endToEndID returns the endToEndId of the payment under key, a key CheckKey takes: E, ispb,
// the key's minute in UTC as yyyyMMddHHmm, and 11 base-62 characters of the key's SHA-256
// ([spec] schema EndToEndIdWithoutRestriction). The 11 characters hold 64 bits of the hash, so
// two keys share an endToEndId with a chance of 2^-64: the schema asks that it be unique
// within the ISPB's minute.
//
// The schema allows the time 12 hours either side of when the SPI settles the payment. The
// consent bounds that: it can be consumed only within 60 minutes of its authorisation
// ([spec] schema ResponsePaymentConsent, expirationDateTime). So make the key when the
// payment is ordered, less than 11 hours before its consent is authorised.
func endToEndID(ispb, key string) string {
	u := uuid.MustParse(key)
	sec, nsec := u.Time().UnixTime()
	minute := time.Unix(sec, nsec).UTC().Format("200601021504")
	sum := sha256.Sum256([]byte(key))
	n := binary.BigEndian.Uint64(sum[:8])
	var tail [11]byte
	for i := len(tail) - 1; i >= 0; i-- {
		tail[i] = base62[n%62]
		n /= 62
	}
	return "E" + ispb + minute + string(tail[:])
}
