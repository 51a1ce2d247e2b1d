// Package scrape serves a command's metrics to a Prometheus scraper. An Endpoint holds an
// OpenTelemetry MeterProvider and answers GET /metrics with what its instruments read, in the
// Prometheus text format of go.opentelemetry.io/otel/exporters/prometheus. The names follow
// that exporter: dots become underscores, a unit becomes a suffix (s is _seconds, an annotation
// such as {payment} adds nothing), a counter ends in _total, and every series carries the
// otel_scope_ labels of the meter that made it.
//
// It is the only package of the module that imports the exporter and the Prometheus client, so
// that only the commands that serve metrics pay for their build.
package scrape

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/attribute"
	otelprometheus "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
)

// Path is where an Endpoint answers.
const Path = "/metrics"

// Endpoint serves the metrics of its MeterProvider at Path on a TCP address, from Serve until
// Shutdown. It is safe for concurrent use.
type Endpoint struct {
	provider *sdkmetric.MeterProvider
	srv      *http.Server
	addr     net.Addr
	served   chan error // Serve's result, once Shutdown has stopped it
}

// Serve listens on addr, such as 127.0.0.1:9464 or :0 for a free port, and serves the metrics
// of a new MeterProvider at Path in the background. The provider's resource names service, as
// the target_info series shows. The Prometheus registry is the Endpoint's own, never the
// global one, so two Endpoints in one process do not meet. If Serve cannot listen, it returns
// net.Listen's error as is, for the caller to name the option that gave addr.
func Serve(addr, service string) (*Endpoint, error) {
	reg := prometheus.NewRegistry()
	exporter, err := otelprometheus.New(otelprometheus.WithRegisterer(reg))
	if err != nil {
		return nil, fmt.Errorf("scrape: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(attribute.String("service.name", service)))
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("scrape: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET "+Path, promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	e := &Endpoint{
		provider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter), sdkmetric.WithResource(res)),
		srv:      &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute},
		addr:     ln.Addr(),
		served:   make(chan error, 1),
	}
	go func() { e.served <- e.srv.Serve(ln) }()
	return e, nil
}

// MeterProvider is the provider whose instruments the Endpoint serves.
func (e *Endpoint) MeterProvider() metric.MeterProvider { return e.provider }

// URL is where a scraper finds the metrics, such as http://127.0.0.1:9464/metrics, with the
// port the system picked for :0.
func (e *Endpoint) URL() string { return "http://" + e.addr.String() + Path }

// Shutdown stops the Endpoint: it closes the listener, lets a scrape in flight finish until ctx
// ends, then shuts the MeterProvider down. Instruments of the provider record nothing after it.
// Call it once.
func (e *Endpoint) Shutdown(ctx context.Context) error {
	err := e.srv.Shutdown(ctx)
	if err != nil {
		err = errors.Join(err, e.srv.Close())
	}
	if served := <-e.served; !errors.Is(served, http.ErrServerClosed) {
		err = errors.Join(err, served)
	}
	if perr := e.provider.Shutdown(ctx); perr != nil {
		err = errors.Join(err, perr)
	}
	if err != nil {
		return fmt.Errorf("scrape: shutdown: %w", err)
	}
	return nil
}
