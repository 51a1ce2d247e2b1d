package durableotel

import (
	"context"
	"errors"
	"fmt"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/riverqueue/rivercontrib/otelriver"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// scope names the meter of this package's instruments.
const scope = "pixretry/durable/durableotel"

// Config says where the metrics and spans go. Its zero value uses the global providers.
type Config struct {
	MeterProvider  metric.MeterProvider // nil: otel.GetMeterProvider()
	TracerProvider trace.TracerProvider // nil: otel.GetTracerProvider()
}

// meter is this package's meter of c's MeterProvider.
func (c Config) meter() metric.Meter {
	mp := c.MeterProvider
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	return mp.Meter(scope)
}

// Middleware returns the River middleware to put in durable.Config.Middleware: otelriver's,
// which reports River's own job metrics and spans, then one that counts the job attempts by
// outcome (durable.job.attempts) and the snoozes (durable.job.snoozes). The package doc lists
// the instruments. It fails only if the MeterProvider refuses an instrument. Every job attempt
// of the River client is counted: in a Payer's, those are its payments'.
func Middleware(cfg Config) ([]rivertype.Middleware, error) {
	counts, err := newJobCounts(cfg.meter())
	if err != nil {
		return nil, err
	}
	jobs := otelriver.NewMiddleware(&otelriver.MiddlewareConfig{
		MeterProvider: cfg.MeterProvider, TracerProvider: cfg.TracerProvider})
	return []rivertype.Middleware{jobs, counts}, nil
}

// outcome is how a job attempt ended: the value of durable.job.outcome.
type outcome string

const (
	settled outcome = "settled" // the attempt returned nil: its intent is settled
	refused outcome = "refused" // River cancelled the job: the PSP refused the payment
	snoozed outcome = "snoozed" // River snoozed the job: the outcome is unknown
	failed  outcome = "failed"  // another error, or a panic: River retries the job
)

// outcomeOf sorts the error of a job attempt of a durable.Payer.
func outcomeOf(err error) outcome {
	var snooze *river.JobSnoozeError
	var cancel *river.JobCancelError
	switch {
	case err == nil:
		return settled
	case errors.As(err, &snooze):
		return snoozed
	case errors.As(err, &cancel):
		return refused
	}
	return failed
}

// jobCounts is the worker middleware that counts job attempts and snoozes.
type jobCounts struct {
	river.MiddlewareDefaults
	attempts, snoozes metric.Int64Counter
	outcomes          map[outcome]metric.AddOption // each outcome's attribute set, made once
}

func newJobCounts(m metric.Meter) (*jobCounts, error) {
	attempts, err := m.Int64Counter("durable.job.attempts", metric.WithUnit("{attempt}"),
		metric.WithDescription("Job attempts of durable payments, by outcome."))
	if err != nil {
		return nil, fmt.Errorf("durableotel: %w", err)
	}
	snoozes, err := m.Int64Counter("durable.job.snoozes", metric.WithUnit("{snooze}"),
		metric.WithDescription("Job attempts of durable payments snoozed with their outcome unknown."))
	if err != nil {
		return nil, fmt.Errorf("durableotel: %w", err)
	}
	c := &jobCounts{attempts: attempts, snoozes: snoozes, outcomes: map[outcome]metric.AddOption{}}
	for _, o := range []outcome{settled, refused, snoozed, failed} {
		c.outcomes[o] = metric.WithAttributeSet(attribute.NewSet(attribute.String("durable.job.outcome", string(o))))
	}
	return c, nil
}

// Work counts the attempt once doInner returns, or panics: River recovers a panic, and
// retries the job as it does a failed attempt.
func (c *jobCounts) Work(ctx context.Context, _ *rivertype.JobRow, doInner func(context.Context) error) error {
	ended := failed // unless doInner returns
	defer func() {
		c.attempts.Add(ctx, 1, c.outcomes[ended])
		if ended == snoozed {
			c.snoozes.Add(ctx, 1)
		}
	}()
	err := doInner(ctx)
	ended = outcomeOf(err)
	return err
}
