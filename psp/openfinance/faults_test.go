package openfinance_test

import (
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
	"pixretry/psp/openfinance"
)

// otherE2E is paymentData with another endToEndId: other data under the same key.
func otherE2E(consent string) []any {
	data := paymentData(consent)
	data[0].(map[string]any)["endToEndId"] = "E9040088820000101000000123873171"
	return data
}

func TestFaultBeforeProcessingLeavesTheConsent(t *testing.T) {
	for _, tc := range []struct {
		fault        psp.Fault
		status       int
		code, detail string
		retryAfter   string
	}{
		{psp.Status(503), 529, "SITE_IS_OVERLOADED", "fault injected: the PSP answers 503 before any processing", ""},
		{psp.Status(500), 500, "INTERNAL_SERVER_ERROR", "fault injected: the PSP answers 500 before any processing", ""},
		{psp.Status(504), 504, "GATEWAY_TIMEOUT", "fault injected: the PSP answers 504 before any processing", ""},
		{psp.Status(599), 599, "STATUS_599", "fault injected: the PSP answers 599 before any processing", ""},
		{psp.Fault{Kind: "status", Status: 429, RetryAfter: 1500 * time.Millisecond}, 429, "TOO_MANY_REQUESTS",
			"fault injected: the PSP answers 429 before any processing", "2"},
	} {
		t.Run(fmt.Sprint(tc.fault.Status), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := mustBank(t, nil)
				b.core.Inject(tc.fault)
				consent := b.mustConsent(consentData())
				a := b.pay("k1", paymentData(consent))
				wantError(t, "POST payment", a, tc.status, tc.code, tc.detail)
				if got := a.header.Get("Retry-After"); got != tc.retryAfter {
					t.Errorf("Retry-After = %q, want %q", got, tc.retryAfter)
				}
				if got := b.consentStatus(consent); got != "AUTHORISED" {
					t.Errorf("consent = %s, want AUTHORISED: nothing was processed", got)
				}
				paymentID(t, b.pay("k1", otherE2E(consent))) // the key was not kept
			})
		})
	}
}

func TestFaultAfterTheCommitConsumesTheConsent(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fault   psp.Fault
		status  int // 0: the double hangs up
		code    string
		detail  string
		updated string // the payment's statusUpdateDateTime
	}{
		{"commit_status 500", psp.CommitStatus(500), 500, "INTERNAL_SERVER_ERROR",
			"fault injected: the PSP processed the request, then answered 500", start},
		{"commit_status 503", psp.CommitStatus(503), 529, "SITE_IS_OVERLOADED",
			"fault injected: the PSP processed the request, then answered 503", start},
		{"drop", psp.Drop(), 0, "", "", start},
		{"bad_body short", psp.BadBody("short"), 0, "", "", start},
		{"duplicate", psp.Duplicate(time.Second), 409, "PAGAMENTO_EM_PROCESSAMENTO",
			"a request with this Idempotency-Key is still being processed; retry later", "2000-01-01T00:00:01Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := mustBank(t, nil)
				b.core.Inject(tc.fault)
				consent := b.mustConsent(consentData())
				a := b.pay("k1", paymentData(consent))
				if tc.status == 0 {
					if !a.aborted {
						t.Errorf("POST payment = %d, want a hang-up", a.status)
					}
				} else {
					wantError(t, "POST payment", a, tc.status, tc.code, tc.detail)
				}
				if got := b.consentStatus(consent); got != "CONSUMED" {
					t.Errorf("consent = %s, want CONSUMED: the payment may have been made", got)
				}
				wantError(t, "POST payment under k2", b.pay("k2", paymentData(consent)), http.StatusUnprocessableEntity,
					"CONSENTIMENTO_INVALIDO", "the consent "+consent+" is CONSUMED")
				wantError(t, "POST payment under k1 with other data", b.pay("k1", otherE2E(consent)),
					http.StatusUnprocessableEntity, "ERRO_IDEMPOTENCIA",
					"the data claim differs from the one first sent under this x-idempotency-key")
				time.Sleep(time.Hour) // past the consent's expiry: CONSUMED stays
				b.core.Wait()
				id := paymentID(t, b.pay("k1", paymentData(consent)))
				if diff := cmp.Diff(wantPayment(id, consent, "ACSC", tc.updated, true, nil), b.pay("k1", paymentData(consent)).claims); diff != "" {
					t.Errorf("POST payment again (-want +got):\n%s", diff)
				}
				if n := len(b.core.Settlements()); n != 1 {
					t.Errorf("len(Settlements()) = %d, want 1", n)
				}
			})
		})
	}
}

func TestHangUpBeforeProcessingLeavesTheConsent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		b.core.Inject(psp.ResetConn())
		consent := b.mustConsent(consentData())
		if a := b.pay("k1", paymentData(consent)); !a.aborted {
			t.Errorf("POST payment = %d, want a hang-up", a.status)
		}
		if got := b.consentStatus(consent); got != "AUTHORISED" {
			t.Errorf("consent = %s, want AUTHORISED", got)
		}
		paymentID(t, b.pay("k1", otherE2E(consent)))
	})
}

func TestRedirectFault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		b.core.Inject(psp.Redirect(307))
		consent := b.mustConsent(consentData())
		a := b.pay("k1", paymentData(consent))
		if a.status != 307 || a.header.Get("Location") != openfinance.PaymentsPath || a.body != "" {
			t.Errorf("POST payment = %d Location %q body %q, want 307 to %s", a.status, a.header.Get("Location"), a.body,
				openfinance.PaymentsPath)
		}
		if got := b.consentStatus(consent); got != "AUTHORISED" {
			t.Errorf("consent = %s, want AUTHORISED", got)
		}
	})
}

func TestBadBodyFaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		b.core.Inject(psp.BadBody("not_json"))
		consent := b.mustConsent(consentData())
		a := b.pay("k1", paymentData(consent))
		if want := "<html><body><h1>201 Created</h1></body></html>\n"; a.status != 201 || a.body != want {
			t.Errorf("POST payment = %d %q, want 201 %q: the broken answer as it was sent", a.status, a.body, want)
		}
		if got := b.consentStatus(consent); got != "CONSUMED" {
			t.Errorf("consent = %s, want CONSUMED", got)
		}
		b.core.Inject(psp.BadBody("valor"), psp.Fault{Kind: "bad_body", Breach: "missing", Member: "status"})
		a = b.pay("k1", paymentData(consent))
		id := paymentID(t, a)
		want := wantPayment(id, consent, "ACSC", start, true, nil)
		want["data"].([]any)[0].(map[string]any)["payment"] = map[string]any{"amount": "150.01", "currency": "BRL"}
		if diff := cmp.Diff(want, a.claims); diff != "" {
			t.Errorf("POST payment with valor broken (-want +got):\n%s", diff)
		}
		want = wantPayment(id, consent, "ACSC", start, true, nil)
		delete(want["data"].([]any)[0].(map[string]any), "status")
		if diff := cmp.Diff(want, b.pay("k1", paymentData(consent)).claims); diff != "" {
			t.Errorf("POST payment with status missing (-want +got):\n%s", diff)
		}
	})
}
