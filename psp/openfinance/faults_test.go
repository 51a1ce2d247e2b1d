package openfinance_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
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
				b.core.Inject(psp.Status(503)) // processes nothing: the key stays as it was
				wantError(t, "POST payment under k1 again", b.pay("k1", paymentData(consent)), 529,
					"SITE_IS_OVERLOADED", "fault injected: the PSP answers 503 before any processing")
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
				got := b.get(openfinance.ConsentsPath + "/" + consent).claims["data"].(map[string]any)["statusUpdateDateTime"]
				if got != start {
					t.Errorf("consent's statusUpdateDateTime = %v, want %s: consumed by the first attempt", got, start)
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
		b.core.Inject(psp.BadBody("valor"))
		a = b.pay("k1", paymentData(consent))
		id := paymentID(t, a)
		want := wantPayment(id, consent, "ACSC", start, true, nil)
		want["data"].([]any)[0].(map[string]any)["payment"] = map[string]any{"amount": "150.01", "currency": "BRL"}
		if diff := cmp.Diff(want, a.claims); diff != "" {
			t.Errorf("POST payment with valor broken (-want +got):\n%s", diff)
		}
		for member, view := range map[string]string{"status": "status", "horario": "statusUpdateDateTime",
			"valor": "amount", "chave": "proxy"} {
			b.core.Inject(psp.Fault{Kind: "bad_body", Breach: "missing", Member: member})
			want := wantPayment(id, consent, "ACSC", start, true, nil)
			item := want["data"].([]any)[0].(map[string]any)
			delete(item, view)
			delete(item["payment"].(map[string]any), view)
			if diff := cmp.Diff(want, b.pay("k1", paymentData(consent)).claims); diff != "" {
				t.Errorf("POST payment with %s missing (-want +got):\n%s", member, diff)
			}
		}
	})
}

func TestCommitStatus2xxKeepsItsStatus(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		b.core.Inject(psp.CommitStatus(200))
		consent := b.mustConsent(consentData())
		a := b.pay("k1", paymentData(consent))
		id, _ := a.claims["data"].([]any)[0].(map[string]any)["paymentId"].(string)
		if diff := cmp.Diff(wantPayment(id, consent, "ACSC", start, true, nil), a.claims); a.status != 200 || diff != "" {
			t.Errorf("POST payment = %d (-want +got):\n%s", a.status, diff)
		}
	})
}

func TestKeyThePSPHoldsOtherwise(t *testing.T) {
	for _, tc := range []struct {
		name   string
		native *http.Request // sent to the psp.Server first, under the key k1
		detail string
	}{
		{"for another payment", nativePayment(`{"valor":"1.00","chave":"pix@example.com"}`),
			"this Idempotency-Key was used for a different payment"},
		{"closed by a lookup", httptest.NewRequest(http.MethodGet, psp.PaymentsPath+"?idempotency_key=k1", nil),
			"a status lookup found no payment under this Idempotency-Key and closed it; use a new key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := mustBank(t, nil)
				tc.native.Header.Set("Authorization", "Bearer "+token)
				b.core.ServeHTTP(httptest.NewRecorder(), tc.native)
				consent := b.mustConsent(consentData())
				wantError(t, "POST payment", b.pay("k1", paymentData(consent)), http.StatusUnprocessableEntity,
					"ERRO_IDEMPOTENCIA", tc.detail)
				if got := b.consentStatus(consent); got != "AUTHORISED" {
					t.Errorf("consent = %s, want AUTHORISED", got)
				}
				paymentID(t, b.pay("k2", paymentData(consent)))
			})
		})
	}
}

// nativePayment is a payment request of the psp.Server's own API under k1.
func nativePayment(body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, psp.PaymentsPath, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Idempotency-Key", "k1")
	return r
}

func TestKeyStoreOfThePSPFull(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, func(c *psp.Config, _ *openfinance.Config) { c.MaxKeys = 1 })
		paymentID(t, b.pay("k1", paymentData(b.mustConsent(consentData()))))
		consent := b.mustConsent(consentData())
		a := b.pay("k2", paymentData(consent))
		wantError(t, "POST payment", a, 529, "SITE_IS_OVERLOADED",
			"the PSP stores 1 Idempotency-Keys, its limit, and none has expired; retry later")
		if got := a.header.Get("Retry-After"); got != "86400" {
			t.Errorf("Retry-After = %q, want 86400", got)
		}
		if got := b.consentStatus(consent); got != "AUTHORISED" {
			t.Errorf("consent = %s, want AUTHORISED", got)
		}
	})
}

func TestTraceparentRelayed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
		consent := b.mustConsent(consentData())
		r := signedRequest(openfinance.PaymentsPath, "k1", claimsFor(openfinance.PaymentsPath, paymentData(consent)))
		r.Header.Set("Traceparent", traceparent)
		id := paymentID(t, b.serve(r))
		r = request(http.MethodGet, openfinance.PaymentsPath+"/"+id, "")
		r.Header.Set("Traceparent", traceparent)
		b.serve(r)
		requests, _ := b.core.Requests(psp.RequestFilter{})
		for _, got := range requests {
			if got.Traceparent != traceparent {
				t.Errorf("%s %s: traceparent = %q, want %q", got.Method, got.Path, got.Traceparent, traceparent)
			}
		}
		if len(requests) != 2 {
			t.Errorf("the PSP got %d requests, want 2", len(requests))
		}
	})
}

func TestClientLeavesWhileWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		b.core.Inject(psp.Slow(time.Minute))
		consent := b.mustConsent(consentData())
		done := make(chan answer)
		go func() { done <- b.pay("k1", paymentData(consent)) }()
		synctest.Wait() // k1 holds the consent's turn
		ctx, cancel := context.WithCancel(context.Background())
		r := signedRequest(openfinance.PaymentsPath, "k2", claimsFor(openfinance.PaymentsPath, paymentData(consent)))
		w := httptest.NewRecorder()
		go func() {
			synctest.Wait() // k2 waits for the turn
			cancel()
		}()
		b.of.ServeHTTP(w, r.WithContext(ctx))
		if w.Body.Len() != 0 || len(w.Header()) != 0 {
			t.Errorf("the answer to a client gone = %d %v %q, want none", w.Code, w.Header(), w.Body)
		}
		paymentID(t, <-done)
	})
}

func TestFaultOnAReplayKeepsThePayment(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		consent := b.mustConsent(consentData())
		id := paymentID(t, b.pay("k1", paymentData(consent)))
		b.core.Inject(psp.Status(503))
		wantError(t, "POST payment again", b.pay("k1", paymentData(consent)), 529, "SITE_IS_OVERLOADED",
			"fault injected: the PSP answers 503 before any processing")
		if got := paymentID(t, b.pay("k1", paymentData(consent))); got != id {
			t.Errorf("paymentId = %s, want %s", got, id)
		}
	})
}
