package properties_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"pixretry/psp"
)

// The PSP as the linearizability check drives it. This file is the one place that knows psp's
// API and its HTTP contract (docs/psp.md): the config, the faults, a payment request and the
// codes that class an answer.

// linTokens are the bearer tokens: keys are scoped per token, so each is its own set of keys.
var linTokens = []string{"token-a", "token-b"}

// linPixKey is the chave of every payment: payloads under a key differ by valor.
const linPixKey = "pix@example.com"

// The problem codes and the header that class an answer.
const (
	codeKeyInUse          = "idempotency_key_in_use"
	codeKeyReused         = "idempotency_key_reused"
	codeInsufficientFunds = "insufficient_funds"
	replayedHeader        = "Idempotent-Replayed"
)

// newLinearizablePSP returns a PSP with balance cents over linTokens.
func newLinearizablePSP(balance int64) (*psp.Server, error) {
	return psp.NewServer(psp.Config{Tokens: linTokens, BalanceCents: balance})
}

// faultKind is a fault a client queues before its request. The next payment request takes it,
// whichever client sent it.
type faultKind int

// The faults of a history.
const (
	faultNone faultKind = iota
	faultSlow           // psp.Slow: the key stays in flight for the delay, so the same payload meets 409
	faultDrop           // psp.Drop: the request takes effect, and its answer is lost
)

// inject queues f on srv, slow for delay.
func inject(srv *psp.Server, f faultKind, delay time.Duration) {
	switch f {
	case faultSlow:
		srv.Inject(psp.Slow(delay))
	case faultDrop:
		srv.Inject(psp.Drop())
	}
}

// paymentRequest is a POST of the payment of cents under token and key, to the PSP at base.
func paymentRequest(ctx context.Context, base, token, key string, cents int64) (*http.Request, error) {
	body := fmt.Sprintf(`{"valor":%q,"chave":%q}`, psp.FormatAmount(cents), linPixKey)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+psp.PaymentsPath, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Idempotency-Key", key)
	req.Header.Set("Content-Type", "application/json")
	return req, nil
}

// payloadOf is the model's name of the payment of cents: its valor, since chave is fixed.
func payloadOf(cents int64) string { return psp.FormatAmount(cents) }

// classify classes an answer, read in full, the way the contract does.
func classify(resp *http.Response, body []byte) keyOutput {
	answer := fmt.Sprintf("%d %s", resp.StatusCode, body)
	if resp.Header.Get(replayedHeader) == "true" {
		return keyOutput{Kind: answerReplay, Answer: answer}
	}
	var problem struct{ Code string }
	_ = json.Unmarshal(body, &problem) // a 201 has no code; any other body is classed by status
	switch {
	case resp.StatusCode == http.StatusCreated,
		resp.StatusCode == http.StatusUnprocessableEntity && problem.Code == codeInsufficientFunds:
		return keyOutput{Kind: answerFresh, Answer: answer}
	case resp.StatusCode == http.StatusConflict && problem.Code == codeKeyInUse:
		return keyOutput{Kind: answerInUse}
	case resp.StatusCode == http.StatusUnprocessableEntity && problem.Code == codeKeyReused:
		return keyOutput{Kind: answerReused}
	}
	return keyOutput{Kind: answerOther, Answer: answer}
}

// keyOf is the token and key a payment request is sent under.
func keyOf(r *http.Request) keyID {
	token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	return keyID{Token: token, Key: r.Header.Get("Idempotency-Key")}
}

// sendUnder makes r a request under key instead.
func sendUnder(r *http.Request, key string) { r.Header.Set("Idempotency-Key", key) }

// writeInUse answers w as a key in flight does: 409 idempotency_key_in_use.
func writeInUse(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(http.StatusConflict)
	fmt.Fprintf(w, `{"status":409,"code":%q}`, codeKeyInUse)
}
