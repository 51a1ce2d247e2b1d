package pix_test

import (
	"errors"
	"strconv"
	"testing"

	"pgregory.net/rapid"

	"pixretry/pix"
)

// refusalCodes are the problem codes that name a refusal, each with the sentinel it matches.
var refusalCodes = map[string]error{
	"insufficient_funds":     pix.ErrInsufficientFunds,
	"idempotency_key_reused": pix.ErrKeyReused,
	"invalid_request":        pix.ErrInvalidPayment,
}

// TestErrorSaysWhatThePSPAnswered: a *pix.Error reads "pix: PSP answered STATUS CODE: DETAIL",
// without an empty code or detail. It matches a refusal's sentinel exactly when its code names
// the refusal on a 4xx. It matches ErrContract exactly below 400.
func TestErrorSaysWhatThePSPAnswered(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		e := &pix.Error{
			Status: rapid.OneOf(rapid.IntRange(100, 599), rapid.SampledFrom([]int{200, 302, 400, 409, 422, 429, 499,
				500})).Draw(t, "status"),
			Code: rapid.OneOf(rapid.Just(""), rapid.SampledFrom([]string{"insufficient_funds", "idempotency_key_reused",
				"invalid_request", "injected_fault", "idempotency_key_in_use"}), rapid.StringN(1, 12, -1)).Draw(t, "code"),
			Detail: rapid.OneOf(rapid.Just(""), rapid.String()).Draw(t, "detail"),
		}
		want := "pix: PSP answered " + strconv.Itoa(e.Status)
		if e.Code != "" {
			want += " " + e.Code
		}
		if e.Detail != "" {
			want += ": " + e.Detail
		}
		if got := e.Error(); got != want {
			t.Fatalf("Error() = %q, want %q", got, want)
		}
		if got, want := errors.Is(e, pix.ErrContract), e.Status < 400; got != want {
			t.Fatalf("errors.Is(%v, ErrContract) = %v, want %v", e, got, want)
		}
		for code, sentinel := range refusalCodes {
			if got, want := errors.Is(e, sentinel), e.Status/100 == 4 && e.Code == code; got != want {
				t.Fatalf("errors.Is(%v, %v) = %v, want %v", e, sentinel, got, want)
			}
		}
	})
}
