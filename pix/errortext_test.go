package pix_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"pixretry/pix"
	"pixretry/retry"
)

// What a log shows of each error: the texts that errors.go documents, word for word.
func TestErrorTextsSayWhatHappened(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{pix.ErrInsufficientFunds, "pix: insufficient funds"},
		{pix.ErrKeyReused, "pix: idempotency key reused with another payment"},
		{pix.ErrInvalidPayment, "pix: invalid payment"},
		{pix.ErrContract, "pix: PSP broke the response contract"},
		{pix.ErrOutcomeUnknown, "pix: outcome unknown"},
		{&pix.Error{Status: 503}, "pix: PSP answered 503"},
		{&pix.Error{Status: 422, Code: "insufficient_funds"}, "pix: PSP answered 422 insufficient_funds"},
		{&pix.Error{Status: 500, Detail: "disk full"}, "pix: PSP answered 500: disk full"},
		{&pix.Error{Status: 400, Code: "invalid_request", Detail: "1 violation"},
			"pix: PSP answered 400 invalid_request: 1 violation"},
		{&pix.OutcomeUnknownError{Key: "order 7", Attempts: 2, Err: errors.New("lost")},
			`pix: outcome unknown for key "order 7" after 2 attempt(s): lost`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}

// A misconfigured Client sends nothing, and its error says which field is wrong.
func TestInvalidClientErrorsNameTheField(t *testing.T) {
	valid := retry.Policy{AttemptsMax: 3, DelayBase: time.Millisecond, DelayMax: time.Second}
	for _, tc := range []struct {
		client pix.Client
		want   string
	}{
		{pix.Client{BaseURL: "pipe", Policy: valid},
			`pix: invalid Client: BaseURL "pipe" is not an absolute http or https URL`},
		{pix.Client{BaseURL: "http://psp.test", AttemptTimeout: -time.Second, Policy: valid},
			"pix: invalid Client: AttemptTimeout is -1s, want 0 (none) or more"},
	} {
		_, err := tc.client.Send(context.Background(), pix.Payment{AmountCents: 100, PixKey: "pix@example.com"})
		if err == nil || err.Error() != tc.want {
			t.Errorf("Send() error = %v, want %q", err, tc.want)
		}
	}
}
