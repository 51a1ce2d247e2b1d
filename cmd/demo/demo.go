package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"pixretry/internal/roundtrip"
	"pixretry/pix"
	"pixretry/pix/pixotel"
	"pixretry/psp/control"
)

// target is a PSP to run the demo against, and where the demo writes.
type target struct {
	BaseURL      string            // the PSP, such as http://127.0.0.1:8080
	External     bool              // the PSP is not the demo's own: say what the demo leaves behind
	Token        string            // the bearer token for payments
	ControlToken string            // the bearer token for the control API, if the PSP has one
	Seed         uint64            // seeds the jitter draws: the same seed gives the same waits
	Transport    http.RoundTripper // reaches BaseURL
	Out          io.Writer         // the per-attempt log, the results, the summary
}

// controlTimeout bounds each control call, so that a PSP that stops answering fails the demo
// instead of hanging it.
const controlTimeout = 5 * time.Second

// pcgStream is the second half of the jitter source's PCG state. The seed is the first.
const pcgStream = 0x5eed

// result is what one scenario produced.
type result struct {
	Scenario scenario
	Payment  pix.Payment
	Receipt  pix.Receipt
	Err      error
	// Sent is every payment request the client sent, as its transport saw them.
	Sent []roundtrip.Trip
	// BalanceBefore and BalanceAfter are the payer's balance in cents around the payment.
	BalanceBefore, BalanceAfter int64
}

// demo resets t's PSP and walks the scenarios. It checks every expectation against the
// receipts, the requests the client sent, and the PSP's ledger and balance. The summary shows
// the client's own metrics (package pix/pixotel) beside the ledger. It returns an error if the
// PSP cannot be driven, or one naming each expectation that failed.
func demo(ctx context.Context, t *target) error {
	ctl := control.Client{
		BaseURL:    t.BaseURL,
		HTTPClient: &http.Client{Transport: t.Transport, Timeout: controlTimeout},
		Token:      t.ControlToken,
	}
	sent := &roundtrip.Recorder{Next: t.Transport}
	reader := sdkmetric.NewManualReader()
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer provider.Shutdown(context.WithoutCancel(ctx))
	payer, err := newPayer(t, sent, provider)
	if err != nil {
		return err
	}
	if err := ctl.Reset(ctx); err != nil {
		return err
	}
	start, err := ctl.BalanceCents(ctx)
	if err != nil {
		return err
	}
	printStart(t, start)
	results, final := make([]result, len(scenarios)), start
	for i, s := range scenarios {
		fmt.Fprintf(t.Out, "\n== Scenario %d: %s\n", i+1, s.Title)
		if results[i], err = play(ctx, s, final, payer, ctl, sent); err != nil {
			return fmt.Errorf("demo: scenario %d (%s): %w", i+1, s.Title, err)
		}
		printResult(t.Out, results[i])
		final = results[i].BalanceAfter
	}
	ledger, err := ctl.Settlements(ctx)
	if err != nil {
		return err
	}
	metrics, err := collectMetrics(ctx, reader)
	if err != nil {
		return err
	}
	printSummary(t, results, len(ledger), start, final, metrics)
	if err := check(results, ledger, start, final); err != nil {
		return err
	}
	fmt.Fprintf(t.Out, "PSP recorded %d settlements for %d successful payments\n", len(ledger), len(ledger)) // check holds them equal
	return nil
}

// newPayer is the demo's client for t, which sends through sent and records its metrics on
// provider.
func newPayer(t *target, sent http.RoundTripper, provider metric.MeterProvider) (*pix.Client, error) {
	observer, err := pixotel.NewObserver(pixotel.Config{MeterProvider: provider})
	if err != nil {
		return nil, fmt.Errorf("demo: the client's metrics: %w", err)
	}
	return &pix.Client{
		BaseURL:        t.BaseURL,
		Token:          t.Token,
		HTTPClient:     &http.Client{Transport: sent},
		Policy:         policy,
		AttemptTimeout: attemptTimeout,
		Logger:         newLogger(t.Out),
		Jitter:         rand.New(rand.NewPCG(t.Seed, pcgStream)).Float64,
		Observer:       observer,
	}, nil
}

// play runs scenario s from a balance of before. It clears the PSP's fault queue, so nothing left
// over from an earlier scenario can strike, queues s's faults, sends s's payment and records what
// happened. It returns an error only when the PSP cannot be driven or ctx ends. The payment's own
// failure is part of the result.
func play(ctx context.Context, s scenario, before int64, payer *pix.Client, ctl control.Client, sent *roundtrip.Recorder) (result, error) {
	r := result{Scenario: s, Payment: s.Payment, BalanceBefore: before}
	if err := ctl.ClearFaults(ctx); err != nil {
		return r, err
	}
	if err := ctl.Inject(ctx, s.Faults...); err != nil {
		return r, err
	}
	r.Payment.AmountCents = cmp.Or(r.Payment.AmountCents, r.BalanceBefore+1)
	r.Receipt, r.Err = payer.Send(ctx, r.Payment)
	r.Sent = sent.Take()
	if err := ctx.Err(); err != nil {
		return r, err // interrupted: the outcome says nothing about the PSP
	}
	var err error
	r.BalanceAfter, err = ctl.BalanceCents(ctx)
	return r, err
}
