package control_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"pixretry/internal/openapitest"
	"pixretry/psp"
	"pixretry/psp/control"
	"pixretry/psp/efi"
)

// efiPayout is a valid payout in Efí's dialect of valor.
func efiPayout(valor string) string {
	return `{"valor":"` + valor + `","pagador":{"chave":"` + efi.PayerKey + `","infoPagador":"Pedido 1234"},` +
		`"favorecido":{"chave":"pix@example.com"}}`
}

// mustEfiBank is a Server of DefaultConfig changed by edits, closed when the test ends, behind
// the control API with Efí's front end for its payments. Its answers that the OpenAPI document
// does not describe fail the test that made it (openapitest.Handler).
func mustEfiBank(tb testing.TB, edits ...func(*psp.Config)) bank {
	tb.Helper()
	cfg := psp.DefaultConfig()
	for _, edit := range edits {
		edit(&cfg)
	}
	s, err := psp.NewServer(cfg)
	if err != nil {
		tb.Fatalf("NewServer() error = %v", err)
	}
	tb.Cleanup(s.Close)
	h, err := control.NewHandler(s, control.Options{Payments: efi.NewHandler(s)})
	if err != nil {
		tb.Fatalf("control.NewHandler() error = %v", err)
	}
	return bank{s, openapitest.Handler(tb, h, s)}
}

// efiRequest is method on path with body and the default token.
func efiRequest(method, path, body string) *http.Request {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.Header.Set("Authorization", "Bearer "+token)
	return r
}

// TestEfiAnswersMatchTheDocument produces every answer that the document gives Efí's two
// operations, through a handler that holds each to the document.
func TestEfiAnswersMatchTheDocument(t *testing.T) {
	send, lookup := efi.SendPath+"abc", efi.LookupPath+"abc"
	paid := func(b bank) { serve(b, efiRequest(http.MethodPut, send, efiPayout("12.34"))) }
	faulted := func(f psp.Fault) func(bank) { return func(b bank) { b.Inject(f) } }
	tests := []struct {
		name          string
		edit          func(*psp.Config)
		setup         func(bank)
		method, path  string
		body, token   string
		status        int
		contentPrefix string
	}{
		{"a payout", nil, nil, "PUT", send, efiPayout("12.34"), token, 201, "application/json"},
		{"its replay", nil, paid, "PUT", send, efiPayout("12.34"), token, 201, "application/json"},
		{"an idEnvio too long", nil, nil, "PUT", efi.SendPath + strings.Repeat("a", 36), efiPayout("12.34"), token, 400, "application/json"},
		{"a body out of the schema", nil, nil, "PUT", send, `{"valor":1}`, token, 400, "application/json"},
		{"a zero valor", nil, nil, "PUT", send, efiPayout("0.00"), token, 400, "application/json"},
		{"another payer's key", nil, nil, "PUT", send, strings.Replace(efiPayout("1.00"), efi.PayerKey, "19974764017", 1), token, 400, "application/json"},
		{"an unknown token", nil, nil, "PUT", send, efiPayout("12.34"), "nope", 401, "application/json"},
		{"another payload", nil, paid, "PUT", send, efiPayout("12.35"), token, 409, "application/json"},
		{"over the balance", nil, nil, "PUT", send, efiPayout("1500.00"), token, 422, "application/json"},
		{"a status fault of 429", nil, faulted(psp.Status(429)), "PUT", send, efiPayout("1.00"), token, 429, "application/problem+json"},
		{"a status fault of 500", nil, faulted(psp.Status(500)), "PUT", send, efiPayout("1.00"), token, 500, "application/json"},
		{"a full key store", func(c *psp.Config) { c.MaxKeys = 1 }, func(b bank) {
			serve(b, efiRequest(http.MethodPut, efi.SendPath+"other", efiPayout("1.00")))
		}, "PUT", send, efiPayout("1.00"), token, 503, "application/problem+json"},
		{"a status fault of 504", nil, faulted(psp.Status(504)), "PUT", send, efiPayout("1.00"), token, 504, "application/problem+json"},
		{"a status fault of 418", nil, faulted(psp.Status(418)), "PUT", send, efiPayout("1.00"), token, 418, "application/json"},
		{"a commit_status fault of 502", nil, faulted(psp.CommitStatus(502)), "PUT", send, efiPayout("1.00"), token, 502, "application/json"},
		{"a lookup", nil, paid, "GET", lookup, "", token, 200, "application/json"},
		{"a lookup of a pending payout", nil, func(b bank) { b.Inject(psp.Pending(time.Hour, "settled")); paid(b) },
			"GET", lookup, "", token, 200, "application/json"},
		{"a lookup of an idEnvio too long", nil, nil, "GET", efi.LookupPath + strings.Repeat("a", 36), "", token, 400, "application/json"},
		{"a lookup with an unknown token", nil, nil, "GET", lookup, "", "nope", 401, "application/json"},
		{"a lookup of an idEnvio never used", nil, nil, "GET", lookup, "", token, 404, "application/problem+json"},
		{"a lookup after a dropped settlement", func(c *psp.Config) { c.MaxSettlements = 1 }, func(b bank) {
			serve(b, efiRequest(http.MethodPut, efi.SendPath+"one", efiPayout("1.00")))
			serve(b, efiRequest(http.MethodPut, efi.SendPath+"two", efiPayout("1.00")))
		}, "GET", lookup, "", token, 410, "application/problem+json"},
		{"a lookup fault of 404", nil, faulted(psp.Status(404).ForLookup()), "GET", lookup, "", token, 404, "application/json"},
		{"a lookup fault of 410", nil, faulted(psp.Status(410).ForLookup()), "GET", lookup, "", token, 410, "application/json"},
		{"a lookup fault of 429", nil, faulted(psp.Status(429).ForLookup()), "GET", lookup, "", token, 429, "application/problem+json"},
		{"a lookup fault of 500", nil, faulted(psp.Status(500).ForLookup()), "GET", lookup, "", token, 500, "application/json"},
		{"a lookup fault of 503", nil, faulted(psp.Status(503).ForLookup()), "GET", lookup, "", token, 503, "application/problem+json"},
		{"a lookup fault of 504", nil, faulted(psp.Status(504).ForLookup()), "GET", lookup, "", token, 504, "application/problem+json"},
		{"a lookup fault of 409", nil, faulted(psp.Status(409).ForLookup()), "GET", lookup, "", token, 409, "application/json"},
		{"a lookup fault of 502", nil, faulted(psp.Status(502).ForLookup()), "GET", lookup, "", token, 502, "application/json"},
		{"the list of payouts, not served", nil, nil, "GET", "/v2/gn/pix/enviados", "", token, 405, "application/json"},
		{"a path not listed", nil, nil, "GET", "/v2/gn/evp", "", token, 404, "application/json"},
		{"another method", nil, nil, "GET", send, "", token, 405, "application/json"},
		{"HEAD of a lookup", nil, nil, "HEAD", lookup, "", token, 405, "application/json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var edits []func(*psp.Config)
			if tt.edit != nil {
				edits = append(edits, tt.edit)
			}
			b := mustEfiBank(t, edits...)
			if tt.setup != nil {
				tt.setup(b)
			}
			r := efiRequest(tt.method, tt.path, tt.body)
			r.Header.Set("Authorization", "Bearer "+tt.token)
			a := serve(b, r)
			if a.status != tt.status || !strings.HasPrefix(a.header.Get("Content-Type"), tt.contentPrefix) {
				t.Errorf("%s %s = %d %s %s, want %d %s", tt.method, tt.path, a.status, a.header.Get("Content-Type"),
					a.body, tt.status, tt.contentPrefix)
			}
		})
	}
}

