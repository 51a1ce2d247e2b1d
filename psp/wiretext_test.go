package psp_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"pixretry/psp"
)

// A bad Config's error says which field is wrong and how.
func TestBadConfigErrorTexts(t *testing.T) {
	for _, tc := range []struct {
		edit func(*psp.Config)
		want string
	}{
		{func(c *psp.Config) { c.Tokens = nil }, "no tokens"},
		{func(c *psp.Config) { c.Tokens = []string{"ok", "a b"} }, "every token must be visible ASCII without spaces"},
		{func(c *psp.Config) { c.BalanceCents = -1 }, "negative balance -1 cents"},
		{func(c *psp.Config) { c.KeyTTL = -time.Second }, "negative key TTL -1s"},
		{func(c *psp.Config) { c.MaxKeys = -2 }, "negative MaxKeys -2"},
		{func(c *psp.Config) { c.MaxSettlements = -3 }, "negative MaxSettlements -3"},
		{func(c *psp.Config) { c.ISPB = "1234567a" }, `ISPB "1234567a" is not 8 digits`},
		{func(c *psp.Config) { c.ServiceTime = -time.Millisecond }, "negative service time -1ms"},
		{func(c *psp.Config) { c.Capacity = -3 }, "negative capacity -3"},
		{func(c *psp.Config) { c.ShedRetryAfter = -time.Second }, "negative shed Retry-After -1s"},
		{func(c *psp.Config) { c.JournalMax = -4 }, "negative JournalMax -4"},
		{func(c *psp.Config) { c.JournalBytes = -5 }, "negative JournalBytes -5"},
	} {
		cfg := psp.DefaultConfig()
		tc.edit(&cfg)
		if _, err := psp.NewServer(cfg); err == nil || err.Error() != "psp: invalid config: "+tc.want {
			t.Errorf("NewServer() error = %v, want %q", err, "psp: invalid config: "+tc.want)
		}
	}
}

// A fault that cannot be injected gets an error that says what its kind takes.
func TestInvalidFaultErrorTexts(t *testing.T) {
	const prefix = "psp: invalid fault: "
	for _, tc := range []struct {
		fault psp.Fault
		want  string
	}{
		{psp.Fault{Kind: "boom"}, `unknown kind "boom"`},
		{psp.Fault{}, `unknown kind ""`},
		{psp.Status(302), `kind "status" takes a Status of 400 to 599, and a RetryAfter if any`},
		{psp.CommitStatus(201), `kind "commit_status" takes a Status of 200 to 299 but 201, 204 and 205, ` +
			`or 500 to 599, and a RetryAfter if any`},
		{psp.Redirect(400), `kind "redirect" takes a Status of 300 to 399`},
		{psp.BadBody("missing"),
			`kind "bad_body" takes a Breach, and a Member (endToEndId, valor, chave, status or horario) with missing only`},
		{psp.Fault{Kind: "slow", Status: 503}, `kind "slow" takes a Duration`},
		{psp.Fault{Kind: "drop", Duration: time.Second}, `kind "drop" takes no other field`},
		{psp.Slow(-time.Second), "duration -1s or retry after 0s is negative or exceeds 1h0m0s"},
		{psp.Fault{Kind: "drop", Target: "payment"}, `unknown target "payment"`},
		{psp.Slow(time.Second).ForLookup(),
			`kind "slow" cannot target lookups; a lookup fault is status, redirect, reset, down, late or bad_body`},
		{psp.Fault{Kind: "boom", Target: "x"}, `unknown kind "boom"`},
		{psp.Fault{Kind: "reset", Status: 503, Target: "lookup"}, `kind "reset" takes no other field`},
	} {
		if err := tc.fault.Validate(); err == nil || err.Error() != prefix+tc.want {
			t.Errorf("Validate(%+v) = %v, want %q", tc.fault, err, prefix+tc.want)
		}
	}
}

