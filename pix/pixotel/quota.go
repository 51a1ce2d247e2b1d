package pixotel

import (
	"context"
	"errors"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"pixretry/retry"
)

// ObserveQuota reports q's tokens ([retry.Quota.Tokens]) in the gauge pix.quota.tokens, with
// the attribute pix.quota.name=name, at every collection, for as long as the MeterProvider
// lives. Call it once per Quota: the Clients that share q share its gauge. Its error starts
// with "pixotel: ".
func (o *Observer) ObserveQuota(name string, q *retry.Quota) error {
	if q == nil {
		return errors.New("pixotel: ObserveQuota of a nil Quota")
	}
	attrs := metric.WithAttributeSet(attribute.NewSet(keyQuota.String(name)))
	_, err := o.meter.RegisterCallback(func(_ context.Context, m metric.Observer) error {
		m.ObserveFloat64(o.quotaTokens, q.Tokens(), attrs)
		return nil
	}, o.quotaTokens)
	if err != nil {
		return fmt.Errorf("pixotel: observing quota %q: %w", name, err)
	}
	return nil
}
