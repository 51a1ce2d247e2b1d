package pix_test

import (
	"context"
	"errors"
	"net/http"
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
		{pix.ErrCircuitOpen, "pix: the circuit breaker refused the attempt"},
		{pix.ErrPending, "pix: payment pending, neither settled nor rejected yet"},
		{pix.ErrRejected, "pix: payment rejected after the PSP accepted it"},
		{pix.ErrUnknownPayment, "pix: the webhook is about no payment known here"},
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
		{pix.Client{BaseURL: "http://psp.test", KeyTTL: -time.Second, Policy: valid},
			"pix: invalid Client: KeyTTL is -1s, want 0 (24h) or more"},
		{pix.Client{BaseURL: "http://psp.test", KeyTTL: 10 * time.Second, AttemptTimeout: 10 * time.Second, Policy: valid},
			"pix: invalid Client: AttemptTimeout 10s is not below 9s, KeyTTL less a tenth"},
		{pix.Client{BaseURL: "http://psp.test"}, "pix: invalid Client: " + retry.Policy{}.Validate().Error()},
	} {
		_, err := tc.client.Send(context.Background(), pix.Payment{AmountCents: 100, PixKey: "pix@example.com"})
		if err == nil || err.Error() != tc.want {
			t.Errorf("Send() error = %v, want %q", err, tc.want)
		}
	}
}

// An https BaseURL is as valid as an http one: the payment goes to its /v1/pix/payments.
func TestHTTPSBaseURLGetsThePayment(t *testing.T) {
	var got string
	c := pix.Client{
		BaseURL: "https://psp.test/api",
		Policy:  retry.Policy{AttemptsMax: 1},
		HTTPClient: &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
			got = r.URL.String()
			return &http.Response{StatusCode: 503, Body: http.NoBody, Header: http.Header{}, Request: r}, nil
		})},
	}
	_, err := c.Send(context.Background(), pix.Payment{AmountCents: 100, PixKey: "pix@example.com"})
	if !errors.As(err, new(*pix.Error)) {
		t.Errorf("Send() error = %v, want the PSP's 503", err)
	}
	if want := "https://psp.test/api/v1/pix/payments"; got != want {
		t.Errorf("payment posted to %q, want %q", got, want)
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
