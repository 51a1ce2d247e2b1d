package durableotel_test

import (
	"errors"
	"testing"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"

	"pixretry/durable"
	"pixretry/durable/durableotel"
)

var errRefused = errors.New("test: instrument refused")

// refusingMeter is a meter that refuses the instrument named refuse, or the callback if
// refuse is "callback", with errRefused.
type refusingMeter struct {
	noop.Meter
	refuse string
}

type refusingProvider struct {
	noop.MeterProvider
	refuse string
}

func (p refusingProvider) Meter(string, ...metric.MeterOption) metric.Meter {
	return refusingMeter{refuse: p.refuse}
}

func (m refusingMeter) Int64Counter(name string, opts ...metric.Int64CounterOption) (metric.Int64Counter, error) {
	if name == m.refuse {
		return nil, errRefused
	}
	return m.Meter.Int64Counter(name, opts...)
}

func (m refusingMeter) Int64ObservableGauge(name string, opts ...metric.Int64ObservableGaugeOption) (metric.Int64ObservableGauge, error) {
	if name == m.refuse {
		return nil, errRefused
	}
	return m.Meter.Int64ObservableGauge(name, opts...)
}

func (m refusingMeter) Float64ObservableGauge(name string, opts ...metric.Float64ObservableGaugeOption) (metric.Float64ObservableGauge, error) {
	if name == m.refuse {
		return nil, errRefused
	}
	return m.Meter.Float64ObservableGauge(name, opts...)
}

func (m refusingMeter) RegisterCallback(f metric.Callback, instruments ...metric.Observable) (metric.Registration, error) {
	if m.refuse == "callback" {
		return nil, errRefused
	}
	return m.Meter.RegisterCallback(f, instruments...)
}

// An instrument or a callback that the MeterProvider refuses fails Middleware or ObservePayer,
// whichever makes it, with its error; the other succeeds.
func TestRefusedInstrumentsAreReported(t *testing.T) {
	t.Parallel()
	p := mustPayer(t, dbPath(t), durable.Config{})
	for _, tt := range []struct {
		refuse       string
		inMiddleware bool
	}{
		{"durable.job.attempts", true},
		{"durable.job.snoozes", true},
		{"durable.intents", false},
		{"durable.intent.oldest_pending.age", false},
		{"callback", false},
	} {
		cfg := durableotel.Config{MeterProvider: refusingProvider{refuse: tt.refuse}}
		_, merr := durableotel.Middleware(cfg)
		_, oerr := durableotel.ObservePayer(p, cfg)
		failed, other := oerr, merr
		if tt.inMiddleware {
			failed, other = merr, oerr
		}
		want := "durableotel: " + errRefused.Error()
		if !errors.Is(failed, errRefused) || failed.Error() != want || other != nil {
			t.Errorf("%s refused: Middleware() error %v, ObservePayer() error %v; want %q from the one that makes it",
				tt.refuse, merr, oerr, want)
		}
	}
}
