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

// A PSP may accept a payment and end it later. Send's error then matches ErrPending, an
// unknown outcome, and Await looks the key up until the payment settles or is rejected.
func ExampleClient_Await() {
	bank, _ := psp.NewServer(psp.DefaultConfig())
	defer bank.Close()
	ts := httptest.NewServer(bank)
	defer ts.Close()
	client := &pix.Client{BaseURL: ts.URL, Token: psp.DefaultToken, HTTPClient: ts.Client(),
		Policy: retry.Policy{AttemptsMax: 3, DelayBase: 50 * time.Millisecond, DelayMax: time.Second}}
	p := pix.Payment{AmountCents: 15000, PixKey: "+5511987654321"}

	for _, then := range []string{"settled", "rejected"} {
		bank.Inject(psp.Pending(0, then)) // accepted (202), and ended by the time anyone looks
		_, err := client.Send(context.Background(), p)
		var unknown *pix.OutcomeUnknownError
		if !errors.As(err, &unknown) || !errors.Is(err, pix.ErrPending) {
			fmt.Println("error:", err)
			return
		}
		fmt.Println("pending:", errors.Is(err, pix.ErrOutcomeUnknown))

		ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // how long to wait
		r, err := client.Await(ctx, unknown.Key)
		cancel()
		switch {
		case err == nil:
			fmt.Println(r.Status, r.AmountCents)
		case errors.Is(err, pix.ErrRejected):
			fmt.Println("rejected: nothing was paid, and a new key pays anew")
		default:
			fmt.Println("still pending, or unknown:", err) // keep unknown.Key: Await again later
		}
	}
	// Output:
	// pending: true
	// REALIZADO 15000
	// pending: true
	// rejected: nothing was paid, and a new key pays anew
}
