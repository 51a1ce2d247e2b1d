// Command psp runs the Pix PSP simulator of package pixretry/psp on a real address, with the
// /_psp/ control surface on. It is a test double: point a client under test at it, inject
// faults over HTTP, read the ledger back.
//
// Usage:
//
//	psp [-addr 127.0.0.1:8080] [-tokens test-token] [-balance 1000.00] [-key-ttl 24h] [-max-keys 500000]
//	    [-max-settlements 1000000] [-ispb 12345678] [-service-time 0s] [-capacity 0] [-shed-retry-after 0s]
//	    [-max-conns 1024] [-control-token T] [-control-hosts HOST:PORT,...] [-log info|warn|off]
//	    [-faults FILE] [-journal-max 1000] [-journal-bytes 1048576] [-metrics ADDR]
//	    [-complete-after 0s] [-reject-range LOW-HIGH] [-dialect pix|efi|openfinance]
//	    [-openfinance-signing-key-file FILE] [-openfinance-client-keys-file FILE]
//	    [-openfinance-org-id pixretry-psp] [-openfinance-client-org-id pixretry-initiator]
//	    [-openfinance-key-ttl 24h] [-openfinance-consent-ttl 60m]
//	    [-webhook URL -webhook-secret-file FILE [-webhook-attempts 8] [-webhook-delay-base 1s]
//	    [-webhook-wait-max 1m] [-webhook-timeout 5s] [-webhook-queue 1000]]
//
// psp -h lists the flags, then the endpoints it serves and where they are documented.
//
// It prints "psp: listening on http://HOST:PORT" on stdout once it accepts connections, logs
// one line per payment request and per lookup on stderr unless -log is warn or off (buffered:
// a line may wait up to 0.1 s, and every line is written before it exits), and on SIGINT or
// SIGTERM stops accepting, lets requests in flight finish for up to 15 s, closes the
// connections still open and exits 0. It exits 2 on a bad command line, an address it cannot
// listen on included, after printing the problem and the usage on stderr, and 1 if it cannot
// serve.
//
// With -faults FILE it queues the faults of FILE, a body of POST /_psp/faults such as
// psp/scenarios/lost-answer.json, before it prints that line. A file it cannot read, or whose
// faults the control API would refuse, is a bad command line, and the problem names the file,
// the line and the column.
//
// With -metrics ADDR it serves what it did as metrics, for a Prometheus scraper, at
// http://ADDR/metrics: the requests by status and fault, the settlements, the balance, the keys
// and the faults queued (observe, in metrics.go, names each one). Before the line on stdout it
// prints "psp: metrics on http://HOST:PORT/metrics" on stderr. An ADDR it cannot listen on is a
// bad command line. Without -metrics it serves no metrics.
//
// With -complete-after D, every payment it would settle is accepted first, 202 with the status
// EM_PROCESSAMENTO and its valor held, and settled (REALIZADO) D later. With -reject-range
// LOW-HIGH, as in 10.01-20.00, a payment whose valor is in the range, both ends included, is
// accepted, then rejected (NAO_REALIZADO) after -complete-after, even 0s, and its valor
// released, as Efí's sandbox does. docs/psp.md says what each state answers.
//
// With -dialect efi, the payments API is Efí's payouts (package pixretry/psp/efi) instead of the
// double's own: PUT /v2/gn/pix/{idEnvio} pays and GET /v2/gn/pix/enviados/id-envio/{idEnvio}
// looks a payout up, for the payer whose Pix key is efi.PayerKey. The control API, its page and
// /openapi.json stay as they are, and so do the keys, the faults and the pending payments.
//
// With -dialect openfinance, the payments API is Open Finance Brasil payments v4 (package
// pixretry/psp/openfinance): POST and GET /open-banking/payments/v4/consents, and POST and GET
// /open-banking/payments/v4/pix/payments, with bodies signed as JWS (PS256). The control API
// also serves GET /_psp/openfinance/jwks.json, the public key that signs the answers, and
// GET /_psp/openfinance/client-key.json, the client key pair made at start, which a client
// signs with. -openfinance-signing-key-file and -openfinance-client-keys-file give the keys
// instead, and a file that openfinance.New cannot use is a bad command line.
// -openfinance-org-id and -openfinance-client-org-id name the double and the initiator in the
// claims. -openfinance-key-ttl, at most -key-ttl, is how long an x-idempotency-key is kept, and
// -openfinance-consent-ttl how long a consent may wait for its payment before it reads REJECTED. A
// reset forgets the consents and the keys of the front end with those of the PSP. Any other
// value of -dialect is a bad command line, and so is an -openfinance- flag in another dialect.
//
// With -webhook URL -webhook-secret-file FILE it POSTs a webhook to URL for each payment that
// ends, settled or rejected, signed with the secret in FILE (at least 32 bytes, a trailing
// newline left out) in the header Pix-Signature, and retries it as package pixretry/psp/webhook
// says: after no answer within -webhook-timeout, a 5xx or a 429, up to -webhook-attempts tries,
// waiting a full-jitter draw below min(-webhook-wait-max, -webhook-delay-base·2^(n−1)) after try
// n. At most -webhook-queue webhooks are under way; a new one beyond drops the oldest waiting.
// GET /_psp/webhooks lists them, and faults with "target":"webhook" make them misbehave. A URL
// that is not absolute http or https, a secret file missing or short, and either flag without
// the other are a bad command line. The secret is never printed or logged. On shutdown, the
// webhooks still under way are abandoned. With -dialect efi the webhook is Efí's callback of a
// Pix sent (psp/efi.WebhookForm): unsigned, the secret in URL's hmac query parameter instead.
//
// GET /_psp/requests reads its journal of the requests it received: the latest -journal-max of
// them, within -journal-bytes, the oldest dropped first. GET /_psp/ is a page that watches it in
// a browser.
//
// The control API answers on a loopback address. On any other address it answers only with
// -control-token, and psp warns on stderr that it listens beyond this machine. A control request
// must name the listening address, a loopback name (localhost, 127.0.0.1 or [::1], with the
// port) or one of -control-hosts in its Host. Slow and idle clients are held off by the timeouts
// of limits and by -max-conns.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"pixretry/internal/cmdline"
	"pixretry/internal/scrape"
	"pixretry/psp"
	"pixretry/psp/efi"
	"pixretry/psp/openfinance"
)

