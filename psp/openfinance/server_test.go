package openfinance_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
	"pixretry/psp/openfinance"
)

func TestRoutes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		for _, tc := range []struct {
			method, path string
			status       int
			code, detail string
			allow        string
		}{
			{"GET", "/open-banking/payments/v3/consents", 404, "NOT_FOUND", "no resource at /open-banking/payments/v3/consents", ""},
			{"GET", openfinance.BasePath, 404, "NOT_FOUND", "no resource at " + openfinance.BasePath, ""},
			{"GET", openfinance.ConsentsPath, 405, "METHOD_NOT_ALLOWED", openfinance.ConsentsPath + " takes POST", "POST"},
			{"PUT", openfinance.PaymentsPath, 405, "METHOD_NOT_ALLOWED", openfinance.PaymentsPath + " takes POST", "POST"},
			{"PATCH", openfinance.PaymentsPath + "/p1", 405, "METHOD_NOT_ALLOWED", openfinance.PaymentsPath + "/p1 takes GET", "GET"},
			{"POST", openfinance.ConsentsPath + "/c1", 405, "METHOD_NOT_ALLOWED", openfinance.ConsentsPath + "/c1 takes GET", "GET"},
			{"GET", openfinance.PaymentsPath + "/p1", 404, "NOT_FOUND", "no payment p1", ""},
		} {
			a := b.serve(request(tc.method, tc.path, ""))
			wantError(t, tc.method+" "+tc.path, a, tc.status, tc.code, tc.detail)
			if got := a.header.Get("Allow"); got != tc.allow {
				t.Errorf("%s %s: Allow = %q, want %q", tc.method, tc.path, got, tc.allow)
			}
		}
	})
}

func TestGetPaymentOfAnotherToken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		id := paymentID(t, b.pay("k1", paymentData(b.mustConsent(consentData()))))
		r := request(http.MethodGet, openfinance.PaymentsPath+"/"+id, "")
		r.Header.Set("Authorization", "Bearer other-token")
		wantError(t, "GET payment", b.serve(r), http.StatusNotFound, "NOT_FOUND", "no payment "+id)
		if st := b.core.Stats(); st.Lookups != 0 {
			t.Errorf("Stats().Lookups = %d, want 0", st.Lookups)
		}
	})
}

func TestLookupFaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		id := paymentID(t, b.pay("k1", paymentData(b.mustConsent(consentData()))))
		path := openfinance.PaymentsPath + "/" + id
		b.core.Inject(psp.Status(503).ForLookup(), psp.Status(504).ForLookup(), psp.Redirect(302).ForLookup(),
			psp.ResetConn().ForLookup(), psp.BadBody("not_json").ForLookup())
		wantError(t, "GET payment with 503", b.get(path), 529, "SITE_IS_OVERLOADED",
			"fault injected: the PSP answers 503 before any processing")
		wantError(t, "GET payment with 504", b.get(path), 504, "GATEWAY_TIMEOUT",
			"fault injected: the PSP answers 504 before any processing")
		if a := b.get(path); a.status != 302 || a.header.Get("Location") != path {
			t.Errorf("GET payment with a redirect = %d to %q, want 302 to %s", a.status, a.header.Get("Location"), path)
		}
		if a := b.get(path); !a.aborted {
			t.Errorf("GET payment with a reset = %d, want a hang-up", a.status)
		}
		if a := b.get(path); a.status != 200 || a.body != "<html><body><h1>200 OK</h1></body></html>\n" {
			t.Errorf("GET payment with not_json = %d %q, want the broken answer as it was sent", a.status, a.body)
		}
	})
}

func TestMaxKeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, func(_ *psp.Config, c *openfinance.Config) { c.MaxKeys, c.KeyTTL = 1, time.Hour })
		consent := b.mustConsent(consentData())
		wantError(t, "POST consents under a second key", b.post(openfinance.ConsentsPath, "c2", consentData()), 529,
			"SITE_IS_OVERLOADED", "the PSP holds 1 idempotency keys, its limit, and none has expired; retry later")
		paymentID(t, b.pay("k1", paymentData(consent)))
		wantError(t, "POST payment under a second key", b.pay("k2", paymentData(consent)), 529,
			"SITE_IS_OVERLOADED", "the PSP holds 1 idempotency keys, its limit, and none has expired; retry later")
		time.Sleep(time.Hour)
		wantError(t, "POST payment once the first key expired", b.pay("k2", paymentData(consent)),
			http.StatusUnprocessableEntity, "CONSENTIMENTO_INVALIDO", "the consent "+consent+" is CONSUMED")
	})
}

func TestMaxPaymentsForgetsTheOldest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, func(_ *psp.Config, c *openfinance.Config) { c.MaxPayments = 1 })
		first := paymentID(t, b.pay("k1", paymentData(b.mustConsent(consentData()))))
		second := paymentID(t, b.pay("k2", paymentData(b.mustConsent(consentData()))))
		wantError(t, "GET the first payment", b.get(openfinance.PaymentsPath+"/"+first), http.StatusNotFound,
			"NOT_FOUND", "no payment "+first)
		if a := b.get(openfinance.PaymentsPath + "/" + second); a.status != http.StatusOK {
			t.Errorf("GET the second payment = %d, want 200", a.status)
		}
	})
}

