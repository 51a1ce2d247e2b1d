// Package pspcheck asks a psp.Server a question through its HTTP contract, for the tests that
// hold another rule (pix's local validation) to the double's.
package pspcheck

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"

	"pixretry/psp"
)

// TakesPixKey reports whether the PSP takes key as a chave. It posts a payment of 0.01 to key
// to a fresh psp.Server, in process: a 201 means yes, and a 400 invalid_request whose only
// violation is chave means no. Any other answer is an error.
func TakesPixKey(key string) (bool, error) {
	srv, err := psp.NewServer(psp.DefaultConfig())
	if err != nil {
		return false, fmt.Errorf("pspcheck: %w", err)
	}
	body, _ := json.Marshal(map[string]string{"valor": "0.01", "chave": key}) // strings always encode
	req := httptest.NewRequest(http.MethodPost, psp.PaymentsPath, strings.NewReader(string(body)))
	req.Header.Set("Authorization", "Bearer "+psp.DefaultToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(psp.IdempotencyKeyHeader, "pix-key-check")
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	var problem struct {
		Code       string `json:"code"`
		Violations []struct {
			Field string `json:"campo"`
		} `json:"violacoes"`
	}
	json.Unmarshal(rec.Body.Bytes(), &problem) // a body that is no problem fails the test below
	fields := make([]string, len(problem.Violations))
	for i, v := range problem.Violations {
		fields[i] = v.Field
	}
	switch {
	case rec.Code == http.StatusCreated:
		return true, nil
	case rec.Code == http.StatusBadRequest && problem.Code == "invalid_request" &&
		slices.Equal(fields, []string{"chave"}):
		return false, nil
	}
	return false, fmt.Errorf("pspcheck: payment to chave %q: the PSP answered %d %s, want 201, or 400 %s naming chave alone",
		key, rec.Code, rec.Body, "invalid_request")
}