// TestEfiInFlightMatchesTheDocument: a payout and a lookup while a request with the idEnvio is
// in flight answer 500 erro_aplicacao, as the document says.
func TestEfiInFlightMatchesTheDocument(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustEfiBank(t)
		b.Inject(psp.Slow(time.Second))
		done := make(chan answer)
		go func() { done <- serve(b, efiRequest(http.MethodPut, efi.SendPath+"abc", efiPayout("1.00"))) }()
		synctest.Wait() // the payout holds its key, asleep in its fault
		for _, r := range []*http.Request{
			efiRequest(http.MethodPut, efi.SendPath+"abc", efiPayout("1.00")),
			efiRequest(http.MethodGet, efi.LookupPath+"abc", ""),
		} {
			if a := serve(b, r); a.status != http.StatusInternalServerError || !strings.Contains(a.body, `"erro_aplicacao"`) {
				t.Errorf("%s %s = %d %s, want 500 erro_aplicacao", r.Method, r.URL.Path, a.status, a.body)
			}
		}
		if a := <-done; a.status != http.StatusCreated {
			t.Errorf("the payout = %d %s, want 201", a.status, a.body)
		}
	})
}

// TestEfiLookupOfAPayoutNotMadeMatchesTheDocument: the lookup of a payout accepted, then not
// made, and the replay of its PUT, answer as the document says.
func TestEfiLookupOfAPayoutNotMadeMatchesTheDocument(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustEfiBank(t)
		b.Inject(psp.Pending(time.Minute, "rejected"))
		serve(b, efiRequest(http.MethodPut, efi.SendPath+"abc", efiPayout("1.00")))
		time.Sleep(time.Minute)
		if a := serve(b, efiRequest(http.MethodGet, efi.LookupPath+"abc", "")); a.status != 200 || !strings.Contains(a.body, `"NAO_REALIZADO"`) {
			t.Errorf("lookup = %d %s, want 200 NAO_REALIZADO", a.status, a.body)
		}
		if a := serve(b, efiRequest(http.MethodPut, efi.SendPath+"abc", efiPayout("1.00"))); a.status != 422 {
			t.Errorf("replay = %d %s, want 422", a.status, a.body)
		}
	})
}
