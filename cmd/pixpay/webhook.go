package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"pixretry/internal/cmdline"
	"pixretry/pix"
	"pixretry/pix/efi"
)

// minSecret is the shortest webhook secret, in bytes, that -webhook-secret-file may hold.
const minSecret = 32

// readSecret reads the webhook secret of path: its bytes, one trailing newline left out. It
// must hold at least minSecret bytes.
func readSecret(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("pixpay: -webhook-secret-file: %w", err)
	}
	b = bytes.TrimSuffix(bytes.TrimSuffix(b, []byte("\n")), []byte("\r"))
	if len(b) < minSecret {
		return nil, fmt.Errorf("pixpay: -webhook-secret-file %s holds %d bytes: want at least %d", path, len(b), minSecret)
	}
	return b, nil
}

// listenWebhooks listens on o.webhook for run's webhooks and says where on stderr. An address
// it cannot listen on is a bad command line.
func (o *options) listenWebhooks(fs *flag.FlagSet, stderr io.Writer) (net.Listener, error) {
	ln, err := net.Listen("tcp", o.webhook)
	if err != nil {
		return nil, cmdline.Refuse(fs, fmt.Errorf("pixpay: -webhook %s: %w", o.webhook, err))
	}
	fmt.Fprintf(stderr, "pixpay: webhooks on http://%s/\n", ln.Addr())
	return ln, nil
}

// webhookHandler is the handler of the webhooks of a PSP speaking d, checked with secret and
// applied with apply: Efí's callbacks with -dialect efi (secret is the hmac of the registered
// URL), the double's own signed deliveries otherwise.
func webhookHandler(d cmdline.Dialect, secret []byte, apply func(context.Context, pix.Webhook) error) http.Handler {
	if d == cmdline.DialectEfi {
		return efi.WebhookHandler{HMAC: secret, Apply: apply}
	}
	return &pix.WebhookHandler{Secret: secret, Apply: apply}
}

// serveWebhooks serves the PSP's webhooks on ln with h, until the returned function stops it:
// it stops taking deliveries and waits up to stopTimeout for those in progress, whose PSP
// delivers again if they were cut short.
func serveWebhooks(ln net.Listener, h http.Handler) func(context.Context) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second,
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	return func(ctx context.Context) error {
		err := srv.Shutdown(ctx)
		if served := <-served; !errors.Is(served, http.ErrServerClosed) {
			err = errors.Join(err, served)
		}
		return err
	}
}