func main() { cmdline.Main(run) }

// run serves the simulator on the address in args until ctx ends, then shuts down gracefully.
// It prints the URL it listens on to stdout once it accepts connections. Logs and errors go to
// stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	opts, fs, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	ln, err := listen(opts.addr, opts.maxConns)
	if err != nil {
		return cmdline.Refuse(fs, fmt.Errorf("psp: -addr %s: %w", opts.addr, err))
	}
	var metrics *scrape.Endpoint
	if opts.metrics != "" {
		if metrics, err = scrape.Serve(opts.metrics, "psp"); err != nil {
			ln.Close()
			return cmdline.Refuse(fs, fmt.Errorf("psp: -metrics %s: %w", opts.metrics, err))
		}
	}
	if err := opts.serve(ctx, ln, metrics, stdout, stderr); err != nil {
		if _, bad := errors.AsType[*flagError](err); bad {
			return cmdline.Refuse(fs, err)
		}
		fmt.Fprintln(stderr, err)
		return err
	}
	return nil
}

// options is what the command line asks for.
type options struct {
	cfg          psp.Config
	controlToken string // the control API's token, if any
	addr         string
	metrics      string      // the address of the metrics, if any
	maxConns     int         // 0: no limit
	controlHosts []string    // Host values the control API answers for besides the defaults
	faults       []psp.Fault // queued before it serves (-faults)
	webhooks     webhookOptions
	limits       limits
	log          logLevel
	dialect      cmdline.Dialect    // the payments API served
	openFinance  openfinance.Config // the front end of -dialect openfinance
}

