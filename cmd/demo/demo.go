package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"pixretry/pix"
	"pixretry/pix/pixotel"
	"pixretry/psp/control"
)

// target is a PSP to run the demo against, and where the demo writes.
type target struct {
	BaseURL      string            // the PSP, such as http://127.0.0.1:8080
	External     bool              // the PSP is not the demo's own: say what the demo leaves behind
	Dialect      *dialect          // the payments API the PSP speaks, and the client with it
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
	Want     expectation // what the scenario must produce in the demo's dialect
	Payment  pix.Payment
	Receipt  pix.Receipt
	Err      error
	// Pending is Send's error when Send ended with pix.ErrPending, and nil otherwise. The demo
	// then awaited the payment, and Receipt and Err are the wait's.
	Pending *pix.OutcomeUnknownError
	// Sent is every payment request the client sent, and Looked every lookup, as its transport
	// saw them.
	Sent, Looked []trip
	// Received counts the requests the PSP received, as its Stats count them.
	Received received
	// BalanceBefore and BalanceAfter are the payer's balance in cents around the payment.
	BalanceBefore, BalanceAfter int64
}

// received counts the requests of a payment that the PSP received.
type received struct {
	Payments int64 // payment requests, whatever their answer
	Lookups  int64 // lookups, whatever their answer
}

// demo resets t's PSP and walks the scenarios. It checks every expectation against the
// receipts, the requests the client sent, the PSP's count of the requests it received, and
// the PSP's ledger and balance. The summary shows the client's own metrics (package
// pix/pixotel) beside the ledger. Against an external PSP it first checks that the PSP speaks
// t.Dialect (see checkDialect). It returns an error if the PSP cannot be driven, or one naming
// each expectation that failed.
func demo(ctx context.Context, t *target) error {
	hc := &http.Client{Transport: t.Transport, Timeout: controlTimeout}
	ctl := control.Client{BaseURL: t.BaseURL, HTTPClient: hc, Token: t.ControlToken}
	if t.External {
		if err := checkDialect(ctx, t, hc); err != nil {
			return err
		}
	}
	reader := sdkmetric.NewManualReader()
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer provider.Shutdown(context.WithoutCancel(ctx))
	s, err := newSession(ctx, t, hc, ctl, provider)
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
	for i, sc := range scenarios {
		fmt.Fprintf(t.Out, "\n== Scenario %d: %s\n", i+1, sc.Title)
		if results[i], err = s.play(ctx, sc, t.Dialect.Want[i], final); err != nil {
			return fmt.Errorf("demo: scenario %d (%s): %w", i+1, sc.Title, err)
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
	if err := check(t.Dialect, results, ledger, start, final); err != nil {
		return err
	}
	fmt.Fprintf(t.Out, "PSP recorded %d settlements for %d successful payments\n", len(ledger), len(ledger)) // check holds them equal
	return nil
}

// session is what plays the scenarios: the client, with the step that readies each payment
// in its dialect, the recorder of its requests, and the PSP's control API.
type session struct {
	payer *pix.Client
	ready readyFunc // nil for none
	sent  *recorder
	ctl   control.Client
}

// newSession returns the session of the demo against t: its client speaks t.Dialect through a
// recorder of its requests, and records its metrics on provider. hc reaches the PSP, for what
// the dialect asks of it before the first payment, and ctl is its control API.
func newSession(ctx context.Context, t *target, hc *http.Client, ctl control.Client, provider metric.MeterProvider) (*session, error) {
	observer, err := pixotel.NewObserver(pixotel.Config{MeterProvider: provider})
	if err != nil {
		return nil, fmt.Errorf("demo: the client's metrics: %w", err)
	}
	d, ready, err := t.Dialect.Speak(ctx, t, hc)
	if err != nil {
		return nil, err
	}
	sent := &recorder{Next: t.Transport, Sort: t.Dialect.Sort}
	payer := &pix.Client{
		BaseURL:        t.BaseURL,
		Dialect:        d,
		Token:          t.Token,
		HTTPClient:     &http.Client{Transport: sent},
		Policy:         policy,
		AttemptTimeout: attemptTimeout,
		Logger:         newLogger(t.Out, t.Dialect.Short),
		Jitter:         rand.New(rand.NewPCG(t.Seed, pcgStream)).Float64,
		Observer:       observer,
	}
	return &session{payer: payer, ready: ready, sent: sent, ctl: ctl}, nil
}

// play runs scenario sc, which must come out as want, from a balance of before. It clears the
// PSP's fault queue, so nothing left over from an earlier scenario can strike, queues sc's
// faults, readies and sends sc's payment, awaits it if it ended pending, and records what
// happened. It returns an error only when the PSP cannot be driven or ctx ends. The payment's
// own failure is part of the result.
func (s *session) play(ctx context.Context, sc scenario, want expectation, before int64) (result, error) {
	r := result{Scenario: sc, Want: want, Payment: sc.Payment, BalanceBefore: before}
	if err := s.ctl.ClearFaults(ctx); err != nil {
		return r, err
	}
	if err := s.ctl.Inject(ctx, sc.Faults...); err != nil {
		return r, err
	}
	counted, err := s.ctl.Stats(ctx)
	if err != nil {
		return r, err
	}
	r.Payment.AmountCents = cmp.Or(r.Payment.AmountCents, r.BalanceBefore+1)
	if s.ready != nil {
		if r.Payment, err = s.ready(ctx, s.payer, r.Payment); err != nil {
			return r, err
		}
	}
	s.pay(ctx, &r)
	if err := ctx.Err(); err != nil {
		return r, err // interrupted: the outcome says nothing about the PSP
	}
	if r.BalanceAfter, err = s.ctl.BalanceCents(ctx); err != nil {
		return r, err
	}
	now, err := s.ctl.Stats(ctx)
	r.Received = received{Payments: now.Requests - counted.Requests, Lookups: now.Lookups - counted.Lookups}
	return r, err
}

// awaitFor bounds the wait for a pending payment: as long as Send may take.
var awaitFor = worstCaseBudget(policy, attemptTimeout)

// pay sends r's payment and, if Send ends with pix.ErrPending, awaits it for at most awaitFor.
// It records the outcome and the requests in r.
func (s *session) pay(ctx context.Context, r *result) {
	r.Receipt, r.Err = s.payer.Send(ctx, r.Payment)
	if unknown, ok := errors.AsType[*pix.OutcomeUnknownError](r.Err); ok && errors.Is(r.Err, pix.ErrPending) {
		r.Pending = unknown
		wait, cancel := context.WithTimeout(ctx, awaitFor)
		r.Receipt, r.Err = s.payer.AwaitRef(wait, unknown.Key, unknown.Ref)
		cancel()
	}
	r.Sent, r.Looked = s.sent.take()
}
