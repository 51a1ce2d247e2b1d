package pix_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/sony/gobreaker/v2"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

// A PSP that answers 503 opens the breaker after three failures in a row. The retry that
// follows is not sent, and the next payment fails at once without reaching the PSP. Only that
// one is known to be unpaid: the others met 503s, which may hide a settlement.
func ExampleClient_breaker() {
	bank, _ := psp.NewServer(psp.DefaultConfig())
	bank.Inject(psp.Status(503), psp.Status(503), psp.Status(503))
	var requests atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		bank.ServeHTTP(w, r)
	}))
	defer ts.Close()

	breaker := gobreaker.NewTwoStepCircuitBreaker[pix.Receipt](gobreaker.Settings{
		Name:        "psp",
		MaxRequests: 1,                // one probe when half-open
		Timeout:     10 * time.Second, // open for 10 s, then half-open
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= 3 },
		IsExcluded:  func(err error) bool { return errors.Is(err, context.Canceled) },
	})
	client := &pix.Client{BaseURL: ts.URL, Token: psp.DefaultToken, HTTPClient: ts.Client(),
		Policy: retry.Policy{AttemptsMax: 2}, Breaker: breaker}

	for i := 1; i <= 3; i++ {
		_, err := client.Send(context.Background(), pix.Payment{AmountCents: 15000, PixKey: "pix@example.com"})
		fmt.Printf("payment %d: circuit open %t, outcome unknown %t\n", i,
			errors.Is(err, pix.ErrCircuitOpen), errors.Is(err, pix.ErrOutcomeUnknown))
	}
	fmt.Println("breaker:", breaker.State(), "requests:", requests.Load())
	// Output:
	// payment 1: circuit open false, outcome unknown true
	// payment 2: circuit open true, outcome unknown true
	// payment 3: circuit open true, outcome unknown false
	// breaker: open requests: 3
}
