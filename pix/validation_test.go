package pix_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"pixretry/internal/pipenet"
	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

// A balance that pays the largest amount a Pix can carry.
const richBalance = 1_000_000_000_000

func TestInvalidPaymentSendsNothing(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    pix.Payment
	}{
		{"amount zero", pix.Payment{AmountCents: 0, PixKey: "pix@example.com"}},
		{"amount negative", pix.Payment{AmountCents: -15000, PixKey: "pix@example.com"}},
		{"amount over 9,999,999,999.99", pix.Payment{AmountCents: 1_000_000_000_000, PixKey: "pix@example.com"}},
		{"no Pix key", pix.Payment{AmountCents: 100}},
		{"CPF of 10 digits", pix.Payment{AmountCents: 100, PixKey: "1234567890"}},
		{"CPF of 12 digits", pix.Payment{AmountCents: 100, PixKey: "123456789012"}},
		{"CPF with punctuation", pix.Payment{AmountCents: 100, PixKey: "123.456.789-01"}},
		{"CNPJ of 13 digits", pix.Payment{AmountCents: 100, PixKey: "1234567890123"}},
		{"CNPJ of 15 digits", pix.Payment{AmountCents: 100, PixKey: "123456789012345"}},
		{"CPF of non-ASCII digits", pix.Payment{AmountCents: 100, PixKey: "١٢٣٤٥٦٧٨٩٠١"}},
		{"phone without +", pix.Payment{AmountCents: 100, PixKey: "5511987654321"}},
		{"phone starting with +0", pix.Payment{AmountCents: 100, PixKey: "+0511987654321"}},
		{"phone of 16 digits", pix.Payment{AmountCents: 100, PixKey: "+5511987654321000"}},
		{"phone of 1 digit", pix.Payment{AmountCents: 100, PixKey: "+5"}},
		{"e-mail in upper case", pix.Payment{AmountCents: 100, PixKey: "Pix@Example.com"}},
		{"e-mail without @", pix.Payment{AmountCents: 100, PixKey: "pix.example.com"}},
		{"e-mail without domain", pix.Payment{AmountCents: 100, PixKey: "pix@"}},
		{"e-mail of 78 characters", pix.Payment{AmountCents: 100, PixKey: email(78)}},
		{"EVP in upper case", pix.Payment{AmountCents: 100, PixKey: "123E4567-E89B-12D3-A456-426614174000"}},
		{"EVP without dashes", pix.Payment{AmountCents: 100, PixKey: "123e4567e89b12d3a456426614174000"}},
		{"EVP too short", pix.Payment{AmountCents: 100, PixKey: "123e4567-e89b-12d3-a456-42661417400"}},
		{"key with a trailing newline", pix.Payment{AmountCents: 100, PixKey: "12345678901\n"}},
		{"description of 141 characters", pix.Payment{AmountCents: 100, PixKey: "pix@example.com", Description: strings.Repeat("é", 141)}},
		{"description not UTF-8", pix.Payment{AmountCents: 100, PixKey: "pix@example.com", Description: "caf\xe9"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, psp.Config{})
			_, err := f.client().Send(t.Context(), tc.p)
			assertInvalidNothingSent(t, f, err)
		})
	}
}

func TestValidPaymentsAtTheLimitsAreSent(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    pix.Payment
	}{
		{"amount 1 cent", pix.Payment{AmountCents: 1, PixKey: "pix@example.com"}},
		{"amount 9,999,999,999.99", pix.Payment{AmountCents: 999_999_999_999, PixKey: "pix@example.com"}},
		{"CPF", pix.Payment{AmountCents: 100, PixKey: "12345678901"}},
		{"CNPJ", pix.Payment{AmountCents: 100, PixKey: "12345678000195"}},
		{"phone of 2 digits", pix.Payment{AmountCents: 100, PixKey: "+55"}},
		{"phone of 15 digits", pix.Payment{AmountCents: 100, PixKey: "+551198765432100"}},
		{"e-mail of 77 characters", pix.Payment{AmountCents: 100, PixKey: email(77)}},
		{"e-mail with + and subdomain", pix.Payment{AmountCents: 100, PixKey: "ana.maria+pix@mail.example.com.br"}},
		{"EVP", pix.Payment{AmountCents: 100, PixKey: "123e4567-e89b-12d3-a456-426614174000"}},
		{"description of 140 characters", pix.Payment{AmountCents: 100, PixKey: "pix@example.com", Description: strings.Repeat("é", 140)}},
		{"description with <, > and &", pix.Payment{AmountCents: 100, PixKey: "pix@example.com", Description: `<a & "b">`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, psp.Config{BalanceCents: richBalance})
			r, err := f.client().Send(t.Context(), tc.p)
			if err != nil {
				t.Fatalf("Send() error = %v", err)
			}
			got := f.settlementsFor(r.IdempotencyKey)
			if len(got) != 1 || got[0].AmountCents != tc.p.AmountCents || got[0].PixKey != tc.p.PixKey ||
				got[0].Description != tc.p.Description {
				t.Errorf("settlements = %+v, want one of %+v", got, tc.p)
			}
		})
	}
}

// invalidKeys are Idempotency-Keys that pix refuses before sending anything: each breaks the
// rule of 1 to 255 visible ASCII characters in its own way.
var invalidKeys = []struct{ name, key string }{
	{"empty", ""},
	{"256 characters", strings.Repeat("k", 256)},
	{"with a space", "order 42"},
	{"with a tab", "order\t42"},
	{"with DEL", "order\x7f42"},
	{"not ASCII", "pedido-nº42"},
}

