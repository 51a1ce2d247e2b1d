package pix_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/internal/pipenet"
	"pixretry/pix"
)

// validSettled is a 201 body that answers payment as the contract says.
func validSettled() map[string]any {
	return map[string]any{
		"endToEndId":  "E12345678202501021504abcDEF12345",
		"valor":       "150.00",
		"chave":       "pix@example.com",
		"infoPagador": "aluguel",
		"status":      "REALIZADO",
		"horario":     "2025-01-02T15:04:05Z",
	}
}

func writeSettled(w http.ResponseWriter, body map[string]any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(body)
}

// with returns validSettled with member set to v; a nil v removes the member.
func with(member string, v any) map[string]any {
	b := validSettled()
	b[member] = v
	if v == nil {
		delete(b, member)
	}
	return b
}

// padded is validSettled encoded with spaces before its closing brace, n bytes long.
func padded(n int) string {
	b, _ := json.Marshal(validSettled())
	return string(b[:len(b)-1]) + strings.Repeat(" ", n-len(b)) + "}"
}

func encoded(b map[string]any) string {
	data, _ := json.Marshal(b)
	return string(data)
}

// A hand-written PSP that answers 201 with a given body: the real psp never breaks the
// contract, so the client's checks are proved against this one.
func serve201(t *testing.T, body string) (*pipenet.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := pipenet.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestWellFormed201IsAccepted(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
	}{
		{"as the contract says", encoded(validSettled())},
		{"with a member the client does not know", encoded(with("taxa", "0.00"))},
		{"without infoPagador", encoded(with("infoPagador", nil))},
		{"with a fractional, offset horario", encoded(with("horario", "2025-01-02T12:04:05.123-03:00"))},
		{"exactly 64 KiB", padded(64 << 10)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := serve201(t, tc.body)
			got, err := clientOf(srv).SendWithKey(t.Context(), "k", payment)
			if err != nil {
				t.Fatalf("Send() error = %v", err)
			}
			want := pix.Receipt{
				EndToEndID: "E12345678202501021504abcDEF12345", AmountCents: 15000, PixKey: "pix@example.com",
				Status: "REALIZADO", SettledAt: time.Date(2025, 1, 2, 15, 4, 5, 0, time.UTC),
				IdempotencyKey: "k", Attempts: 1,
			}
			if strings.Contains(tc.body, ".123") {
				want.SettledAt = want.SettledAt.Add(123 * time.Millisecond)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Send() receipt mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestContractViolationIsNeverAccepted(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
	}{
		{"body over 64 KiB", padded(64<<10 + 1)},
		{"body not JSON", "<html>created</html>"},
		{"body truncated", encoded(validSettled())[:40]},
		{"body a JSON array", `[]`},
		{"body empty", ``},
		{"body null", `null`},
		{"endToEndId missing", encoded(with("endToEndId", nil))},
		{"endToEndId 31 characters", encoded(with("endToEndId", "E12345678202501021504abcDEF1234"))},
		{"endToEndId 33 characters", encoded(with("endToEndId", "E12345678202501021504abcDEF123456"))},
		{"endToEndId not starting with E", encoded(with("endToEndId", "D12345678202501021504abcDEF12345"))},
		{"endToEndId starting with e", encoded(with("endToEndId", "e12345678202501021504abcDEF12345"))},
		{"endToEndId ISPB with a letter", encoded(with("endToEndId", "E1234567X202501021504abcDEF12345"))},
		{"endToEndId time with a letter", encoded(with("endToEndId", "E1234567820250102150Xabcdef12345"))},
		{"endToEndId month 13", encoded(with("endToEndId", "E12345678202513021504abcDEF12345"))},
		{"endToEndId 30 February", encoded(with("endToEndId", "E12345678202502301504abcDEF12345"))},
		{"endToEndId hour 24", encoded(with("endToEndId", "E12345678202501022404abcDEF12345"))},
		{"endToEndId tail with a dash", encoded(with("endToEndId", "E12345678202501021504abcDEF-2345"))},
		{"endToEndId a number", encoded(with("endToEndId", 1))},
		{"valor missing", encoded(with("valor", nil))},
		{"valor another amount", encoded(with("valor", "150.01"))},
		{"valor one decimal", encoded(with("valor", "150.0"))},
		{"valor a number", encoded(with("valor", 150.00))},
		{"chave missing", encoded(with("chave", nil))},
		{"chave another key", encoded(with("chave", "other@example.com"))},
		{"status missing", encoded(with("status", nil))},
		{"status in progress", encoded(with("status", "EM_PROCESSAMENTO"))},
		{"status lower case", encoded(with("status", "realizado"))},
		{"horario missing", encoded(with("horario", nil))},
		{"horario not a time", encoded(with("horario", "yesterday"))},
		{"horario without a zone", encoded(with("horario", "2025-01-02T15:04:05"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, calls := serve201(t, tc.body)

			_, err := clientOf(srv).SendWithKey(t.Context(), "k", payment)

			if !errors.Is(err, pix.ErrContract) {
				t.Fatalf("Send() error = %v, want ErrContract", err)
			}
			// A 201 says the PSP settled: a broken body cannot say it did not.
			var unknown *pix.OutcomeUnknownError
			if !errors.As(err, &unknown) || unknown.Key != "k" || unknown.Attempts != 1 {
				t.Errorf("Send() error = %#v, want an *OutcomeUnknownError for key k after 1 attempt", err)
			}
			if got := calls.Load(); got != 1 {
				t.Errorf("PSP got %d requests, want 1 (a contract violation is permanent)", got)
			}
		})
	}
}

func TestSuccessOtherThan201IsAnError(t *testing.T) {
	for _, status := range []int{http.StatusOK, http.StatusAccepted, http.StatusNoContent} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			srv := pipenet.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(status)
			}))
			defer srv.Close()

			_, err := clientOf(srv).SendWithKey(t.Context(), "k", payment)

			var perr *pix.Error
			if !errors.As(err, &perr) || perr.Status != status {
				t.Fatalf("Send() error = %v, want a *pix.Error with status %d", err, status)
			}
			if !errors.Is(err, pix.ErrOutcomeUnknown) || !errors.Is(err, pix.ErrContract) {
				t.Errorf("Send() error = %v, want ErrOutcomeUnknown (a 2xx may mean settled) and ErrContract", err)
			}
		})
	}
}
