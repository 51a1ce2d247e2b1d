package control_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"pixretry/psp"
	"pixretry/psp/control"
	"pixretry/psp/efi"
)

// TestOptionsPaymentsServesWhatIsNotControl: with Options.Payments, a payout in Efí's dialect
// reaches the Server through that front end, the control API still answers, and the Server's
// own path is the front end's to answer.
func TestOptionsPaymentsServesWhatIsNotControl(t *testing.T) {
	s := mustServer(t)
	h, err := control.NewHandler(s, control.Options{Payments: efi.NewHandler(s)})
	if err != nil {
		t.Fatal(err)
	}
	do := func(method, path, body string) int {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+token)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set(psp.IdempotencyKeyHeader, "k1")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec.Code
	}
	payout := `{"valor":"1.00","pagador":{"chave":"` + efi.PayerKey + `"},"favorecido":{"chave":"pix@example.com"}}`
	for _, tc := range []struct {
		method, path, body string
		want               int
	}{
		{http.MethodPut, efi.SendPath + "abc", payout, http.StatusCreated},
		{http.MethodGet, control.SettlementsPath, "", http.StatusOK},
		{http.MethodPost, psp.PaymentsPath, validBody, http.StatusNotFound},
	} {
		if got := do(tc.method, tc.path, tc.body); got != tc.want {
			t.Errorf("%s %s = %d, want %d", tc.method, tc.path, got, tc.want)
		}
	}
	if got := len(s.Settlements()); got != 1 {
		t.Errorf("%d settlements, want 1", got)
	}
}
