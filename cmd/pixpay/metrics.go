package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"pixretry/durable"
	"pixretry/durable/durableotel"
	"pixretry/internal/cmdline"
	"pixretry/internal/scrape"
	"pixretry/pix/pixotel"
)

// instrument serves run's metrics on o.metrics, and has o's client and River record on its
// MeterProvider: pix's instruments (pixotel) and River's (durableotel.Middleware). It says
// where the metrics are on stderr. An address it cannot listen on is a bad command line.
// The caller passes the returned Config to observeIntents once it has a Payer, and shuts the
// Endpoint down last.
func (o *options) instrument(ctx context.Context, fs *flag.FlagSet, stderr io.Writer) (*scrape.Endpoint, *durableotel.Config, error) {
	metrics, err := scrape.Serve(o.metrics, "pixpay")
	if err != nil {
		return nil, nil, cmdline.Refuse(fs, fmt.Errorf("pixpay: -metrics %s: %w", o.metrics, err))
	}
	cfg := &durableotel.Config{MeterProvider: metrics.MeterProvider()}
	observer, err := pixotel.NewObserver(pixotel.Config{MeterProvider: cfg.MeterProvider})
	if err == nil {
		o.cfg.Middleware, err = durableotel.Middleware(*cfg)
	}
	if err != nil {
		return nil, nil, errors.Join(fmt.Errorf("pixpay: metrics: %w", err), metrics.Shutdown(ctx))
	}
	o.cfg.Client.Observer = observer
	fmt.Fprintln(stderr, "pixpay: metrics on "+metrics.URL())
	return metrics, cfg, nil
}

// observeIntents registers p's gauges (durableotel.ObservePayer) when cfg is not nil. The
// returned function unregisters them.
func observeIntents[TTx any](p *durable.Payer[TTx], cfg *durableotel.Config) (func() error, error) {
	if cfg == nil {
		return func() error { return nil }, nil
	}
	return durableotel.ObservePayer(p, *cfg)
}
