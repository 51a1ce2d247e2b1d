package efi_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"pixretry/pix"
	"pixretry/pix/efi"
)

// TestCheckKey: an idEnvio is 1 to 35 ASCII letters and digits. Every other key is refused
// with an error that says so, and a hyphenated key that would fit without its hyphens gets a
// hint.
func TestCheckKey(t *testing.T) {
	const fits = "; it would fit without its hyphens, as a UUID does"
	tests := []struct {
		name string
		key  string
		hint string // "" for a key that fits, or the hint the error carries
		ok   bool
	}{
		{name: "one character", key: "a", ok: true},
		{name: "35 characters", key: strings.Repeat("Z", 35), ok: true},
		{name: "letters and digits", key: "azAZ09", ok: true},
		{name: "UUID without hyphens", key: "0b6c1c3e8f2a4d7b9e5f1a2b3c4d5e6f", ok: true},
		{name: "empty", key: ""},
		{name: "36 characters", key: strings.Repeat("Z", 36)},
		{name: "UUID", key: "0b6c1c3e-8f2a-4d7b-9e5f-1a2b3c4d5e6f", hint: fits},
		{name: "hyphen only", key: "-"},
		{name: "hyphen and 36 others", key: strings.Repeat("a", 36) + "-"},
		{name: "hyphen and 35 others", key: strings.Repeat("a", 35) + "-", hint: fits},
		{name: "hyphen and an underscore", key: "a-b_c"},
		{name: "underscore", key: "order_1"},
		{name: "space", key: "order 1"},
		{name: "accent", key: "pagamentoé"},
		{name: "full-width digit", key: "１"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := efi.Dialect{}.CheckKey(tt.key)
			if tt.ok {
				if err != nil {
					t.Errorf("CheckKey(%q) = %v, want nil", tt.key, err)
				}
				return
			}
			want := `efi: idEnvio "` + tt.key + `" is not 1 to 35 ASCII letters and digits` + tt.hint +
				": pix: invalid payment"
			if err == nil || err.Error() != want || !errors.Is(err, pix.ErrInvalidPayment) {
				t.Errorf("CheckKey(%q) = %v, want %q wrapping ErrInvalidPayment", tt.key, err, want)
			}
		})
	}
}

// TestNewKey: a new key is 32 lower-case hexadecimal digits, which CheckKey takes, and no two
// are alike.
func TestNewKey(t *testing.T) {
	hex32 := regexp.MustCompile(`^[0-9a-f]{32}$`)
	seen := map[string]bool{}
	for range 100 {
		key := efi.Dialect{}.NewKey()
		if !hex32.MatchString(key) || seen[key] {
			t.Fatalf("NewKey() = %q, want 32 hexadecimal digits not seen before", key)
		}
		if err := (efi.Dialect{}).CheckKey(key); err != nil {
			t.Fatalf("CheckKey(NewKey()) = %v, want nil", err)
		}
		seen[key] = true
	}
}

// TestNewKeyIsVersion4UUID: the key is a random UUID's 16 bytes: version 4, RFC 9562 variant.
func TestNewKeyIsVersion4UUID(t *testing.T) {
	key := efi.Dialect{}.NewKey()
	if key[12] != '4' || !strings.ContainsRune("89ab", rune(key[16])) {
		t.Errorf("NewKey() = %q, want a version 4 UUID's digits (4 at 12, 8 to b at 16)", key)
	}
}

func TestKeyTTL(t *testing.T) {
	if got, want := (efi.Dialect{}).KeyTTL(), 24*time.Hour; got != want {
		t.Errorf("KeyTTL() = %v, want %v", got, want)
	}
}

// TestValidate: PayerKey must be a Pix key, in any of the five formats.
func TestValidate(t *testing.T) {
	tests := []struct {
		payerKey string
		want     string // "" for nil
	}{
		{payerKey: "pagador@pixretry.example"},
		{payerKey: "19974764017"},
		{payerKey: "12345678000195"},
		{payerKey: "+5531999998888"},
		{payerKey: "0b6c1c3e-8f2a-4d7b-9e5f-1a2b3c4d5e6f"},
		{payerKey: "", want: "efi: PayerKey is empty, want the paying account's Pix key: pix: invalid payment"},
		{payerKey: "pagador", want: `efi: PayerKey "pagador" is not a CPF, CNPJ, phone, e-mail or EVP Pix key: ` +
			"pix: invalid payment"},
		{payerKey: "Pagador@pixretry.example", want: `efi: PayerKey "Pagador@pixretry.example" is not a CPF, CNPJ, ` +
			"phone, e-mail or EVP Pix key: pix: invalid payment"},
	}
	for _, tt := range tests {
		err := efi.Dialect{PayerKey: tt.payerKey}.Validate()
		if tt.want == "" {
			if err != nil {
				t.Errorf("Dialect{PayerKey: %q}.Validate() = %v, want nil", tt.payerKey, err)
			}
			continue
		}
		if err == nil || err.Error() != tt.want || !errors.Is(err, pix.ErrInvalidPayment) {
			t.Errorf("Dialect{PayerKey: %q}.Validate() = %v, want %q wrapping ErrInvalidPayment", tt.payerKey, err, tt.want)
		}
	}
}
