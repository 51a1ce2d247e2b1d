package openfinance_test

import (
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/uuid"

	"pixretry/pix"
	"pixretry/pix/openfinance"
)

// NewKey makes a UUIDv7 of now, which CheckKey takes: two keys differ, and a key made later
// holds the later time.
func TestNewKeyIsAUUIDv7OfNow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newDialect()
		start := time.Now()
		first, second := d.NewKey(), d.NewKey()
		time.Sleep(90*time.Second + time.Millisecond)
		later := d.NewKey()
		for _, key := range []string{first, second, later} {
			if err := d.CheckKey(key); err != nil {
				t.Errorf("CheckKey(NewKey() = %q) = %v, want nil", key, err)
			}
		}
		if first == second {
			t.Errorf("NewKey() twice = %q, %q, want two keys", first, second)
		}
		for key, want := range map[string]time.Time{first: start, later: start.Add(90*time.Second + time.Millisecond)} {
			u := uuid.MustParse(key)
			sec, nsec := u.Time().UnixTime()
			if got := time.Unix(sec, nsec); !got.Equal(want) || u.Variant() != uuid.RFC4122 {
				t.Errorf("NewKey() = %q holds time %v and variant %v, want %v and RFC 4122", key, got.UTC(), u.Variant(),
					want.UTC())
			}
		}
	})
}

// CheckKey takes a lower-case UUIDv7, and refuses every other key with the rule it breaks:
// the spec's length and white space first, then the UUIDv7 that the endToEndId needs.
func TestCheckKeyRefusesKeysOutOfTheRules(t *testing.T) {
	const v7 = "01890a5d-ac96-774b-bcce-b302099a8057"
	forty := v7 + "abcd"
	tests := []struct{ name, key, want string }{
		{"a UUIDv7", v7, "<nil>"},
		{"1 character", "a",
			`openfinance: pix: invalid payment: x-idempotency-key "a" is not a UUIDv7 in lower case, which the ` +
				`endToEndId takes its time from`},
		{"empty", "", `openfinance: pix: invalid payment: x-idempotency-key "" has 0 characters, want 1 to 40`},
		{"41 characters", forty + "e",
			`openfinance: pix: invalid payment: x-idempotency-key "` + forty + `e" has 41 characters, want 1 to 40`},
		{"41 characters of two bytes", strings.Repeat("é", 41),
			`openfinance: pix: invalid payment: x-idempotency-key "` + strings.Repeat("é", 41) +
				`" has 41 characters, want 1 to 40`},
		{"40 characters, not a UUID", forty,
			`openfinance: pix: invalid payment: x-idempotency-key "` + forty +
				`" is not a UUIDv7 in lower case, which the endToEndId takes its time from`},
		{"a leading space", " " + v7,
			`openfinance: pix: invalid payment: x-idempotency-key " ` + v7 + `" begins or ends with white space`},
		{"a trailing tab", v7 + "\t",
			`openfinance: pix: invalid payment: x-idempotency-key "` + v7 + `\t" begins or ends with white space`},
		{"a leading no-break space", "\u00a0" + v7,
			`openfinance: pix: invalid payment: x-idempotency-key "\u00a0` + v7 + `" begins or ends with white space`},
		{"a control character", "a\x00b",
			`openfinance: pix: invalid payment: x-idempotency-key "a\x00b" is not UTF-8 without control characters`},
		{"invalid UTF-8", "a\xffb",
			`openfinance: pix: invalid payment: x-idempotency-key "a\xffb" is not UTF-8 without control characters`},
		{"upper case", strings.ToUpper(v7),
			`openfinance: pix: invalid payment: x-idempotency-key "` + strings.ToUpper(v7) +
				`" is not a UUIDv7 in lower case, which the endToEndId takes its time from`},
		{"a UUIDv4", "9b2f5c4e-3d1a-4b8e-9f1e-2a3b4c5d6e7f",
			`openfinance: pix: invalid payment: x-idempotency-key "9b2f5c4e-3d1a-4b8e-9f1e-2a3b4c5d6e7f" is not a ` +
				`UUIDv7 in lower case, which the endToEndId takes its time from`},
		{"a UUIDv7 in braces", "{" + v7 + "}",
			`openfinance: pix: invalid payment: x-idempotency-key "{` + v7 +
				`}" is not a UUIDv7 in lower case, which the endToEndId takes its time from`},
	}
	d := newDialect()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := d.CheckKey(tt.key)
			if got := errorText(err); got != tt.want {
				t.Errorf("CheckKey(%q) = %s, want %s", tt.key, got, tt.want)
			}
			if err != nil && !errors.Is(err, pix.ErrInvalidPayment) {
				t.Errorf("CheckKey(%q) = %v, want an error matching ErrInvalidPayment", tt.key, err)
			}
		})
	}
}

// KeyTTL is the PSP's 24 hours.
func TestKeyTTLIs24Hours(t *testing.T) {
	if got := newDialect().KeyTTL(); got != 24*time.Hour {
		t.Errorf("KeyTTL() = %v, want 24h", got)
	}
}

// A key is the millisecond of its time, then the random bits but the version's 4 and the
// variant's 2.
func TestNewKeyOfTakesTheTimeAndTheRandomBits(t *testing.T) {
	at := time.Date(2023, 6, 30, 3, 34, 18, 518_999_999, time.UTC)
	var zeros, ones [16]byte
	for i := range ones {
		ones[i] = 0xff
	}
	for random, want := range map[[16]byte]string{
		zeros: "01890a5d-ac96-7000-8000-000000000000",
		ones:  "01890a5d-ac96-7fff-bfff-ffffffffffff",
	} {
		if got := openfinance.NewKeyOf(at, random); got != want {
			t.Errorf("NewKeyOf(%v, % x) = %s, want %s", at, random, got, want)
		}
	}
}