func TestOverloadIs529(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, func(c *psp.Config, _ *openfinance.Config) {
			c.Capacity, c.ServiceTime, c.ShedRetryAfter = 1, time.Second, time.Second
		})
		first, second := b.mustConsent(consentData()), b.mustConsent(consentData())
		var wg sync.WaitGroup
		wg.Go(func() { paymentID(t, b.pay("k1", paymentData(first))) })
		synctest.Wait() // k1 in processing
		a := b.pay("k2", paymentData(second))
		wantError(t, "POST payment beyond the capacity", a, 529, "SITE_IS_OVERLOADED",
			"the PSP is processing 1 payments, its capacity; retry later")
		if got := a.header.Get("Retry-After"); got != "1" {
			t.Errorf("Retry-After = %q, want 1", got)
		}
		if got := b.consentStatus(second); got != "AUTHORISED" {
			t.Errorf("consent = %s, want AUTHORISED", got)
		}
		wg.Wait()
		paymentID(t, b.pay("k2", otherE2E(second))) // the key was not kept
	})
}

func TestSameKeyAtOnceMakesOnePayment(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, func(c *psp.Config, _ *openfinance.Config) { c.ServiceTime = time.Second })
		consent := b.mustConsent(consentData())
		ids := make([]string, 3)
		var wg sync.WaitGroup
		for i := range ids {
			wg.Go(func() { ids[i] = paymentID(t, b.pay("k1", paymentData(consent))) })
		}
		wg.Wait()
		if ids[0] != ids[1] || ids[1] != ids[2] {
			t.Errorf("paymentIds = %v, want one", ids)
		}
		if n := len(b.core.Settlements()); n != 1 {
			t.Errorf("len(Settlements()) = %d, want 1", n)
		}
	})
}

func TestConsentInFlightDoesNotExpire(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		consent := b.mustConsent(consentData())
		time.Sleep(59*time.Minute + 50*time.Second)
		b.core.Inject(psp.Slow(20 * time.Second))
		done := make(chan answer)
		go func() { done <- b.pay("k1", paymentData(consent)) }()
		time.Sleep(15 * time.Second) // past the expiry, the payment in flight
		if got := b.consentStatus(consent); got != "AUTHORISED" {
			t.Errorf("consent at 60m05s, a payment in flight = %s, want AUTHORISED", got)
		}
		a := <-done
		id := paymentID(t, a)
		want := wantPayment(id, consent, "ACSC", "2000-01-01T01:00:10Z", true, nil)
		want["data"].([]any)[0].(map[string]any)["creationDateTime"] = "2000-01-01T00:59:50Z"
		if diff := cmp.Diff(want, a.claims); diff != "" {
			t.Errorf("POST payment (-want +got):\n%s", diff)
		}
		got := b.get(openfinance.ConsentsPath + "/" + consent).claims["data"].(map[string]any)
		if got["status"] != "CONSUMED" || got["statusUpdateDateTime"] != "2000-01-01T01:00:10Z" {
			t.Errorf("consent = %v at %v, want CONSUMED at 01:00:10", got["status"], got["statusUpdateDateTime"])
		}
	})
}

func TestResetForgetsTheFrontEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		consent := b.mustConsent(consentData())
		id := paymentID(t, b.pay("k1", paymentData(consent)))
		b.core.Reset()
		b.of.Reset()
		if a := b.get(openfinance.ConsentsPath + "/" + consent); a.status != http.StatusNotFound {
			t.Errorf("GET consent after Reset = %d, want 404", a.status)
		}
		if a := b.get(openfinance.PaymentsPath + "/" + id); a.status != http.StatusNotFound {
			t.Errorf("GET payment after Reset = %d, want 404", a.status)
		}
	})
}

// blockedWriter is a ResponseRecorder whose Write waits for release: the request holds its
// consent's turn until then.
type blockedWriter struct {
	*httptest.ResponseRecorder
	release chan struct{}
}

func (w blockedWriter) Write(p []byte) (int, error) {
	<-w.release
	return w.ResponseRecorder.Write(p)
}

func TestKeyFreedWhileWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, func(c *psp.Config, _ *openfinance.Config) { c.Capacity, c.ServiceTime = 1, time.Minute })
		busy, consent := b.mustConsent(consentData()), b.mustConsent(consentData())
		var slot, wg sync.WaitGroup
		slot.Go(func() { paymentID(t, b.pay("e", paymentData(busy))) }) // takes the one slot for a minute
		synctest.Wait()
		w := blockedWriter{httptest.NewRecorder(), make(chan struct{})}
		wg.Go(func() { // shed, then holds the consent's turn while it writes
			b.of.ServeHTTP(w, signedRequest(openfinance.PaymentsPath, "d", claimsFor(openfinance.PaymentsPath, paymentData(consent))))
		})
		synctest.Wait()
		answers := make([]answer, 2)
		for i := range answers { // both wait for the turn with one attempt under k1
			wg.Go(func() { answers[i] = b.pay("k1", paymentData(consent)) })
			synctest.Wait()
		}
		close(w.release)
		wg.Wait()
		for i, a := range answers { // the second to run finds the key freed by the first
			wantError(t, fmt.Sprint("POST payment ", i), a, 529, "SITE_IS_OVERLOADED",
				"the PSP is processing 1 payments, its capacity; retry later")
		}
		slot.Wait()
		paymentID(t, b.pay("k1", otherE2E(consent)))
	})
}