// The detail of each problem tells a person reading a log what happened.
func TestProblemDetailTexts(t *testing.T) {
	full := mustServer(t, withKeys(1))
	pay(full, "k1", validBody)
	faulty := mustServer(t)
	faulty.Inject(psp.Status(503))
	textRequest := paymentRequest("k", validBody)
	textRequest.Header.Set("Content-Type", "text/plain")
	for _, tc := range []struct {
		a      answer
		status int
		code   string
		want   string
	}{
		{pay(mustServer(t, func(c *psp.Config) { c.BalanceCents = 100 }), "k", validBody),
			http.StatusUnprocessableEntity, "insufficient_funds", "valor 150.00 exceeds the payer's balance"},
		{pay(full, "k2", validBody), http.StatusServiceUnavailable, "key_store_full",
			"the PSP stores 1 Idempotency-Keys, its limit, and none has expired; retry later"},
		{pay(mustServer(t), "k", `{"valor":"0.00","chave":""}`), http.StatusBadRequest, "invalid_request",
			"the request has 2 violation(s); see violacoes"},
		{serve(mustServer(t), textRequest), http.StatusUnsupportedMediaType, "unsupported_media_type",
			`Content-Type must be application/json, got "text/plain"`},
		{pay(mustServer(t), "k", strings.Repeat(" ", psp.MaxBodyBytes+1)), http.StatusRequestEntityTooLarge,
			"payload_too_large", "the body must be at most 65536 bytes"},
		{serve(mustServer(t), httptest.NewRequest(http.MethodPut, psp.PaymentsPath, nil)),
			http.StatusMethodNotAllowed, "method_not_allowed", "/v1/pix/payments takes GET and POST"},
		{pay(faulty, "k", validBody), http.StatusServiceUnavailable, "injected_fault",
			"fault injected: the PSP answers 503 before any processing"},
	} {
		if p := wantProblem(t, tc.a, tc.status, tc.code); p.Detail != tc.want {
			t.Errorf("detail = %q, want %q", p.Detail, tc.want)
		}
	}
}

// A body that is not JSON is named in violacoes, with what is wrong and where, in JSON's
// words: no Go package is named.
func TestNotJSONViolationText(t *testing.T) {
	for body, want := range map[string]string{
		`{"valor":`:                       "is not valid JSON: it ends too soon, at byte 9",
		`{"valor":"1.00","valor":"2.00"}`: `is not valid JSON: member "valor" is repeated, at byte 16`,
		`{valor}`:                         "is not valid JSON: invalid character 'v' at start of value, at byte 1",
		"{\"valor\":\"\xff\"}":            "is not valid JSON: invalid UTF-8, at byte 10",
	} {
		p := wantProblem(t, pay(mustServer(t), "k", body), http.StatusBadRequest, "invalid_request")
		if len(p.Violations) != 1 || p.Violations[0] != (psp.Violation{Field: "body", Reason: want}) {
			t.Errorf("body %q: violacoes = %+v, want body: %s", body, p.Violations, want)
		}
	}
}

// A bad lookup query's violation says what is wrong, word for word.
func TestLookupViolationTexts(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  psp.Violation
	}{
		{"", psp.Violation{Field: "idempotency_key", Reason: "required"}},
		{"idempotency_key=", psp.Violation{Field: "idempotency_key",
			Reason: "must be one parameter of 1 to 255 characters from 0x21 to 0x7E, or that quoted as a structured-field string, percent-encoded"}},
		{"idempotency_key=k1&x=1", psp.Violation{Field: "x", Reason: "unknown parameter"}},
		{"idempotency_key=%zz", psp.Violation{Field: "query", Reason: `could not be parsed: invalid URL escape "%zz"`}},
	} {
		a := serve(mustServer(t), rawLookupRequest(tc.query))
		p := mustDecode[psp.Problem](t, a.body)
		if len(p.Violations) != 1 || p.Violations[0] != tc.want {
			t.Errorf("query %q: violacoes = %+v, want %+v", tc.query, p.Violations, tc.want)
		}
	}
}
