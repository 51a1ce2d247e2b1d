package pix_test

import (
	"errors"
	"net/http"
	"sync/atomic"
	"testing"

	"pixretry/internal/pipenet"
	"pixretry/pix"
)

// serveLookup is a hand-written PSP whose lookups h answers: the real psp never breaks the
// contract of a 200, so the client's checks are proved against this one.
func serveLookup(t *testing.T, h http.HandlerFunc) *pipenet.Server {
	t.Helper()
	srv := pipenet.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func writeFound(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write([]byte(body))
}

// TestLookupReceiptIsTheBodys: a lookup has no payment to hold its 200 to, so the receipt's
// amount and Pix key are read from the body, within the limits of a payment.
func TestLookupReceiptIsTheBodys(t *testing.T) {
	for _, tc := range []struct {
		name      string
		body      string
		wantCents int64
		wantKey   string
	}{
		{"as the contract says", encoded(validSettled()), 15000, "pix@example.com"},
		{"1 centavo", encoded(with("valor", "0.01")), 1, "pix@example.com"},
		{"9,999,999,999.99", encoded(with("valor", "9999999999.99")), 999_999_999_999, "pix@example.com"},
		{"another chave", encoded(with("chave", "+5511987654321")), 15000, "+5511987654321"},
		{"without infoPagador", encoded(with("infoPagador", nil)), 15000, "pix@example.com"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := serveLookup(t, func(w http.ResponseWriter, _ *http.Request) { writeFound(w, tc.body) })
			r, err := clientOf(srv).Lookup(t.Context(), "k")
			if err != nil || r.AmountCents != tc.wantCents || r.PixKey != tc.wantKey {
				t.Errorf("Lookup() = %+v, %v; want AmountCents %d and PixKey %q", r, err, tc.wantCents, tc.wantKey)
			}
		})
	}
}

// TestLookupContractViolationIsNeverAccepted: a 200 that breaks the contract is no receipt, and
// says nothing either way: the outcome is unknown, after one attempt.
func TestLookupContractViolationIsNeverAccepted(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
	}{
		{"body over 64 KiB", padded(64<<10 + 1)},
		{"body not JSON", "<html>found</html>"},
		{"body empty", ``},
		{"endToEndId missing", encoded(with("endToEndId", nil))},
		{"endToEndId 31 characters", encoded(with("endToEndId", "E12345678202501021504abcDEF1234"))},
		{"valor missing", encoded(with("valor", nil))},
		{"valor 0.00", encoded(with("valor", "0.00"))},
		{"valor 10,000,000,000.00", encoded(with("valor", "10000000000.00"))},
		{"valor negative", encoded(with("valor", "-1.50"))},
		{"valor with a plus sign", encoded(with("valor", "+150.00"))},
		{"valor with a leading zero", encoded(with("valor", "0150.00"))},
		{"valor one decimal", encoded(with("valor", "150.0"))},
		{"valor three decimals", encoded(with("valor", "150.000"))},
		{"valor without decimals", encoded(with("valor", "150"))},
		{"valor with a comma", encoded(with("valor", "150,00"))},
		{"valor a number", encoded(with("valor", 150.00))},
		{"valor beyond int64", encoded(with("valor", "92233720368547758.08"))},
		{"chave missing", encoded(with("chave", nil))},
		{"chave not a Pix key", encoded(with("chave", "Pix@Example.com"))},
		{"status in progress", encoded(with("status", "EM_PROCESSAMENTO"))},
		{"horario not a time", encoded(with("horario", "yesterday"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := serveLookup(t, func(w http.ResponseWriter, _ *http.Request) {
				calls.Add(1)
				writeFound(w, tc.body)
			})

			_, err := clientOf(srv).Lookup(t.Context(), "k")

			var unknown *pix.OutcomeUnknownError
			if !errors.Is(err, pix.ErrContract) || !errors.As(err, &unknown) || unknown.Attempts != 1 {
				t.Errorf("Lookup() error = %v, want ErrContract, as an *OutcomeUnknownError after 1 attempt", err)
			}
			if got := calls.Load(); got != 1 {
				t.Errorf("PSP got %d lookups, want 1 (a contract violation is permanent)", got)
			}
		})
	}
}

// TestLookupOtherSuccessIsAnError: only a 200 carries a receipt. A 201 or a 204 to a lookup
// breaks the contract.
func TestLookupOtherSuccessIsAnError(t *testing.T) {
	for _, status := range []int{http.StatusCreated, http.StatusNoContent} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			srv := serveLookup(t, func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(status)
				if status == http.StatusCreated {
					w.Write([]byte(encoded(validSettled())))
				}
			})

			_, err := clientOf(srv).Lookup(t.Context(), "k")

			var perr *pix.Error
			if !errors.As(err, &perr) || perr.Status != status || !errors.Is(err, pix.ErrContract) ||
				!errors.Is(err, pix.ErrOutcomeUnknown) {
				t.Errorf("Lookup() error = %v, want a %d *pix.Error, ErrContract and ErrOutcomeUnknown", err, status)
			}
		})
	}
}
