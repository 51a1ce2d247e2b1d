package pix_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"time"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

// A payment that meets one 503 on the way: the client waits and tries again with the same
// Idempotency-Key, and the PSP settles it once.
func ExampleClient_Send() {
	bank, _ := psp.NewServer(psp.DefaultConfig()) // a PSP simulator, in process
	ts := httptest.NewServer(bank)
	defer ts.Close()
	bank.Inject(psp.Status(503))

	client := &pix.Client{
		BaseURL:        ts.URL,
		Token:          psp.DefaultToken,
		HTTPClient:     ts.Client(),
		Policy:         retry.Policy{AttemptsMax: 4, DelayBase: 10 * time.Millisecond, DelayMax: 80 * time.Millisecond},
		AttemptTimeout: 2 * time.Second,
	}
	r, err := client.Send(context.Background(), pix.Payment{
		AmountCents: 15000, PixKey: "pix@example.com", Description: "aluguel",
	})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(r.Status, r.AmountCents, r.PixKey, "attempts:", r.Attempts, "replayed:", r.Replayed)
	fmt.Println("settlements:", len(bank.Settlements()), "balance:", psp.FormatAmount(bank.Stats().BalanceCents))
	// Output:
	// REALIZADO 15000 pix@example.com attempts: 2 replayed: false
	// settlements: 1 balance: 850.00
}

// The PSP settles but the answer is lost, and the budget allows a single attempt: the outcome
// is unknown. SendWithKey with the same key and payment learns it without paying twice.
func ExampleClient_SendWithKey() {
	bank, _ := psp.NewServer(psp.DefaultConfig())
	ts := httptest.NewServer(bank)
	defer ts.Close()
	bank.Inject(psp.Drop())

	client := &pix.Client{BaseURL: ts.URL, Token: psp.DefaultToken, HTTPClient: ts.Client(),
		Policy: retry.Policy{AttemptsMax: 1}}
	p := pix.Payment{AmountCents: 15000, PixKey: "+5511987654321"}

	_, err := client.Send(context.Background(), p)
	var unknown *pix.OutcomeUnknownError
	if !errors.As(err, &unknown) {
		fmt.Println("unexpected:", err)
		return
	}
	fmt.Println("outcome unknown after", unknown.Attempts, "attempt")

	r, err := client.SendWithKey(context.Background(), unknown.Key, p)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(r.Status, "replayed:", r.Replayed)
	fmt.Println("settlements:", len(bank.Settlements()))
	// Output:
	// outcome unknown after 1 attempt
	// REALIZADO replayed: true
	// settlements: 1
}

// A refusal is a *pix.Error: branch on it with errors.Is, read it with errors.As. It is
// definitive: the PSP holds no settlement.
func ExampleError() {
	bank, _ := psp.NewServer(psp.Config{Tokens: []string{psp.DefaultToken}, BalanceCents: 10000})
	ts := httptest.NewServer(bank)
	defer ts.Close()

	client := &pix.Client{BaseURL: ts.URL, Token: psp.DefaultToken, HTTPClient: ts.Client(),
		Policy: retry.Policy{AttemptsMax: 3}}
	_, err := client.Send(context.Background(), pix.Payment{AmountCents: 15000, PixKey: "12345678901"})

	var perr *pix.Error
	fmt.Println(errors.Is(err, pix.ErrInsufficientFunds), errors.Is(err, pix.ErrOutcomeUnknown))
	if errors.As(err, &perr) {
		fmt.Println(perr.Status, perr.Code)
	}
	// Output:
	// true false
	// 422 insufficient_funds
}
