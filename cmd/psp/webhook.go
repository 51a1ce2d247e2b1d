package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"time"

	"pixretry/psp/webhook"
)

// The defaults of the -webhook flags.
const (
	defaultWebhookAttempts  = 8
	defaultWebhookDelayBase = time.Second
	defaultWebhookWaitMax   = time.Minute
	defaultWebhookTimeout   = 5 * time.Second
	defaultWebhookQueue     = 1000
)

// webhookFlags are the flags of the webhooks psp sends, as the flag set parses them.
type webhookFlags struct {
	url, secretFile             *string
	attempts, queue             *number
	delayBase, waitMax, timeout *duration
}

// addWebhookFlags defines the flags of the webhooks on fs.
func addWebhookFlags(fs *flag.FlagSet) webhookFlags {
	return webhookFlags{
		url: fs.String("webhook", "", "a `URL` to POST a signed webhook to for each payment that ends, settled or "+
			"rejected, as in http://127.0.0.1:8081/pix (default none; needs -webhook-secret-file)"),
		secretFile: fs.String("webhook-secret-file", "", "a `file` holding the secret that signs the webhooks: "+
			"at least 32 bytes, a trailing newline left out"),
		attempts: numberFlag(fs, "webhook-attempts", defaultWebhookAttempts,
			"tries of a webhook, the first included, a `number` from 1 to 100"),
		delayBase: durationFlag(fs, "webhook-delay-base", defaultWebhookDelayBase,
			"the longest wait after a webhook's first try, a `duration`; it doubles with each try (full jitter)"),
		waitMax: durationFlag(fs, "webhook-wait-max", defaultWebhookWaitMax,
			"the cap of every wait between a webhook's tries, a `duration`"),
		timeout: durationFlag(fs, "webhook-timeout", defaultWebhookTimeout,
			"how long one try of a webhook waits for its answer, a `duration`; then it is tried again"),
		queue: numberFlag(fs, "webhook-queue", defaultWebhookQueue,
			"most webhooks under way at once, a `number`; a new one beyond drops the oldest waiting"),
	}
}

// config returns the webhook.Config that the flags ask for, its secret read from
// -webhook-secret-file, or a zero Config without -webhook. The error names the flag and what it
// wants. It never repeats the secret.
func (f webhookFlags) config() (webhook.Config, error) {
	switch {
	case *f.url == "" && *f.secretFile == "":
		return webhook.Config{}, nil
	case *f.secretFile == "":
		return webhook.Config{}, errors.New("psp: -webhook: needs -webhook-secret-file, a file holding the secret " +
			"that signs each webhook")
	case *f.url == "":
		return webhook.Config{}, errors.New("psp: -webhook-secret-file: needs -webhook, the URL the webhooks go to")
	}
	if u, err := url.Parse(*f.url); err != nil || !u.IsAbs() || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return webhook.Config{}, fmt.Errorf("psp: -webhook %q: want an absolute http or https URL, as in "+
			"http://127.0.0.1:8081/pix", *f.url)
	}
	cfg := webhook.Config{URL: *f.url, Attempts: int(*f.attempts), DelayBase: time.Duration(*f.delayBase),
		WaitMax: time.Duration(*f.waitMax), Timeout: time.Duration(*f.timeout), Queue: int(*f.queue)}
	var err error
	switch {
	case cfg.Attempts < 1 || cfg.Attempts > webhook.MaxAttempts:
		err = fmt.Errorf("psp: -webhook-attempts %d: want 1 to %d", cfg.Attempts, webhook.MaxAttempts)
	case cfg.DelayBase <= 0:
		err = fmt.Errorf("psp: -webhook-delay-base %v: want a positive duration, as in 1s", cfg.DelayBase)
	case cfg.WaitMax < cfg.DelayBase:
		err = fmt.Errorf("psp: -webhook-wait-max %v: want a duration of at least -webhook-delay-base (%v), as in 1m",
			cfg.WaitMax, cfg.DelayBase)
	case cfg.Timeout <= 0:
		err = fmt.Errorf("psp: -webhook-timeout %v: want a positive duration, as in 5s", cfg.Timeout)
	case cfg.Queue <= 0:
		err = fmt.Errorf("psp: -webhook-queue %d: want a positive number, as in 1000", cfg.Queue)
	default:
		cfg.Secret, err = readSecret(*f.secretFile)
	}
	return cfg, err
}

// readSecret reads the secret in the file name: its bytes, but one trailing newline (\n or
// \r\n), at least webhook.MinSecretBytes of them. The error never repeats them.
func readSecret(name string) (webhook.Secret, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("psp: -webhook-secret-file: %w", err)
	}
	if secret, cut := bytes.CutSuffix(data, []byte("\n")); cut {
		data = bytes.TrimSuffix(secret, []byte("\r"))
	}
	if len(data) < webhook.MinSecretBytes {
		return nil, fmt.Errorf("psp: -webhook-secret-file %s: %d bytes, want at least %d, a trailing newline left out",
			name, len(data), webhook.MinSecretBytes)
	}
	return webhook.Secret(data), nil
}

// webhookOptions are the webhooks the command line asks for.
type webhookOptions struct {
	cfg    webhook.Config  // a zero Config (no URL) without -webhook
	faults []webhook.Fault // the faults of -faults with "target":"webhook", queued before it serves
}

// check refuses webhook faults without -webhook.
func (w webhookOptions) check(faultsFile string) error {
	if w.cfg.URL == "" && len(w.faults) > 0 {
		return fmt.Errorf(`psp: -faults %s: %d faults with "target":"webhook", but no -webhook URL to send webhooks to`,
			faultsFile, len(w.faults))
	}
	return nil
}

// start returns the Sender of the webhooks, logging to logger, with the faults queued; nil
// without -webhook.
func (w webhookOptions) start(logger *slog.Logger) (*webhook.Sender, error) {
	if w.cfg.URL == "" {
		return nil, nil
	}
	cfg := w.cfg
	cfg.Logger = logger
	s, err := webhook.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("psp: -webhook: %w", err)
	}
	s.Inject(w.faults...) // before it serves: the first deliveries meet them
	return s, nil
}

// redactedURL is the -webhook URL for the log, a password in it left out; "" for none.
func (w webhookOptions) redactedURL() string {
	u, err := url.Parse(w.cfg.URL)
	if w.cfg.URL == "" || err != nil {
		return ""
	}
	return u.Redacted()
}
