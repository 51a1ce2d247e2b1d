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

// A lookup finds the settlement made under a key. A key that paid nothing gets a proof instead,
// and the PSP closes it: a payment under it is refused from then on.
func ExampleClient_Lookup() {
	bank, _ := psp.NewServer(psp.DefaultConfig())
	ts := httptest.NewServer(bank)
	defer ts.Close()
	client := &pix.Client{BaseURL: ts.URL, Token: psp.DefaultToken, HTTPClient: ts.Client(),
		Policy: retry.Policy{AttemptsMax: 3}}
	p := pix.Payment{AmountCents: 15000, PixKey: "+5511987654321"}
	if _, err := client.SendWithKey(context.Background(), "order-42", p); err != nil {
		fmt.Println("error:", err)
		return
	}

	r, err := client.Lookup(context.Background(), "order-42")
	fmt.Println(r.Status, r.AmountCents, r.PixKey, "error:", err)

	_, err = client.Lookup(context.Background(), "order-43")
	fmt.Println("no settlement:", errors.Is(err, pix.ErrNoSettlement), "unknown:", errors.Is(err, pix.ErrOutcomeUnknown))
	_, err = client.SendWithKey(context.Background(), "order-43", p)
	var perr *pix.Error
	if errors.As(err, &perr) {
		fmt.Println(perr.Status, perr.Code)
	}
	// Output:
	// REALIZADO 15000 +5511987654321 error: <nil>
	// no settlement: true unknown: false
	// 422 idempotency_key_closed
}

// The PSP settles and the answer is lost. The payer learns the outcome days later, when the
// PSP may have forgotten the key: Resume looks the key up instead of resending, and finds the
// settlement. A key that paid nothing gets ErrNoSettlement, and the payment is made again
// under a new key.
func ExampleClient_Resume() {
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
	unknown.FirstSent = unknown.FirstSent.Add(-72 * time.Hour) // as if the payer were down over a weekend

	r, err := client.Resume(context.Background(), unknown, p)
	fmt.Println(r.Status, "replayed:", r.Replayed, "error:", err)
	fmt.Println("payment requests:", bank.Stats().Requests, "lookups:", bank.Stats().Lookups)

	q := pix.Payment{AmountCents: 9900, PixKey: "pix@example.com"}
	never := &pix.OutcomeUnknownError{Key: "order-43"} // stored for q, and never left
	_, err = client.Resume(context.Background(), never, q)
	if errors.Is(err, pix.ErrNoSettlement) {
		r, err = client.Send(context.Background(), q) // a new key
	}
	fmt.Println(r.Status, r.AmountCents, "replayed:", r.Replayed, "error:", err)
	fmt.Println("settlements:", len(bank.Settlements()))
	// Output:
	// REALIZADO replayed: true error: <nil>
	// payment requests: 1 lookups: 1
	// REALIZADO 9900 replayed: false error: <nil>
	// settlements: 2
}