// parseFlags reads the command line. It returns the flag set for errors found later.
func parseFlags(args []string, stderr io.Writer) (options, *flag.FlagSet, error) {
	def := psp.DefaultConfig()
	fs := flag.NewFlagSet("psp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { usage(fs) }
	addr := fs.String("addr", defaultAddr, "address to listen on (port 0 picks a free one)")
	tokens := fs.String("tokens", strings.Join(def.Tokens, ","), "accepted bearer tokens, comma-separated")
	balance := fs.String("balance", psp.FormatAmount(def.BalanceCents), "the payer's starting balance, as in 150.00")
	keyTTL := durationFlag(fs, "key-ttl", def.KeyTTL, "how long a completed Idempotency-Key is remembered, a `duration`")
	maxKeys := numberFlag(fs, "max-keys", def.MaxKeys, "most Idempotency-Keys stored at once, a `number`; a new key beyond them gets 503")
	maxSettlements := numberFlag(fs, "max-settlements", def.MaxSettlements,
		"most settlements the ledger keeps, and closed keys, a `number`; once one is dropped, a lookup that finds nothing gets 410")
	ispb := fs.String("ispb", def.ISPB, "8-digit ISPB used in endToEndIds")
	serviceTime := durationFlag(fs, "service-time", 0, "how long every payment takes before its commit, a `duration`")
	capacity := numberFlag(fs, "capacity", 0, "most payments in processing at once, a `number`; the next are shed with 503 (0: no limit)")
	shedRetryAfter := durationFlag(fs, "shed-retry-after", 0, "Retry-After sent with a shed answer, a `duration` rounded up to seconds (0: none)")
	maxConns := numberFlag(fs, "max-conns", defaultMaxConns, "most connections open at once, a `number`; the next wait until one closes (0: no limit)")
	controlToken := fs.String("control-token", "", "bearer token every control request must carry (needed for the control API off loopback)")
	controlHosts := fs.String("control-hosts", "", "more Host values the control API answers for, comma-separated, as in psp:8080")
	journalMax := numberFlag(fs, "journal-max", def.JournalMax, "most requests the journal keeps (GET /_psp/requests), a `number`; the oldest are dropped first")
	journalBytes := numberFlag(fs, "journal-bytes", def.JournalBytes, "most bytes the journal's requests take, payloads included, a `number`; the oldest are dropped first")
	faults := fs.String("faults", "", "a `file` of faults to queue before serving: the body of POST /_psp/faults, as in psp/scenarios/lost-answer.json")
	metrics := fs.String("metrics", "", "an `address` to serve metrics on, at /metrics, for a Prometheus scraper (default none)")
	completeAfter := durationFlag(fs, "complete-after", 0,
		"how long a payment stays pending (202 EM_PROCESSAMENTO) before it settles, a `duration` (0: it settles at once, 201)")
	var rejected amountRange
	fs.Var(&rejected, "reject-range", "the valor of payments accepted (202), then rejected after -complete-after, "+
		"`LOW-HIGH` in reais, both included, as in 10.01-20.00 (default none)")
	webhooks := addWebhookFlags(fs)
	openFinance := addOpenFinanceFlags(fs)
	o := options{limits: defaultLimits}
	fs.Var(&o.dialect, "dialect", "the payments API served, a `dialect`: pix (the double's own), efi (Efí's payouts) "+
		"or openfinance (Open Finance Brasil payments v4) (default pix)")
	fs.Var(&o.log, "log", "what stderr gets, a `level`: info (a line per payment and per lookup), warn (the server's warnings) or off (default info)")
	err := cmdline.Parse(fs, args, func() error {
		o.addr, o.maxConns, o.metrics = *addr, int(*maxConns), *metrics
		o.cfg.Tokens, o.cfg.KeyTTL, o.cfg.ISPB = strings.Split(*tokens, ","), time.Duration(*keyTTL), *ispb
		o.cfg.MaxKeys, o.cfg.MaxSettlements = int(*maxKeys), int(*maxSettlements)
		o.cfg.JournalMax, o.cfg.JournalBytes = int(*journalMax), int(*journalBytes)
		o.cfg.ServiceTime, o.cfg.Capacity = time.Duration(*serviceTime), int(*capacity)
		o.cfg.ShedRetryAfter = time.Duration(*shedRetryAfter)
		o.cfg.CompleteAfter = time.Duration(*completeAfter)
		o.cfg.RejectFromCents, o.cfg.RejectToCents = rejected.from, rejected.to
		o.controlToken = *controlToken
		if *controlHosts != "" {
			o.controlHosts = strings.Split(*controlHosts, ",")
		}
		var err error
		if o.cfg.BalanceCents, err = psp.ParseBalance(*balance); err != nil {
			return fmt.Errorf("psp: -balance %q: want 1 to 10 digits, a dot and 2 digits, as in 1000.00", *balance)
		}
		if err = cmp.Or(checkConfig(o.cfg), o.check()); err != nil {
			return err
		}
		if o.openFinance, err = openFinance.config(fs, o.dialect, o.cfg.KeyTTL); err != nil {
			return err
		}
		if o.webhooks.cfg, err = webhooks.config(); err != nil {
			return err
		}
		if o.dialect == cmdline.DialectEfi {
			o.webhooks.cfg.Form = efi.WebhookForm{} // Efí's callback of a Pix sent, its hmac in the URL
		}
		all, err := loadFaults(*faults)
		o.faults, o.webhooks.faults = all.Server, all.Webhooks
		return cmp.Or(err, o.webhooks.check(*faults))
	})
	return o, fs, err
}
