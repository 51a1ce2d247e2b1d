package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"pixretry/internal/scrape"
	"pixretry/psp"
)

// limits bound what a slow or idle client can hold, and how long a shutdown waits.
type limits struct {
	readHeader time.Duration // to read a request's line and header
	read       time.Duration // to read a whole request, body included
	idle       time.Duration // a keep-alive connection waits this long for its next request
	grace      time.Duration // a shutdown waits this long for the requests in flight
}

// defaultLimits are cmd/psp's. A payment's header and body take milliseconds to send; a client
// that takes longer than these is slow, and its connection is closed. The idle timeout is longer
// than the 30 s of pix's default transport, so a pooled connection is closed by its client
// rather than under it.
var defaultLimits = limits{
	readHeader: 10 * time.Second,
	read:       30 * time.Second,
	idle:       60 * time.Second,
	grace:      15 * time.Second,
}

const (
	// defaultMaxConns is the default of -max-conns: the most connections open at once.
	defaultMaxConns = 1024
	// maxHeaderBytes bounds a request's header, like the body's 64 KiB.
	maxHeaderBytes = 64 << 10
	// writeSlack is the time left to write an answer once it is due.
	writeSlack = 10 * time.Second
)

// server is an http.Server for h with l's timeouts. Its write timeout, counted from the end
// of a request's header, covers reading the body, serviceTime, the longest slow or late fault
// (psp.MaxFaultDuration) and writeSlack, so that every answer a fault holds is still written.
func (l limits) server(h http.Handler, serviceTime time.Duration, logger *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: l.readHeader,
		ReadTimeout:       l.read,
		WriteTimeout:      l.read + serviceTime + psp.MaxFaultDuration + writeSlack,
		IdleTimeout:       l.idle,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}

// serve serves the simulator on ln until ctx ends, then shuts down gracefully. With metrics,
// it says where they are on stderr and shuts them down last.
func (o options) serve(ctx context.Context, ln net.Listener, metrics *scrape.Endpoint, stdout, stderr io.Writer) (err error) {
	payments, logger, flushLogs := newLoggers(stderr, o.log)
	defer flushLogs()
	if metrics != nil {
		defer func() {
			shutdownCtx, cancel := context.WithTimeout(context.Background(), o.limits.grace)
			defer cancel()
			err = errors.Join(err, metrics.Shutdown(shutdownCtx))
		}()
	}
	cfg := o.cfg
	cfg.Logger = payments
	webhooks, err := o.webhooks.start(payments)
	if webhooks != nil {
		defer webhooks.Close() // after psps.Close: every payment that ended was queued
		cfg.OnEnd = webhooks.Send
	}
	var psps *psp.Server
	if err == nil {
		psps, err = psp.NewServer(cfg)
	}
	var handler http.Handler
	var control bool
	if err == nil {
		defer psps.Close()       // its pending payments end no more
		psps.Inject(o.faults...) // before it serves: the first requests meet them
		handler, control, err = o.exposeControl(psps, webhooks, ln.Addr(), stderr)
	}
	if err == nil && metrics != nil {
		if err = observe(metrics.MeterProvider(), psps); err == nil {
			fmt.Fprintln(stderr, "psp: metrics on "+metrics.URL())
		}
	}
	if err != nil {
		ln.Close()
		return err
	}
	srv := o.limits.server(handler, cfg.ServiceTime, logger)
	url := "http://" + ln.Addr().String()
	logger.Info("psp: listening", "url", url, "tokens", len(cfg.Tokens),
		"balance", psp.FormatAmount(cfg.BalanceCents), "key_ttl", cfg.KeyTTL, "max_keys", cfg.MaxKeys,
		"max_settlements", cfg.MaxSettlements,
		"service_time", cfg.ServiceTime, "capacity", cfg.Capacity, "max_conns", o.maxConns,
		"complete_after", cfg.CompleteAfter, "reject_range", amountRange{cfg.RejectFromCents, cfg.RejectToCents}.String(),
		"dialect", o.dialect.String(), "control", control, "control_token", o.controlToken != "", "faults", len(o.faults),
		"webhook", o.webhooks.redactedURL(), "webhook_faults", len(o.webhooks.faults))
	return serveUntil(ctx, srv, ln, o.limits.grace, logger, func() { fmt.Fprintln(stdout, "psp: listening on "+url) })
}

// serveUntil serves ln with srv, calls ready once it serves, and shuts srv down gracefully
// when ctx ends: no new connections, and requests in flight finish for up to grace. Then the
// connections still open are closed, and that is not an error.
func serveUntil(ctx context.Context, srv *http.Server, ln net.Listener, grace time.Duration, logger *slog.Logger, ready func()) error {
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	ready()
	select {
	case err := <-served:
		return fmt.Errorf("psp: serve: %w", err)
	case <-ctx.Done():
	}
	logger.Info("psp: shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := srv.Shutdown(shutdownCtx)
	if errors.Is(err, context.DeadlineExceeded) {
		logger.Warn("psp: the shutdown grace ended; closing the connections still open", "grace", grace)
		err = srv.Close()
	}
	<-served // http.ErrServerClosed
	if err != nil {
		return fmt.Errorf("psp: shutdown: %w", err)
	}
	return nil
}
