package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"

	"pixretry/pix"
)

// target is a PSP to run the demo against, and where the demo writes.
type target struct {
	BaseURL string       // the PSP, e.g. http://127.0.0.1:8080
	Token   string       // bearer token for payments and control calls
	Client  *http.Client // reaches BaseURL; the demo wraps its transport to record payments
	Seed    uint64       // seeds the jitter draws: the same seed gives the same waits
	Out     io.Writer    // the per-attempt log, the summary and the closing line
	// External says the PSP is not the demo's own, so the demo says what it leaves behind.
	External bool
}

// pcgStream is the second half of the jitter source's PCG state; the seed is the first.
const pcgStream = 0x5eed

// demo walks the five scenarios against t's PSP and checks every expectation against the
// receipts, the payment requests the client sent, and the PSP's ledger and balance. It
// returns an error if the PSP cannot be driven, or one naming each expectation that failed
// (see expectationError). It resets the PSP first.
func demo(ctx context.Context, t target) error {
	client, sent := recording(t.Client)
	ctl := control{baseURL: t.BaseURL, token: t.Token, client: client}
	payer := &pix.Client{
		BaseURL:        t.BaseURL,
		Token:          t.Token,
		HTTPClient:     client,
		Policy:         policy,
		AttemptTimeout: attemptTimeout,
		Logger:         newLogger(t.Out),
		Jitter:         rand.New(rand.NewPCG(t.Seed, pcgStream)).Float64,
	}
	start, err := resetPSP(ctx, ctl, t)
	if err != nil {
		return err
	}
	results := make([]result, 0, len(scenarios))
	for i, s := range scenarios {
		fmt.Fprintf(t.Out, "\n== Scenario %d: %s\n", i+1, s.Title)
		r, err := play(ctx, s, payer, ctl, sent)
		if err != nil {
			return fmt.Errorf("demo: scenario %d (%s): %w", i+1, s.Title, err)
		}
		printResult(t.Out, r)
		results = append(results, r)
	}
	return conclude(ctx, ctl, t, start, results)
}

// resetPSP brings the PSP back to the start, says so, and returns its starting balance.
func resetPSP(ctx context.Context, ctl control, t target) (int64, error) {
	if err := ctl.reset(ctx); err != nil {
		return 0, err
	}
	start, err := ctl.balanceCents(ctx)
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(t.Out, "pix retry demo against %s (seed %d)\n", describe(t), t.Seed)
	fmt.Fprintf(t.Out, "policy: %d attempts, waits in [0, %v·2^(n-1)] capped at %v, %v per attempt (worst case %v)\n",
		policy.AttemptsMax, policy.DelayBase, policy.DelayMax, attemptTimeout, worstCaseBudget(policy, attemptTimeout))
	fmt.Fprintf(t.Out, "PSP reset (a re-run starts clean): keys, ledger, faults and balance back to the start; balance %s\n", formatCents(start))
	return start, nil
}

// describe names the PSP the demo runs against.
func describe(t target) string {
	if t.External {
		return "the PSP at " + t.BaseURL
	}
	return "an in-process PSP"
}
