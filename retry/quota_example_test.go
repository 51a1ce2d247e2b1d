package retry_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"pixretry/retry"
)

func ExampleQuota() {
	// The PSP is down. Every payment gets up to 4 attempts, but one quota,
	// shared by all of them, grants 2 retries at once and then one retry for
	// every 10 payments.
	q, err := retry.NewQuota(0.1, 2)
	if err != nil {
		panic(err)
	}
	p := retry.Policy{AttemptsMax: 4}
	requests := 0
	down := func(context.Context) (string, error) {
		requests++
		return "", &pspError{503}
	}
	// With a deadline, a wait gone wrong ends the call at once instead of hanging it.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for range 12 {
		_, err = retry.Do(ctx, p, down, retry.WithQuota(q))
	}
	fmt.Println(requests, "requests for 12 payments")
	fmt.Println(errors.Is(err, retry.ErrQuotaExhausted), err)
	// Output:
	// 15 requests for 12 payments
	// true retry: quota exhausted after attempt 1: psp: status 503
}
