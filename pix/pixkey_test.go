package pix_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"pixretry/pix"
	"pixretry/psp"
)

// TestPixKeyRulesMatchThePSP: the client's local check of a Pix key agrees with the PSP's on
// arbitrary strings, so that the client never refuses a key the PSP takes, nor sends one it
// refuses. The strings are drawn near each key format, and at random. The PSP is asked through
// its contract, by pspTakesPixKey.
func TestPixKeyRulesMatchThePSP(t *testing.T) {
	f := newFixture(t, psp.Config{BalanceCents: richBalance})
	c := f.client(quiet)
	keys := rapid.OneOf(
		rapid.StringMatching(`[0-9]{9,16}`),
		rapid.StringMatching(`\+[0-9]{0,17}`),
		rapid.StringMatching(`[a-zA-Z0-9._%+!#-]{0,40}@[a-zA-Z0-9.-]{0,40}`),
		rapid.StringMatching(`[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-G]{11,13}`),
		rapid.String(),
	)
	verdicts := map[bool]int{}
	rapid.Check(t, func(t *rapid.T) {
		key := keys.Draw(t, "key")
		before := len(f.rec.requests())
		c.Send(t.Context(), pix.Payment{AmountCents: 1, PixKey: key})
		sent := len(f.rec.requests()) > before
		if takes := pspTakesPixKey(t, key); sent != takes {
			t.Fatalf("key %q: client sent it = %t, the PSP takes it = %t", key, sent, takes)
		}
		verdicts[sent]++
	})
	if verdicts[true] == 0 || verdicts[false] == 0 {
		t.Errorf("keys sent/refused = %d/%d: the generators must reach both sides", verdicts[true], verdicts[false])
	}
}

// pspTakesPixKey reports whether the PSP takes key as a chave. It posts a payment of 0.01 to key
// to a fresh psp.Server, in process. A 201 means yes, and a 400 invalid_request whose only
// violation is chave means no. Any other answer fails the test.
func pspTakesPixKey(t *rapid.T, key string) bool {
	srv, err := psp.NewServer(psp.DefaultConfig())
	if err != nil {
		t.Fatalf("psp.NewServer() error = %v", err)
	}
	body, _ := json.Marshal(map[string]string{"valor": "0.01", "chave": key})
	req := httptest.NewRequest(http.MethodPost, psp.PaymentsPath, strings.NewReader(string(body)))
	req.Header.Set("Authorization", "Bearer "+psp.DefaultToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", "pix-key-check")
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	var problem struct {
		Code       string `json:"code"`
		Violations []struct {
			Field string `json:"campo"`
		} `json:"violacoes"`
	}
	json.Unmarshal(rec.Body.Bytes(), &problem)
	fields := make([]string, len(problem.Violations))
	for i, v := range problem.Violations {
		fields[i] = v.Field
	}
	refused := problem.Code == psp.CodeInvalidRequest && slices.Equal(fields, []string{"chave"})
	switch {
	case rec.Code == http.StatusCreated:
		return true
	case rec.Code == http.StatusBadRequest && refused:
		return false
	}
	t.Fatalf("payment to chave %q: PSP answered %d %s, want 201, or 400 %s naming chave alone",
		key, rec.Code, rec.Body, psp.CodeInvalidRequest)
	return false
}