func TestInvalidKeySendsNothing(t *testing.T) {
	for _, tc := range invalidKeys {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, psp.Config{})
			_, err := f.client().SendWithKey(t.Context(), tc.key, payment)
			assertInvalidNothingSent(t, f, err)
		})
	}
}

func TestValidKeysAreSent(t *testing.T) {
	for _, tc := range []struct{ name, key string }{
		{"1 character", "!"},
		{"255 characters", strings.Repeat("~", 255)},
		{"every visible ASCII character", visibleASCII()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, psp.Config{})
			if _, err := f.client().SendWithKey(t.Context(), tc.key, payment); err != nil {
				t.Fatalf("SendWithKey() error = %v", err)
			}
			if got := f.rec.keys(); len(got) != 1 || got[0] != tc.key {
				t.Errorf("PSP got keys %q, want [%q]", got, tc.key)
			}
		})
	}
}

func TestInvalidClientSendsNothing(t *testing.T) {
	for _, tc := range []struct {
		name      string
		breakIt   func(*pix.Client)
		wantInErr error // also wrapped, if not nil
	}{
		{"BaseURL empty", func(c *pix.Client) { c.BaseURL = "" }, nil},
		{"BaseURL without scheme", func(c *pix.Client) { c.BaseURL = "pipe" }, nil},
		{"BaseURL without host", func(c *pix.Client) { c.BaseURL = "http://" }, nil},
		{"BaseURL not http", func(c *pix.Client) { c.BaseURL = "ftp://pipe" }, nil},
		{"BaseURL unparsable", func(c *pix.Client) { c.BaseURL = "http://pipe/%zz" }, nil},
		{"AttemptsMax 0", func(c *pix.Client) { c.Policy.AttemptsMax = 0 }, retry.ErrInvalidPolicy},
		{"DelayMax below DelayBase", func(c *pix.Client) { c.Policy.DelayMax = time.Millisecond }, retry.ErrInvalidPolicy},
		{"AttemptTimeout negative", func(c *pix.Client) { c.AttemptTimeout = -time.Nanosecond }, nil},
		{"KeyTTL negative", func(c *pix.Client) { c.KeyTTL = -time.Nanosecond }, nil},
		{"AttemptTimeout at KeyTTL less a tenth", func(c *pix.Client) {
			c.KeyTTL, c.AttemptTimeout = 10*time.Second, 9*time.Second
		}, nil},
		{"AttemptTimeout at 24 h less a tenth, KeyTTL 0", func(c *pix.Client) {
			c.AttemptTimeout = 21*time.Hour + 36*time.Minute
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, psp.Config{})
			broken := f.client(tc.breakIt)
			_, err := broken.Send(t.Context(), payment)
			if err == nil || errors.Is(err, pix.ErrOutcomeUnknown) || errors.Is(err, pix.ErrInvalidPayment) {
				t.Fatalf("Send() error = %v, want a configuration error", err)
			}
			if verr := broken.Validate(); verr == nil || verr.Error() != err.Error() {
				t.Errorf("Validate() = %v, want Send's error %v", verr, err)
			}
			if tc.wantInErr != nil && !errors.Is(err, tc.wantInErr) {
				t.Errorf("Send() error = %v, want one wrapping %v", err, tc.wantInErr)
			}
			if got := f.rec.requests(); len(got) != 0 {
				t.Errorf("PSP got %d requests, want none", len(got))
			}
			// The broken field, and only it, is at fault: the same client without it pays.
			if _, err := f.client().Send(t.Context(), payment); err != nil {
				t.Errorf("Send() with the field fixed: error = %v", err)
			}
			if err := f.client().Validate(); err != nil {
				t.Errorf("Validate() with the field fixed = %v, want nil", err)
			}
		})
	}
}

func TestBaseURLMayEndWithASlashOrHaveAPath(t *testing.T) {
	for _, tc := range []struct{ base, wantPath string }{
		{"http://pipe", "/v1/pix/payments"},
		{"http://pipe/", "/v1/pix/payments"},
		{"http://pipe/psp", "/psp/v1/pix/payments"},
		{"http://pipe/psp/", "/psp/v1/pix/payments"},
	} {
		t.Run(tc.base, func(t *testing.T) {
			paths := make(chan string, 1)
			srv := pipenet.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				paths <- r.URL.Path
				writeSettled(w, validSettled())
			}))
			defer srv.Close()

			_, err := clientOf(srv, func(c *pix.Client) { c.BaseURL = tc.base }).Send(t.Context(), payment)
			if err != nil {
				t.Fatalf("Send() error = %v", err)
			}
			if got := <-paths; got != tc.wantPath {
				t.Errorf("request path = %q, want %q", got, tc.wantPath)
			}
		})
	}
}

func assertInvalidNothingSent(t *testing.T, f *fixture, err error) {
	t.Helper()
	if !errors.Is(err, pix.ErrInvalidPayment) || errors.Is(err, pix.ErrOutcomeUnknown) {
		t.Errorf("Send() error = %v, want ErrInvalidPayment and not ErrOutcomeUnknown", err)
	}
	if got := f.rec.requests(); len(got) != 0 {
		t.Errorf("PSP got %d requests, want none", len(got))
	}
}

// email is a valid e-mail Pix key n bytes long.
func email(n int) string {
	const domain = "@example.com"
	return strings.Repeat("a", n-len(domain)) + domain
}

func visibleASCII() string {
	var b strings.Builder
	for c := byte(0x21); c <= 0x7e; c++ {
		b.WriteByte(c)
	}
	return b.String()
}
