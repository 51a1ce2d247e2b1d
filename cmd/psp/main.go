// Command psp runs the Pix PSP simulator of package pixretry/psp on a real address, with the
// /_psp/ control surface on. It is a test double: point a client under test at it, inject
// faults over HTTP, read the ledger back.
//
// Usage:
//
//	psp [-addr 127.0.0.1:8080] [-tokens test-token] [-balance 1000.00] [-key-ttl 24h] [-max-keys 500000] [-ispb 12345678]
//	    [-service-time 0s] [-capacity 0] [-shed-retry-after 0s]
//
// It prints "psp: listening on http://HOST:PORT" on stdout once it accepts connections, logs
// one line per payment request on stderr (buffered: a line may wait up to 0.1 s, and every
// line is written before it exits), and on SIGINT or SIGTERM stops accepting, lets
// requests in flight finish (for up to 15 s) and exits 0. It exits 2 on a bad command line, after
// printing the problem and the usage on stderr, and 1 if it cannot serve.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"pixretry/internal/cmdline"
	"pixretry/psp"
)

// shutdownGrace bounds how long a shutdown waits for requests in flight (a late or slow fault
// may hold one); then the remaining connections are closed.
const shutdownGrace = 15 * time.Second

func main() { cmdline.Main(run) }

// run serves the simulator on the address in args until ctx ends, then shuts down gracefully.
// It prints the URL it listens on to stdout once it accepts connections. Logs and errors go to
// stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, addr, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if err := serve(ctx, cfg, addr, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, err)
		return err
	}
	return nil
}

// serve serves the simulator configured by cfg on addr until ctx ends.
func serve(ctx context.Context, cfg psp.Config, addr string, stdout, stderr io.Writer) error {
	payments, logger, flushLogs := newLoggers(stderr)
	defer flushLogs()
	cfg.Logger = payments
	handler, err := psp.NewServer(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("psp: %w", err)
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	url := "http://" + ln.Addr().String()
	logger.Info("psp: listening", "url", url, "tokens", len(cfg.Tokens),
		"balance", psp.FormatAmount(cfg.BalanceCents), "key_ttl", cfg.KeyTTL, "max_keys", cfg.MaxKeys,
		"service_time", cfg.ServiceTime, "capacity", cfg.Capacity)
	return serveUntil(ctx, srv, ln, logger, func() { fmt.Fprintln(stdout, "psp: listening on "+url) })
}

// serveUntil serves ln with srv, calls ready once it serves, and shuts srv down gracefully
// when ctx ends: no new connections, requests in flight finish (for up to shutdownGrace).
func serveUntil(ctx context.Context, srv *http.Server, ln net.Listener, logger *slog.Logger, ready func()) error {
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	ready()
	select {
	case err := <-served:
		return fmt.Errorf("psp: serve: %w", err)
	case <-ctx.Done():
	}
	logger.Info("psp: shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err := srv.Shutdown(shutdownCtx)
	if err != nil {
		srv.Close()
		err = fmt.Errorf("psp: shutdown: %w", err)
	}
	<-served // http.ErrServerClosed
	return err
}

// parseFlags reads the command line into a psp.Config (control API on) and an address.
func parseFlags(args []string, stderr io.Writer) (psp.Config, string, error) {
	def := psp.DefaultConfig()
	fs := flag.NewFlagSet("psp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on (port 0 picks a free one)")
	tokens := fs.String("tokens", strings.Join(def.Tokens, ","), "accepted bearer tokens, comma-separated")
	balance := fs.String("balance", psp.FormatAmount(def.BalanceCents), "the payer's starting balance, as in 150.00")
	keyTTL := fs.Duration("key-ttl", def.KeyTTL, "how long a completed Idempotency-Key is remembered")
	maxKeys := fs.Int("max-keys", def.MaxKeys, "most Idempotency-Keys stored at once; a new key beyond them gets 503 (also the ledger's length)")
	ispb := fs.String("ispb", def.ISPB, "8-digit ISPB used in endToEndIds")
	serviceTime := fs.Duration("service-time", 0, "how long every payment takes before its commit")
	capacity := fs.Int("capacity", 0, "most payments in processing at once; the next are shed with 503 (0: no limit)")
	shedRetryAfter := fs.Duration("shed-retry-after", 0, "Retry-After sent with a shed answer, rounded up to seconds (0: none)")
	cfg := psp.Config{Control: true}
	err := cmdline.Parse(fs, args, func() error {
		cfg.Tokens, cfg.KeyTTL, cfg.MaxKeys, cfg.ISPB = strings.Split(*tokens, ","), *keyTTL, *maxKeys, *ispb
		cfg.ServiceTime, cfg.Capacity, cfg.ShedRetryAfter = *serviceTime, *capacity, *shedRetryAfter
		var err error
		cfg.BalanceCents, err = psp.ParseBalance(*balance)
		switch {
		case err != nil:
			return fmt.Errorf("psp: -balance %q: want 1 to 10 digits, a dot and 2 digits, as in 1000.00", *balance)
		case *keyTTL <= 0:
			return fmt.Errorf("psp: -key-ttl %v: want a positive duration, as in 24h", *keyTTL)
		case *maxKeys <= 0:
			return fmt.Errorf("psp: -max-keys %d: want a positive number, as in 500000", *maxKeys)
		case *ispb == "":
			return errors.New("psp: -ispb: want 8 digits")
		}
		_, err = psp.NewServer(cfg) // checks -tokens, -ispb, -service-time, -capacity and -shed-retry-after
		return err
	})
	return cfg, *addr, err
}
