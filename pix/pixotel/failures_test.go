package pixotel_test

import (
	"errors"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"pixretry/pix/pixotel"
	"pixretry/retry"
)

var errMeter = errors.New("the meter failed")

// failingMeter is a no-op meter that fails to make the instruments, or to register the
// callbacks, that fails names.
type failingMeter struct {
	metricnoop.Meter
	fails string // "counter", "histogram", "gauge" or "callback"
}

func (m failingMeter) Int64Counter(string, ...metric.Int64CounterOption) (metric.Int64Counter, error) {
	return metricnoop.Int64Counter{}, m.err("counter")
}

func (m failingMeter) Float64Histogram(string, ...metric.Float64HistogramOption) (metric.Float64Histogram, error) {
	return metricnoop.Float64Histogram{}, m.err("histogram")
}

func (m failingMeter) Float64ObservableGauge(string, ...metric.Float64ObservableGaugeOption) (metric.Float64ObservableGauge, error) {
	return metricnoop.Float64ObservableGauge{}, m.err("gauge")
}

func (m failingMeter) RegisterCallback(metric.Callback, ...metric.Observable) (metric.Registration, error) {
	return metricnoop.Registration{}, m.err("callback")
}

func (m failingMeter) err(what string) error {
	if m.fails == what {
		return errMeter
	}
	return nil
}

type failingMeterProvider struct {
	metricnoop.MeterProvider
	fails string
}

func (p failingMeterProvider) Meter(string, ...metric.MeterOption) metric.Meter {
	return failingMeter{fails: p.fails}
}

// TestNewObserverReportsTheMetersError: NewObserver fails when the meter cannot make an
// instrument of any kind, with an error that starts with "pixotel: " and wraps the meter's.
func TestNewObserverReportsTheMetersError(t *testing.T) {
	for _, kind := range []string{"counter", "histogram", "gauge"} {
		o, err := pixotel.NewObserver(pixotel.Config{MeterProvider: failingMeterProvider{fails: kind}})
		if o != nil || !errors.Is(err, errMeter) || !strings.HasPrefix(err.Error(), "pixotel: ") {
			t.Errorf("NewObserver() with a meter that fails a %s = %v, %v; want nil and pixotel: wrapping the meter's error", kind, o, err)
		}
	}
}

// TestObserveQuotaReportsItsError: ObserveQuota fails for a nil Quota, and when the meter
// cannot register its callback, with an error that starts with "pixotel: ".
func TestObserveQuotaReportsItsError(t *testing.T) {
	o, err := pixotel.NewObserver(pixotel.Config{MeterProvider: failingMeterProvider{fails: "callback"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.ObserveQuota("psp", &retry.Quota{}); !errors.Is(err, errMeter) || !strings.HasPrefix(err.Error(), "pixotel: ") {
		t.Errorf("ObserveQuota() error = %v, want pixotel: wrapping the meter's error", err)
	}
	working, err := pixotel.NewObserver(pixotel.Config{MeterProvider: sdkmetric.NewMeterProvider()})
	if err != nil {
		t.Fatal(err)
	}
	if err := working.ObserveQuota("psp", nil); err == nil || !strings.HasPrefix(err.Error(), "pixotel: ") {
		t.Errorf("ObserveQuota(nil) error = %v, want a pixotel: error", err)
	}
}

// TestNewObserverTakesTheGlobalProviders: a zero Config is valid.
func TestNewObserverTakesTheGlobalProviders(t *testing.T) {
	if _, err := pixotel.NewObserver(pixotel.Config{}); err != nil {
		t.Errorf("NewObserver(Config{}) error = %v", err)
	}
}
