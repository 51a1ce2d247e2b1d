package efi_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"time"

	"pixretry/pix"
	"pixretry/pix/efi"
	"pixretry/psp"
	efidouble "pixretry/psp/efi"
	"pixretry/retry"
)

// ExampleDialect pays R$ 150.00 through Efí's payout API, spoken here by the repository's
// double. Efí accepts the payment (EM_PROCESSAMENTO), so Send ends pending, and Await looks
// the idEnvio up until the payment is REALIZADO.
func ExampleDialect() {
	bank, _ := psp.NewServer(psp.DefaultConfig()) // a PSP simulator, in process
	defer bank.Close()
	ts := httptest.NewServer(efidouble.NewHandler(bank)) // speaking Efí's API
	defer ts.Close()

	client := &pix.Client{
		BaseURL:        ts.URL,
		Dialect:        efi.Dialect{PayerKey: efidouble.PayerKey},
		Token:          psp.DefaultToken,
		HTTPClient:     ts.Client(),
		Policy:         retry.Policy{AttemptsMax: 4, DelayBase: 10 * time.Millisecond, DelayMax: 80 * time.Millisecond},
		AttemptTimeout: 2 * time.Second,
	}
	ctx := context.Background()
	_, err := client.Send(ctx, pix.Payment{AmountCents: 15000, PixKey: "pix@example.com", Description: "aluguel"})
	unknown, ok := errors.AsType[*pix.OutcomeUnknownError](err)
	if !ok || !errors.Is(err, pix.ErrPending) {
		fmt.Println("error:", err)
		return
	}
	fmt.Println("accepted under an idEnvio of", len(unknown.Key), "characters")
	r, err := client.Await(ctx, unknown.Key)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(r.Status, r.AmountCents, r.PixKey, "lookups:", r.Attempts)
	// Output:
	// accepted under an idEnvio of 32 characters
	// REALIZADO 15000 pix@example.com lookups: 1
}

// ExampleDialect_CheckKey: a UUID is no idEnvio until its hyphens go, and pix never removes
// them itself.
func ExampleDialect_CheckKey() {
	fmt.Println(efi.Dialect{}.CheckKey("0b6c1c3e-8f2a-4d7b-9e5f-1a2b3c4d5e6f"))
	fmt.Println(efi.Dialect{}.CheckKey("0b6c1c3e8f2a4d7b9e5f1a2b3c4d5e6f"))
	// Output:
	// efi: idEnvio "0b6c1c3e-8f2a-4d7b-9e5f-1a2b3c4d5e6f" is not 1 to 35 ASCII letters and digits; it would fit without its hyphens, as a UUID does: pix: invalid payment
	// <nil>
}
