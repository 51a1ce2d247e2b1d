package pspcheck_test

import (
	"strings"
	"testing"

	"go.uber.org/goleak"

	"pixretry/internal/pspcheck"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestTakesPixKeyAsksThePSP(t *testing.T) {
	for key, want := range map[string]bool{
		"12345678901":     true,  // CPF
		"pix@example.com": true,  // e-mail
		"1234567890":      false, // 10 digits
		"Pix@Example.com": false, // upper case
		"":                false,
	} {
		got, err := pspcheck.TakesPixKey(key)
		if err != nil || got != want {
			t.Errorf("TakesPixKey(%q) = %t, %v; want %t, nil", key, got, err, want)
		}
	}
}

// An answer that is neither a 201 nor a refusal of the chave alone is no verdict on the key: a
// body over 64 KiB gets 413.
func TestTakesPixKeyRefusesAnAnswerItCannotRead(t *testing.T) {
	if _, err := pspcheck.TakesPixKey(strings.Repeat("x", 70_000)); err == nil {
		t.Error("TakesPixKey(a 70,000-byte key) = nil error, want one: the PSP answers 413 payload_too_large")
	}
}
