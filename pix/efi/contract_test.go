package efi_test

import (
	"errors"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"pixretry/pix"
	"pixretry/psp"
)

// TestAnswerBreakingTheContract: a 201 that breaks Efí's contract is not retried, and leaves the
// outcome unknown, since the double did pay.
func TestAnswerBreakingTheContract(t *testing.T) {
	tests := []struct {
		breach string
		want   string // what the error ends with
	}{
		{"valor", `efi: the 201 is for valor "150.01", not the "150.00" sent`},
		{"end_to_end_id", `is not E, an ISPB, yyyyMMddHHmm and 11 letters and digits`},
		{"not_json", `efi: the 201 is not the expected JSON: invalid character '<' looking for beginning of value`},
	}
	for _, tt := range tests {
		t.Run(tt.breach, func(t *testing.T) {
			r := newRig(t, nil, psp.BadBody(tt.breach))

			_, err := r.client().Send(t.Context(), payment)

			unknown, ok := errors.AsType[*pix.OutcomeUnknownError](err)
			if !ok || unknown.Attempts != 1 || !errors.Is(err, pix.ErrContract) || !strings.HasSuffix(err.Error(), tt.want) {
				t.Fatalf("Send() error = %v, want an unknown outcome after 1 attempt, matching ErrContract, ending %q",
					err, tt.want)
			}
			if got := len(r.settlementsUnder(unknown.Key)); got != 1 {
				t.Errorf("double's settlements under the key = %d, want 1", got)
			}
		})
	}
}

// TestKeyReusedWithAnotherPayment: a PUT of another payment under an idEnvio that holds one is
// refused with 409 id_envio_duplicado. It is no proof that this payment was not made (a PSP
// might refuse an identical resend the same way), so pix retries it as any 409, each of the
// policy's four attempts meets it, and the outcome stays unknown.
func TestKeyReusedWithAnotherPayment(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, nil)
		c := r.client()
		_, err := c.Send(t.Context(), payment)
		first := pending(t, "Send()", err, 1)
		other := payment
		other.AmountCents++

		_, err = c.SendWithKey(t.Context(), first.Key, other)

		e, ok := errors.AsType[*pix.Error](err)
		if errors.Is(err, pix.ErrKeyReused) || !errors.Is(err, pix.ErrOutcomeUnknown) || !ok || e.Code != "id_envio_duplicado" {
			t.Errorf("SendWithKey() of another payment error = %v, want 409 id_envio_duplicado and an unknown "+
				"outcome, not ErrKeyReused", err)
		}
		if diff := cmp.Diff(repeat(put(first.Key), 1+policy.AttemptsMax), r.wire.requests()); diff != "" {
			t.Errorf("requests (-want +got):\n%s", diff)
		}
		if got := r.Settlements(); len(got) != 1 || got[0].AmountCents != payment.AmountCents {
			t.Errorf("double's ledger = %+v, want the first payment alone", got)
		}
	})
}
