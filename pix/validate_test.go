package pix_test

import (
	"errors"
	"strings"
	"testing"

	"pixretry/pix"
	"pixretry/psp"
)

func TestValidateReturnsSendsErrorForAnInvalidPayment(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    pix.Payment
		rule string // a word of the broken rule, named in the error
	}{
		{"amount zero", pix.Payment{AmountCents: 0, PixKey: "pix@example.com"}, "AmountCents"},
		{"amount over 9,999,999,999.99", pix.Payment{AmountCents: 1_000_000_000_000, PixKey: "pix@example.com"}, "AmountCents"},
		{"CPF of 10 digits", pix.Payment{AmountCents: 100, PixKey: "1234567890"}, "PixKey"},
		{"e-mail of 78 characters", pix.Payment{AmountCents: 100, PixKey: email(78)}, "PixKey"},
		{"description not UTF-8", pix.Payment{AmountCents: 100, PixKey: "pix@example.com", Description: "caf\xe9"}, "UTF-8"},
		{"description of 141 characters",
			pix.Payment{AmountCents: 100, PixKey: "pix@example.com", Description: strings.Repeat("é", 141)}, "141"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.Validate()
			if !errors.Is(err, pix.ErrInvalidPayment) || !strings.Contains(err.Error(), tc.rule) {
				t.Fatalf("Validate() = %v, want pix.ErrInvalidPayment naming %s", err, tc.rule)
			}
			f := newFixture(t, psp.Config{})
			_, sendErr := f.client().Send(t.Context(), tc.p)
			if sendErr == nil || sendErr.Error() != err.Error() {
				t.Errorf("Send() error = %v, want Validate's %v", sendErr, err)
			}
			assertInvalidNothingSent(t, f, sendErr)
		})
	}
}

func TestValidateAcceptsAValidPayment(t *testing.T) {
	for _, p := range []pix.Payment{
		{AmountCents: 1, PixKey: "12345678901"},
		{AmountCents: 999_999_999_999, PixKey: email(77), Description: strings.Repeat("é", 140)},
		{AmountCents: 100, PixKey: "123e4567-e89b-12d3-a456-426614174000"},
	} {
		if err := p.Validate(); err != nil {
			t.Errorf("%+v.Validate() = %v, want nil", p, err)
		}
	}
}
