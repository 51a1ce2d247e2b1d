package psp

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// ControlClient drives a Server's control API over HTTP, as cmd/psp serves it. Its methods do
// what the Server's methods of the same names do. Each returns an error if the request fails or
// the answer is not the one the control API documents. It is safe for concurrent use.
type ControlClient struct {
	// BaseURL is the PSP's, such as http://127.0.0.1:8080.
	BaseURL string
	// HTTPClient sends the requests. Nil means http.DefaultClient.
	HTTPClient *http.Client
	// Token, if not empty, is sent with every request as "Authorization: Bearer <Token>": the
	// PSP's control token (Config.ControlToken, cmd/psp's -control-token).
	Token string
}

// Inject queues faults. With no faults it queues nothing. An invalid fault is an error wrapping ErrInvalidFault, and none is
// queued then.
func (c ControlClient) Inject(ctx context.Context, faults ...Fault) error {
	body, err := json.Marshal(struct {
		Faults []Fault `json:"faults"`
	}{append([]Fault{}, faults...)}) // [] rather than null for no faults
	if err != nil {
		return fmt.Errorf("psp: POST %s: %w", controlFaultsPath, err)
	}
	return c.call(ctx, http.MethodPost, controlFaultsPath, body, http.StatusNoContent, nil)
}

// ClearFaults empties the fault queue and ends any down window.
func (c ControlClient) ClearFaults(ctx context.Context) error {
	return c.call(ctx, http.MethodDelete, controlFaultsPath, nil, http.StatusNoContent, nil)
}

// Reset brings the keys, the ledger, the fault queue and the balance back to the start.
func (c ControlClient) Reset(ctx context.Context) error {
	return c.call(ctx, http.MethodPost, controlResetPath, nil, http.StatusNoContent, nil)
}

// BalanceCents returns the payer's balance, in cents.
func (c ControlClient) BalanceCents(ctx context.Context) (int64, error) {
	var body balanceBody
	if err := c.call(ctx, http.MethodGet, controlBalancePath, nil, http.StatusOK, &body); err != nil {
		return 0, err
	}
	cents, err := ParseBalance(body.Balance)
	if err != nil {
		return 0, fmt.Errorf("psp: GET %s: %w", controlBalancePath, err)
	}
	return cents, nil
}

// Settlements returns the ledger, in settlement order. Token and Description are empty, because
// the control API does not carry them.
func (c ControlClient) Settlements(ctx context.Context) ([]Settlement, error) {
	var body settlementsBody
	if err := c.call(ctx, http.MethodGet, controlSettlementsPath, nil, http.StatusOK, &body); err != nil {
		return nil, err
	}
	ledger := make([]Settlement, len(body.Settlements))
	for i, w := range body.Settlements {
		s, err := w.settlement()
		if err != nil {
			return nil, fmt.Errorf("psp: GET %s: settlement %d: %w", controlSettlementsPath, i, err)
		}
		ledger[i] = s
	}
	return ledger, nil
}

// settlement reads w back into the Settlement it was written from, less Token and Description.
func (w settlementJSON) settlement() (Settlement, error) {
	cents, err := ParseBalance(w.Valor)
	if err != nil {
		return Settlement{}, err
	}
	at, err := time.Parse(time.RFC3339Nano, w.Horario)
	return Settlement{
		IdempotencyKey: w.IdempotencyKey,
		EndToEndID:     w.EndToEndID,
		AmountCents:    cents,
		PixKey:         w.Chave,
		SettledAt:      at.UTC(),
	}, err
}

// call sends body (nil: none) with the Token, if any. A request that changes state (any method
// but GET) says Content-Type application/json, as the control API requires. The answer must
// have status want. Its JSON body is decoded into out, when out is not nil.
func (c ControlClient) call(ctx context.Context, method, path string, body []byte, want int, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("psp: %s %s: %w", method, path, err)
	}
	if method != http.MethodGet {
		req.Header.Set("Content-Type", jsonContentType)
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	resp, err := cmp.Or(c.HTTPClient, http.DefaultClient).Do(req)
	if err != nil {
		return fmt.Errorf("psp: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		answer, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("psp: %s %s: status %d, want %d: %s",
			method, path, resp.StatusCode, want, bytes.TrimSpace(answer))
	}
	if out == nil {
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("psp: %s %s: decoding the answer: %w", method, path, err)
	}
	return nil
}
