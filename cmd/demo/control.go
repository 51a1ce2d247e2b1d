package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// control drives a PSP through its HTTP control surface (/_psp/...), the one cmd/psp serves:
// the demo talks to an in-process PSP and to an external one the same way. It is safe for
// concurrent use as far as its http.Client is.
type control struct {
	baseURL string
	token   string
	client  *http.Client
}

// controlTimeout bounds each control call, so that a PSP that stops answering fails the demo
// instead of hanging it.
const controlTimeout = 5 * time.Second

// fault is one fault of the control surface's wire form, e.g. {"kind":"status","status":503}.
type fault struct {
	Kind       string `json:"kind"`
	Status     int    `json:"status,omitempty"`
	DelayMS    int64  `json:"delay_ms,omitempty"`
	DurationMS int64  `json:"duration_ms,omitempty"`
}

// settlement is one entry of the PSP's ledger as GET /_psp/settlements reports it.
type settlement struct {
	EndToEndID     string `json:"endToEndId"`
	IdempotencyKey string `json:"idempotencyKey"`
	Valor          string `json:"valor"`
	Chave          string `json:"chave"`
	Horario        string `json:"horario"`
}

// reset brings the PSP's keys, ledger, balance and fault queue back to the start.
func (c control) reset(ctx context.Context) error {
	return c.call(ctx, http.MethodPost, "/_psp/reset", nil, http.StatusNoContent, nil)
}

// inject queues faults, in order: each payment request consumes the next one.
func (c control) inject(ctx context.Context, faults ...fault) error {
	body, err := json.Marshal(struct {
		Faults []fault `json:"faults"`
	}{faults})
	if err != nil {
		return fmt.Errorf("demo: encoding faults: %w", err)
	}
	return c.call(ctx, http.MethodPost, "/_psp/faults", body, http.StatusNoContent, nil)
}

// clearFaults empties the fault queue.
func (c control) clearFaults(ctx context.Context) error {
	return c.call(ctx, http.MethodDelete, "/_psp/faults", nil, http.StatusNoContent, nil)
}

// settlements returns the PSP's ledger. It fails if the reported count disagrees with the
// list.
func (c control) settlements(ctx context.Context) ([]settlement, error) {
	var got struct {
		Count       int          `json:"count"`
		Settlements []settlement `json:"settlements"`
	}
	if err := c.call(ctx, http.MethodGet, "/_psp/settlements", nil, http.StatusOK, &got); err != nil {
		return nil, err
	}
	if got.Count != len(got.Settlements) {
		return nil, fmt.Errorf("demo: GET /_psp/settlements: count %d, but %d settlements listed",
			got.Count, len(got.Settlements))
	}
	return got.Settlements, nil
}

// balanceCents returns the payer's current balance in cents.
func (c control) balanceCents(ctx context.Context) (int64, error) {
	var got struct {
		Balance string `json:"balance"`
	}
	if err := c.call(ctx, http.MethodGet, "/_psp/balance", nil, http.StatusOK, &got); err != nil {
		return 0, err
	}
	cents, err := parseCents(got.Balance)
	if err != nil {
		return 0, fmt.Errorf("demo: GET /_psp/balance: %w", err)
	}
	return cents, nil
}
