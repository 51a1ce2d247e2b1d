package durableotel

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"pixretry/durable"
)

// statuses are the values of durable.intent.status, each reported at every collection.
var statuses = []durable.Status{durable.StatusPending, durable.StatusOverdue, durable.StatusSettled,
	durable.StatusRefused}

// ObservePayer registers observable gauges read from p.Stats at each collection:
// durable.intents {intent} with the attribute durable.intent.status, and
// durable.intent.oldest_pending.age in s, 0 when no intent is pending. One collection makes
// one query. A failed Stats fails the collection of both, with its error wrapped as
// "durableotel: ...". The returned func unregisters them. It fails only if the
// MeterProvider refuses an instrument or the callback.
func ObservePayer[TTx any](p *durable.Payer[TTx], cfg Config) (unregister func() error, err error) {
	m := cfg.meter()
	intents, err := m.Int64ObservableGauge("durable.intents", metric.WithUnit("{intent}"),
		metric.WithDescription("Intents in the durable payer's database, by status."))
	if err != nil {
		return nil, fmt.Errorf("durableotel: %w", err)
	}
	age, err := m.Float64ObservableGauge("durable.intent.oldest_pending.age", metric.WithUnit("s"),
		metric.WithDescription("Time since the oldest pending intent was stored; 0 when none is pending."))
	if err != nil {
		return nil, fmt.Errorf("durableotel: %w", err)
	}
	byStatus := map[durable.Status]metric.ObserveOption{}
	for _, s := range statuses {
		byStatus[s] = metric.WithAttributeSet(attribute.NewSet(attribute.String("durable.intent.status", string(s))))
	}
	reg, err := m.RegisterCallback(func(ctx context.Context, o metric.Observer) error {
		s, err := p.Stats(ctx)
		if err != nil {
			return fmt.Errorf("durableotel: %w", err)
		}
		for _, status := range statuses {
			o.ObserveInt64(intents, s.Intents[status], byStatus[status])
		}
		o.ObserveFloat64(age, ageOf(s.OldestPending, time.Now()))
		return nil
	}, intents, age)
	if err != nil {
		return nil, fmt.Errorf("durableotel: %w", err)
	}
	return reg.Unregister, nil
}

// ageOf is the time from oldest to now in seconds, or 0 if oldest is zero.
func ageOf(oldest, now time.Time) float64 {
	if oldest.IsZero() {
		return 0
	}
	return now.Sub(oldest).Seconds()
}
