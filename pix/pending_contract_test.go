package pix_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"pixretry/pix"
)

// pending is a 202 body that answers payment as the contract says: accepted, not yet ended.
func pending(member string, v any) map[string]any {
	b := with("status", "EM_PROCESSAMENTO")
	b[member] = v
	if v == nil {
		delete(b, member)
	}
	return b
}

// serveStatus is a hand-written PSP that answers every request with status and body, and
// counts them: the real psp never breaks the contract of a 202 or a lookup's 200, so the
// client's checks are proved against this one.
func serveStatus(t *testing.T, status int, body string) (*pix.Client, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := serveLookup(t, func(w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write([]byte(body))
	})
	return clientOf(srv), &calls
}

// TestPendingOutsideTheContractIsNoPending: a 202 whose body breaks the contract is no pending
// payment. It is a *pix.Error with status 202 and ErrContract, an unknown outcome, after one
// attempt, and it does not match ErrPending.
func TestPendingOutsideTheContractIsNoPending(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
	}{
		{"body empty", ``},
		{"body not JSON", "<html>accepted</html>"},
		{"body over 64 KiB", encoded(pending("infoPagador", strings.Repeat("x", 64<<10)))},
		{"status REALIZADO", encoded(validSettled())},
		{"status NAO_REALIZADO", encoded(pending("status", "NAO_REALIZADO"))},
		{"status missing", encoded(pending("status", nil))},
		{"endToEndId missing", encoded(pending("endToEndId", nil))},
		{"valor another amount", encoded(pending("valor", "150.01"))},
		{"chave another key", encoded(pending("chave", "other@example.com"))},
		{"horario not a time", encoded(pending("horario", "soon"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, calls := serveStatus(t, http.StatusAccepted, tc.body)

			_, err := c.SendWithKey(t.Context(), "k", payment)

			var perr *pix.Error
			if !errors.As(err, &perr) || perr.Status != http.StatusAccepted || !errors.Is(err, pix.ErrContract) ||
				!errors.Is(err, pix.ErrOutcomeUnknown) {
				t.Errorf("SendWithKey() error = %v, want a 202 *pix.Error, ErrContract and ErrOutcomeUnknown", err)
			}
			if errors.Is(err, pix.ErrPending) {
				t.Errorf("SendWithKey() error = %v matches ErrPending, want no pending from a broken 202", err)
			}
			if got := calls.Load(); got != 1 {
				t.Errorf("PSP got %d requests, want 1 (a contract violation is permanent)", got)
			}
		})
	}
}

// TestLookupPendingOutsideTheContractIsNoPending: a lookup's 202 whose body breaks the
// contract is no pending payment either: a *pix.Error with status 202 and ErrContract, an
// unknown outcome after one attempt, and no ErrPending.
func TestLookupPendingOutsideTheContractIsNoPending(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
	}{
		{"body empty", ``},
		{"body not JSON", "<html>accepted</html>"},
		{"status REALIZADO", encoded(validSettled())},
		{"horario not a time", encoded(pending("horario", "soon"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, calls := serveStatus(t, http.StatusAccepted, tc.body)

			_, err := c.Lookup(t.Context(), "k")

			var perr *pix.Error
			if !errors.As(err, &perr) || perr.Status != http.StatusAccepted || !errors.Is(err, pix.ErrContract) ||
				!errors.Is(err, pix.ErrOutcomeUnknown) || errors.Is(err, pix.ErrPending) {
				t.Errorf("Lookup() error = %v, want a 202 *pix.Error, ErrContract and ErrOutcomeUnknown, no ErrPending",
					err)
			}
			if got := calls.Load(); got != 1 {
				t.Errorf("PSP got %d lookups, want 1 (a contract violation is permanent)", got)
			}
		})
	}
}

// TestStatusOutsideTheContractNamesTheStatusesItTakes: an answer whose status is not one its
// HTTP status may carry breaks the contract, and the error lists the statuses it may carry.
func TestStatusOutsideTheContractNamesTheStatusesItTakes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		call   func(context.Context, *pix.Client) error
		want   string
	}{
		{"a payment's 201", http.StatusCreated, func(ctx context.Context, c *pix.Client) error {
			_, err := c.SendWithKey(ctx, "k", payment)
			return err
		}, `the 201 has status "ACSC", want "REALIZADO"`},
		{"a payment's 202", http.StatusAccepted, func(ctx context.Context, c *pix.Client) error {
			_, err := c.SendWithKey(ctx, "k", payment)
			return err
		}, `the 202 has status "ACSC", want "EM_PROCESSAMENTO"`},
		{"a lookup's 200", http.StatusOK, func(ctx context.Context, c *pix.Client) error {
			_, err := c.Lookup(ctx, "k")
			return err
		}, `the 200 has status "ACSC", want "REALIZADO" or "NAO_REALIZADO"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := serveStatus(t, tc.status, encoded(with("status", "ACSC")))

			err := tc.call(t.Context(), c)

			if !errors.Is(err, pix.ErrContract) || !strings.HasSuffix(err.Error(), tc.want) {
				t.Errorf("error = %v, want ErrContract and a text that ends %q", err, tc.want)
			}
		})
	}
}

// TestLookupRejectionProvesNothingPaid: a lookup's 200 NAO_REALIZADO is the PSP's word that
// the payment was rejected after it was accepted. Its error matches ErrRejected, and is not an
// unknown outcome: nothing was paid. It says why, if the PSP does.
func TestLookupRejectionProvesNothingPaid(t *testing.T) {
	for _, tc := range []struct {
		name, motivo, want string
	}{
		{"with a motivo", "rejected by -reject-range", "rejected by -reject-range"},
		{"without one", "", "no motivo given"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := with("status", "NAO_REALIZADO")
			if tc.motivo != "" {
				b["motivo"] = tc.motivo
			}
			c, calls := serveStatus(t, http.StatusOK, encoded(b))

			r, err := c.Lookup(t.Context(), "k")

			if !errors.Is(err, pix.ErrRejected) || errors.Is(err, pix.ErrOutcomeUnknown) || r != (pix.Receipt{}) {
				t.Fatalf("Lookup() = %+v, %v; want no receipt and ErrRejected, not ErrOutcomeUnknown", r, err)
			}
			for _, want := range []string{"E12345678202501021504abcDEF12345", "rejected at 2025-01-02T15:04:05Z", tc.want} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Lookup() error = %q, want it to say %q", err, want)
				}
			}
			if got := calls.Load(); got != 1 {
				t.Errorf("PSP got %d lookups, want 1", got)
			}
		})
	}
}

// TestOnlyRealizadoSettles: a 201 whose status is not REALIZADO is no settlement, and neither
// a pending nor a rejection: it breaks the contract, and the outcome is unknown.
func TestOnlyRealizadoSettles(t *testing.T) {
	for _, status := range []string{"NAO_REALIZADO", "EM_PROCESSAMENTO", "ACSC", ""} {
		t.Run(status, func(t *testing.T) {
			c, _ := serveStatus(t, http.StatusCreated, encoded(with("status", status)))

			_, err := c.SendWithKey(t.Context(), "k", payment)

			if !errors.Is(err, pix.ErrContract) || !errors.Is(err, pix.ErrOutcomeUnknown) ||
				errors.Is(err, pix.ErrPending) || errors.Is(err, pix.ErrRejected) {
				t.Errorf("SendWithKey() error = %v, want ErrContract and ErrOutcomeUnknown only", err)
			}
		})
	}
}
