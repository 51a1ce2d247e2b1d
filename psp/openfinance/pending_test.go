package openfinance_test

import (
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
	"pixretry/psp/openfinance"
)

func TestPendingPaymentSettles(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, func(c *psp.Config, _ *openfinance.Config) { c.CompleteAfter = 10 * time.Second })
		consent := b.mustConsent(consentData())
		a := b.pay("k1", paymentData(consent))
		id := paymentID(t, a)
		if diff := cmp.Diff(wantPayment(id, consent, "ACCP", start, true, nil), a.claims); diff != "" {
			t.Errorf("POST payment (-want +got):\n%s", diff)
		}
		path := openfinance.PaymentsPath + "/" + id
		time.Sleep(10*time.Second - time.Nanosecond)
		if got := b.get(path); got.status != 200 || !cmp.Equal(wantPayment(id, consent, "ACCP", start, false, nil), got.claims) {
			t.Errorf("GET payment before its end = %d %v, want ACCP", got.status, got.claims)
		}
		time.Sleep(time.Nanosecond)
		got := b.get(path)
		if diff := cmp.Diff(wantPayment(id, consent, "ACSC", "2000-01-01T00:00:10Z", false, nil), got.claims); diff != "" {
			t.Errorf("GET payment at its end (-want +got):\n%s", diff)
		}
		again := b.pay("k1", paymentData(consent))
		if diff := cmp.Diff(wantPayment(id, consent, "ACSC", "2000-01-01T00:00:10Z", true, nil), again.claims); diff != "" {
			t.Errorf("POST payment again (-want +got):\n%s", diff)
		}
	})
}

func TestPendingPaymentRejected(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edit   func(*psp.Config, *openfinance.Config)
		fault  []psp.Fault
		motivo string
	}{
		{"in the rejected range", func(c *psp.Config, _ *openfinance.Config) {
			c.CompleteAfter, c.RejectFromCents, c.RejectToCents = 10*time.Second, 15000, 15000
		}, nil, "valor 150.00 is in the range the PSP rejects, 150.00 to 150.00"},
		{"by a pending fault", nil, []psp.Fault{psp.Pending(10*time.Second, "rejected")}, "rejected by a pending fault"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := mustBank(t, tc.edit)
				b.core.Inject(tc.fault...)
				consent := b.mustConsent(consentData())
				a := b.pay("k1", paymentData(consent))
				id := paymentID(t, a)
				if diff := cmp.Diff(wantPayment(id, consent, "ACCP", start, true, nil), a.claims); diff != "" {
					t.Errorf("POST payment (-want +got):\n%s", diff)
				}
				time.Sleep(10 * time.Second)
				reason := map[string]any{"code": "PAGAMENTO_RECUSADO_DETENTORA", "detail": tc.motivo}
				const end = "2000-01-01T00:00:10Z"
				got := b.get(openfinance.PaymentsPath + "/" + id)
				if diff := cmp.Diff(wantPayment(id, consent, "RJCT", end, false, reason), got.claims); got.status != http.StatusOK || diff != "" {
					t.Errorf("GET payment = %d (-want +got):\n%s", got.status, diff)
				}
				again := b.pay("k1", paymentData(consent))
				if diff := cmp.Diff(wantPayment(id, consent, "RJCT", end, true, reason), again.claims); again.status != http.StatusCreated || diff != "" {
					t.Errorf("POST payment again = %d (-want +got):\n%s", again.status, diff)
				}
				if got := b.consentStatus(consent); got != "CONSUMED" {
					t.Errorf("consent = %s, want CONSUMED", got)
				}
			})
		})
	}
}

func TestRejectedPaymentReplayedBeforeAnyLookup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		b.core.Inject(psp.Pending(10*time.Second, "rejected"))
		consent := b.mustConsent(consentData())
		id := paymentID(t, b.pay("k1", paymentData(consent)))
		time.Sleep(10 * time.Second)
		again := b.pay("k1", paymentData(consent))
		reason := map[string]any{"code": "PAGAMENTO_RECUSADO_DETENTORA", "detail": "the payment was accepted, then " +
			"rejected at 2000-01-01T00:00:10Z: rejected by a pending fault; nothing was paid, and a payment under a new " +
			"key pays anew"}
		if diff := cmp.Diff(wantPayment(id, consent, "RJCT", start, true, reason), again.claims); again.status != 201 || diff != "" {
			t.Errorf("POST payment again = %d (-want +got):\n%s", again.status, diff)
		}
	})
}

func TestRejectedPaymentReadAfterThePSPForgotIt(t *testing.T) {
	for _, tc := range []struct {
		name   string
		read   bool // read once before the PSP forgets it
		detail string
	}{
		{"read before", true, "rejected by a pending fault"},
		{"never read", false, "the PSP rejected the payment and no longer says why"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := mustBank(t, func(c *psp.Config, o *openfinance.Config) { c.KeyTTL, o.KeyTTL = time.Hour, time.Hour })
				b.core.Inject(psp.Pending(10*time.Second, "rejected"))
				consent := b.mustConsent(consentData())
				id := paymentID(t, b.pay("k1", paymentData(consent)))
				path := openfinance.PaymentsPath + "/" + id
				time.Sleep(10 * time.Second)
				updated := start
				if tc.read {
					b.get(path)
					updated = "2000-01-01T00:00:10Z"
				}
				time.Sleep(2 * time.Hour)
				got := b.get(path)
				reason := map[string]any{"code": "PAGAMENTO_RECUSADO_DETENTORA", "detail": tc.detail}
				if diff := cmp.Diff(wantPayment(id, consent, "RJCT", updated, false, reason), got.claims); got.status != 200 || diff != "" {
					t.Errorf("GET payment after its key expired = %d (-want +got):\n%s", got.status, diff)
				}
				wantError(t, "POST payment under the expired key", b.pay("k1", paymentData(consent)),
					http.StatusUnprocessableEntity, "CONSENTIMENTO_INVALIDO", "the consent "+consent+" is CONSUMED")
			})
		})
	}
}
