package openfinance_test

import (
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"pixretry/psp"
	"pixretry/psp/openfinance"
)

// reusedKey is the detail of the 422 ERRO_IDEMPOTENCIA of a key that holds other data, or a
// payment.
const reusedKey = "the data claim differs from the one first sent under this x-idempotency-key"

func TestKeyLetGoWithItsPaymentHeldPaysNothing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault []psp.Fault
		read  bool // GET the first payment once the PSP has forgotten it, which closes its key there
	}{
		{"settled", nil, false},
		{"rejected, then read", []psp.Fault{psp.Pending(time.Second, "rejected")}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := mustBank(t, nil)
				b.core.Inject(tc.fault...)
				id := paymentID(t, b.pay("k1", paymentData(b.mustConsent(consentData()))))
				time.Sleep(25 * time.Hour)
				if tc.read {
					if got := b.get(openfinance.PaymentsPath + "/" + id); got.status != http.StatusOK {
						t.Fatalf("GET payment = %d %s, want 200", got.status, got.body)
					}
				}
				consent := b.mustConsent(consentData())
				wantError(t, "POST payment under the key let go", b.pay("k1", paymentData(consent)),
					http.StatusUnprocessableEntity, "ERRO_IDEMPOTENCIA", reusedKey)
				if got := b.consentStatus(consent); got != "AUTHORISED" {
					t.Errorf("consent = %s, want AUTHORISED", got)
				}
				// The key was not kept: other data under it meets its consent's check first.
				wantError(t, "POST payment of an unknown consent", b.pay("k1", paymentData("urn:pixretry:unknown")),
					http.StatusUnprocessableEntity, "CONSENTIMENTO_INVALIDO", "the consent urn:pixretry:unknown is unknown")
				if got, want := len(b.core.Settlements()), len(tc.fault); got != 1-want {
					t.Errorf("the ledger holds %d settlements, want %d", got, 1-want)
				}
			})
		})
	}
}

func TestKeyRefusedIsNewAgainAfterKeyTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		wantError(t, "POST payment of an unknown consent", b.pay("k1", paymentData("urn:pixretry:unknown")),
			http.StatusUnprocessableEntity, "CONSENTIMENTO_INVALIDO", "the consent urn:pixretry:unknown is unknown")
		time.Sleep(24*time.Hour - time.Nanosecond)
		consent := b.mustConsent(consentData())
		wantError(t, "POST payment the nanosecond before KeyTTL", b.pay("k1", paymentData(consent)),
			http.StatusUnprocessableEntity, "ERRO_IDEMPOTENCIA", reusedKey)
		time.Sleep(time.Nanosecond)
		if got := b.pay("k1", paymentData(consent)); got.status != http.StatusCreated {
			t.Fatalf("POST payment at KeyTTL = %d %s, want 201", got.status, got.body)
		}
	})
}
