package pix_test

import (
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/internal/pipenet"
	"pixretry/pix"
	"pixretry/retry"
)

func TestErrorIsDecodedFromTheAnswer(t *testing.T) {
	const problem = `{"type":"urn:x","title":"Service Unavailable","status":503,"detail":"try later","code":"busy"}`
	decoded := errorView{Status: 503, Code: "busy", Detail: "try later"}
	// Inside the bubble the clock starts at a known instant; HTTP-dates are whole seconds.
	inBubble := func(d time.Duration) string { return time.Now().Add(d).UTC().Format(http.TimeFormat) }
	for _, tc := range []struct {
		name       string
		status     int
		body       string
		retryAfter func() string // nil: no Retry-After
		want       errorView
	}{
		{name: "problem+json", status: 503, body: problem, want: decoded},
		{name: "problem with violations", status: 400,
			body: `{"title":"Bad Request","status":400,"detail":"1 violation","code":"invalid_request","violacoes":[{"campo":"valor","motivo":"x"}]}`,
			want: errorView{Status: 400, Code: "invalid_request", Detail: "1 violation"}},
		{name: "body not JSON", status: 502, body: "<html>Bad Gateway</html>", want: errorView{Status: 502}},
		{name: "body empty", status: 500, want: errorView{Status: 500}},
		{name: "members of the wrong type", status: 503, body: `{"code":5,"title":"Service Unavailable"}`, want: errorView{Status: 503}},
		{name: "a member of the wrong type empties the others too", status: 503, body: `{"detail":"try later","code":5}`,
			want: errorView{Status: 503}},
		{name: "a redirect, not followed", status: 302, body: "moved", want: errorView{Status: 302}},
		{name: "Retry-After in seconds", status: 503, body: problem,
			retryAfter: func() string { return "7" }, want: withHint(decoded, 7*time.Second)},
		{name: "Retry-After 0", status: 503, body: problem,
			retryAfter: func() string { return "0" }, want: decoded},
		{name: "Retry-After as an HTTP-date", status: 503, body: problem,
			retryAfter: func() string { return inBubble(30 * time.Second) }, want: withHint(decoded, 30*time.Second)},
		{name: "Retry-After as a past HTTP-date", status: 503, body: problem,
			retryAfter: func() string { return inBubble(-30 * time.Second) }, want: decoded},
		{name: "Retry-After negative", status: 503, body: problem,
			retryAfter: func() string { return "-5" }, want: decoded},
		{name: "Retry-After fractional", status: 503, body: problem,
			retryAfter: func() string { return "1.5" }, want: decoded},
		{name: "Retry-After garbage", status: 503, body: problem,
			retryAfter: func() string { return "soon" }, want: decoded},
		{name: "Retry-After beyond a Duration", status: 503, body: problem,
			retryAfter: func() string { return "99999999999999999999999" },
			want:       withHint(decoded, 9223372036*time.Second)},
		{name: "Retry-After at the limit of a Duration", status: 503, body: problem,
			retryAfter: func() string { return "9223372036" },
			want:       withHint(decoded, 9223372036*time.Second)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := pipenet.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if tc.retryAfter != nil {
						w.Header().Set("Retry-After", tc.retryAfter())
					}
					w.Header().Set("Location", "/elsewhere")
					w.Header().Set("Content-Type", "application/problem+json")
					w.WriteHeader(tc.status)
					w.Write([]byte(tc.body))
				}))
				defer srv.Close()

				_, err := clientOf(srv, oneAttempt).Send(t.Context(), payment)

				var got *pix.Error
				if !errors.As(err, &got) {
					t.Fatalf("Send() error = %v, want a *pix.Error", err)
				}
				if diff := cmp.Diff(tc.want, viewOf(got)); diff != "" {
					t.Errorf("*pix.Error mismatch (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// errorView is what a caller reads of a *pix.Error: its fields and its Retry-After.
type errorView struct {
	Status     int
	Code       string
	Detail     string
	RetryAfter time.Duration
}

func viewOf(e *pix.Error) errorView {
	return errorView{Status: e.Status, Code: e.Code, Detail: e.Detail, RetryAfter: e.RetryAfter()}
}

func withHint(e errorView, d time.Duration) errorView {
	e.RetryAfter = d
	return e
}

func TestErrorMessage(t *testing.T) {
	for _, tc := range []struct {
		err  pix.Error
		want string
	}{
		{pix.Error{Status: 503}, "pix: PSP answered 503"},
		{pix.Error{Status: 503, Detail: "try later"}, "pix: PSP answered 503: try later"},
		{pix.Error{Status: 422, Code: "insufficient_funds"}, "pix: PSP answered 422 insufficient_funds"},
		{pix.Error{Status: 422, Code: "insufficient_funds", Detail: "valor 150.00 exceeds the payer's balance"},
			"pix: PSP answered 422 insufficient_funds: valor 150.00 exceeds the payer's balance"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("%#v.Error() = %q, want %q", tc.err, got, tc.want)
		}
	}
}

func TestErrorMapsCodesToSentinels(t *testing.T) {
	sentinels := []error{pix.ErrInsufficientFunds, pix.ErrKeyReused, pix.ErrInvalidPayment,
		pix.ErrContract, pix.ErrOutcomeUnknown}
	for _, tc := range []struct {
		code string
		want error // nil: none
	}{
		{"insufficient_funds", pix.ErrInsufficientFunds},
		{"idempotency_key_reused", pix.ErrKeyReused},
		{"invalid_request", pix.ErrInvalidPayment},
		{"idempotency_key_in_use", nil},
		{"unauthorized", nil},
		{"", nil},
	} {
		err := &pix.Error{Status: 422, Code: tc.code}
		for _, s := range sentinels {
			if got, want := errors.Is(err, s), s == tc.want; got != want {
				t.Errorf("errors.Is(Error{Code: %q}, %v) = %t, want %t", tc.code, s, got, want)
			}
		}
	}
}

func TestErrorFeedsTheRetryLoop(t *testing.T) {
	for _, tc := range []struct {
		err           *pix.Error
		wantTransient bool
	}{
		{&pix.Error{Status: 503}, true},
		{&pix.Error{Status: 429}, true},
		{&pix.Error{Status: 409}, true},
		{&pix.Error{Status: 422, Code: "insufficient_funds"}, false},
		{&pix.Error{Status: 400}, false},
	} {
		if got := retry.Transient(tc.err); got != tc.wantTransient {
			t.Errorf("retry.Transient(%v) = %t, want %t", tc.err, got, tc.wantTransient)
		}
		if got := tc.err.StatusCode(); got != tc.err.Status {
			t.Errorf("StatusCode() = %d, want %d", got, tc.err.Status)
		}
	}
}
