package efi_test

import (
	"errors"
	"strings"
	"testing"

	"pixretry/pix"
	"pixretry/pix/efi"
)

// TestBadKeysSendNothing: a key that is no idEnvio is refused by SendWithKey, Lookup, Await and
// Resume with CheckKey's error, and no request reaches the double.
func TestBadKeysSendNothing(t *testing.T) {
	keys := map[string]string{
		"empty":         "",
		"36 characters": strings.Repeat("a", 36),
		"UUID":          "0b6c1c3e-8f2a-4d7b-9e5f-1a2b3c4d5e6f",
		"underscore":    "order_1",
		"space":         "order 1",
		"slash":         "a/b",
		"accent":        "pagamentoé",
	}
	for name, key := range keys {
		t.Run(name, func(t *testing.T) {
			r := newRig(t, nil)
			c := r.client()
			want := efi.Dialect{}.CheckKey(key).Error()
			calls := map[string]func() error{
				"SendWithKey": func() error { _, err := c.SendWithKey(t.Context(), key, payment); return err },
				"Lookup":      func() error { _, err := c.Lookup(t.Context(), key); return err },
				"Await":       func() error { _, err := c.Await(t.Context(), key); return err },
				"Resume": func() error {
					_, err := c.Resume(t.Context(), &pix.OutcomeUnknownError{Key: key, Err: errors.New("lost")}, payment)
					return err
				},
			}
			for call, do := range calls {
				err := do()
				if err == nil || err.Error() != want || !errors.Is(err, pix.ErrInvalidPayment) ||
					errors.Is(err, pix.ErrOutcomeUnknown) {
					t.Errorf("%s(%q) error = %v, want %q wrapping ErrInvalidPayment", call, key, err, want)
				}
			}
			if got := r.wire.requests(); len(got) != 0 {
				t.Errorf("requests = %q, want none", got)
			}
		})
	}
}

// Test35CharacterKeyIsSent: the longest idEnvio is sent, and the double accepts it.
func Test35CharacterKeyIsSent(t *testing.T) {
	r := newRig(t, nil)
	key := strings.Repeat("Z", 35)

	_, err := r.client().SendWithKey(t.Context(), key, payment)

	pending(t, "SendWithKey()", err, 1)
	if got := r.wire.requests(); len(got) != 1 || got[0] != put(key) {
		t.Errorf("requests = %q, want the one PUT", got)
	}
}

// TestBadPayerKeySendsNothing: a Dialect whose PayerKey is no Pix key pays nothing and sends
// nothing. Send fails with Validate's error. SendWithKey's key may already hold a payment, so
// its outcome stays unknown.
func TestBadPayerKeySendsNothing(t *testing.T) {
	for _, payer := range []string{"", "pagador"} {
		r := newRig(t, nil)
		c := r.client()
		d := efi.Dialect{PayerKey: payer}
		c.Dialect = d
		want := "pix: writing the request: " + d.Validate().Error()

		_, sendErr := c.Send(t.Context(), payment)
		_, keyErr := c.SendWithKey(t.Context(), "abc123", payment)

		if sendErr == nil || sendErr.Error() != want || !errors.Is(sendErr, pix.ErrInvalidPayment) ||
			errors.Is(sendErr, pix.ErrOutcomeUnknown) {
			t.Errorf("PayerKey %q: Send() error = %v, want %q, no unknown outcome", payer, sendErr, want)
		}
		want = `pix: outcome unknown for key "abc123" after 0 attempt(s): ` + want
		if keyErr == nil || keyErr.Error() != want || !errors.Is(keyErr, pix.ErrInvalidPayment) {
			t.Errorf("PayerKey %q: SendWithKey() error = %v, want %q", payer, keyErr, want)
		}
		if got := r.wire.requests(); len(got) != 0 {
			t.Errorf("PayerKey %q: requests = %q, want none", payer, got)
		}
	}
}
