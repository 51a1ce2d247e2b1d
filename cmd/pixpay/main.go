// Command pixpay stores Pix payments as durable intents and works them, with package
// pixretry/durable. A killed run loses nothing: started again, it finishes every intent with
// its stored Idempotency-Key.
//
// Usage:
//
//	pixpay -db DSN [-dialect D ... -psp URL] add -id ID -valor 150.00 -chave KEY [-info TEXT] [-consent ID]
//	pixpay -db DSN -psp URL [-dialect D ...] [-token T] [-workers N] [-key-ttl D] [-metrics ADDR]
//	       [-webhook ADDR -webhook-secret-file FILE] run [-until-done]
//	pixpay -db DSN list
//	pixpay help
//
// -dialect is the PSP's payments API, as a pix.Dialect speaks it. pix is the double's own, and
// the default. efi is Efí's payouts (package pixretry/pix/efi), paid from the Pix key
// -payer-key, sent as pagador.chave, whose default is the double's payer (psp/efi.PayerKey).
// openfinance is Open Finance Brasil payments v4 (package pixretry/pix/openfinance). Its
// requests are signed with the RSA key of the PEM file -signing-key, of 2048 bits or more,
// named by its RFC 7638 thumbprint. Its answers are verified with the PSP's JWK Set of the file
// -psp-keys. Without either file, pixpay fetches what it lacks from the double at -psp, at the
// paths that psp/openfinance documents (ClientKeyPath and JWKSPath), as a sandbox hands out
// credentials, and exits 1 if it cannot. The initiator's CNPJ and ISPB, the payer who
// authorises consents and the payee of every Pix key are the double's sandbox values. An
// option of one dialect under another, a -payer-key that is not a Pix key, and a key file
// pixpay cannot read are a bad command line. Under efi and openfinance, add takes -psp too,
// since the PSP's API decides the form of the key that add makes.
//
// Options come before the command, and a command's own options after it. DSN is a SQLite
// file path or a postgres:// URL; add and run create a SQLite file that is absent, and list
// reports it missing. The options before the command also take -max-age, -delay-base,
// -delay-max, -rescue-after, -poll, -fetch-cooldown, -outage-max, -psp-outage-max and
// -key-ttl, as described by durable.Config. -key-ttl (24h by default) is how long the PSP
// remembers a key, and must not exceed the PSP's own: past it, run looks a key up rather
// than send it again, and pays under a new key only what the PSP proves unpaid. Each attempt
// is bounded by 3 s, or a quarter of -key-ttl if that is shorter.
//
// add stores one intent and sends nothing. It prints {"id","key","status"} on one line and
// exits 0, also for an id already stored with the same payment. The same id with another
// payment, or an invalid payment, is refused on stderr with exit 1, and nothing is stored.
// Under openfinance each payment consumes a consent, and the line ends with its "consentId".
// add -consent ID stores the caller's. Without it, add asks the PSP for a new one, which the
// double authorises at once, unless the id is stored already: add again keeps its consent. A
// PSP that makes no consent, out of reach for one, fails add with exit 1, and nothing is
// stored.
//
// run logs on stderr what an operator should see: unknown outcomes, refusals, jobs taken over
// from a dead run, and River's warnings. A PSP that refuses -token (401 or 403) or cannot be
// reached at -psp is logged at ERROR with the option to check, once, then at most every 30 s
// while it lasts, in place of a record per attempt. run works intents until SIGINT or
// SIGTERM. It then stops taking work, waits up to 15 s for the attempts in flight, abandons
// the rest safely and exits 0. With -until-done it exits 0 once no intent is pending, and 1
// once every attempt for -psp-outage-max (1m by default) found the PSP refusing -token or out
// of reach, or every look at the database failed for -outage-max. Either way the intents
// stay pending under their keys, and a later run resumes them. Under openfinance it also exits
// 1 once every pending intent waits on a consent that the PSP no longer takes (422
// CONSENTIMENTO_INVALIDO or PAGAMENTO_DIVERGENTE_CONSENTIMENTO) under a key that may have
// left, such as a consent that another payment consumed after the key's first attempt got no
// answer, or, past the key's lifetime, a consent that a payment consumed whose paymentId is
// unknown (openfinance.ErrConsentConsumed). pix leaves such an outcome unknown, so a run would
// resend them until their keys' lifetime ends, and some for ever. The same 422 to a key's first
// attempt refuses its intent instead. When it ends, run prints a summary on stderr: the database's intents settled,
// refused and pending, and the first five pending ones, each with the error that keeps it
// waiting.
//
// With -metrics ADDR, run serves its metrics for a Prometheus scraper at http://ADDR/metrics:
// the payments, attempts and waits of its client (package pix/pixotel), River's jobs and the
// intents by status (package durable/durableotel). It prints "pixpay: metrics on
// http://HOST:PORT/metrics" on stderr before it works an intent, and serves them until it has
// stopped. An ADDR it cannot listen on is a bad command line. add and list ignore -metrics:
// they end before a scraper would come.
//
// With -webhook ADDR -webhook-secret-file FILE, run serves the PSP's webhooks at
// http://ADDR/, beside the workers, and says "pixpay: webhooks on http://HOST:PORT/" on stderr
// before it works an intent. Each delivery is verified with the secret of FILE (at least 32
// bytes, one trailing newline left out) as pix.WebhookHandler says, then applied with
// durable's ApplyWebhook: it settles or refuses its pending intent once, and answers only
// once the change is stored. With -dialect efi, the webhooks are Efí's callbacks for Pix sent,
// checked and decoded as pix/efi's WebhookHandler says: the URL registered with the PSP ends
// in ?hmac=<the secret of FILE>&ignorar=, and each entry's gnExtras.idEnvio is the key. A PSP that accepted a payment (202, EM_PROCESSAMENTO) leaves its
// intent pending until a webhook or run's own lookups learn how it ended, whichever comes
// first. An ADDR it cannot listen on, or a secret file missing or short, is a bad command line.
//
// list prints one line per intent, in id order: {"id","key","keys","status","endToEndId",
// "resumptions","firstSent","error"}, then "consentId" and the PSP's "paymentId" when the
// intent has them, as under openfinance. key is the current Idempotency-Key, and keys every key
// the intent used, oldest first, key last. resumptions counts the times run took the intent
// up under key, each recorded before it left: each sends the key up to 3 times, or looks it
// up, and the error's "attempt(s)" counts those requests. firstSent is when the first
// resumption under key left (RFC 3339, by the database's clock), or "" if none did. The status
// is pending, settled, refused, or overdue for a pending intent older than -max-age. Each line
// is printed as it is read, a page of intents at a time, so a large table is never held in
// memory. An error part way is reported on stderr with exit 1, after the lines already
// printed.
//
// A bad command line exits 2 with the problem and the usage on stderr, and a hint for an
// option on the wrong side of the command; an option out of range (a negative duration,
// -rescue-after below 10s, -delay-max below -delay-base, a -key-ttl of 0, a -psp that is not
// an http or https URL) included. help, -h or -help, wherever they appear, print the usage and
// exit 0. A DSN's password never appears in the output.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"pixretry/durable"
	"pixretry/internal/cmdline"
	"pixretry/internal/scrape"
)

func main() { cmdline.Main(run) }

// run carries out the command line in args.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runWith(ctx, args, stdout, stderr, durable.TestingKnobs{})
}

// runWith is run with knobs as the Payer's Config.Testing: the crash tests kill a run at its
// crash points through them.
func runWith(ctx context.Context, args []string, stdout, stderr io.Writer, knobs durable.TestingKnobs) error {
	o, fs, cmd, err := commandLine(args, stderr)
	if o != nil {
		o.cfg.Testing = knobs
	}
	if err == nil {
		err = o.dispatch(ctx, fs, cmd, stdout, stderr)
	}
	if err != nil && !errors.Is(err, cmdline.ErrUsage) && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(stderr, redact(err.Error(), dsn(o)))
	}
	return err
}

// dispatch opens the database of o.dsn and runs the command on it. For run under
// openfinance, it first fetches the keys that no file gave, and with -until-done watches for
// consents spent. For run with -metrics, it serves the metrics first and stops them last.
// Only add and run create a SQLite database.
func (o *options) dispatch(ctx context.Context, fs *flag.FlagSet, cmd command, stdout, stderr io.Writer) (err error) {
	if cmd.name == "run" && o.openFinance != nil {
		if err := ready(ctx, o.openFinance, o.cfg.Client.BaseURL); err != nil {
			return err
		}
	}
	if cmd.name == "run" && o.webhook != "" {
		if cmd.webhooks, err = o.listenWebhooks(fs, stderr); err != nil {
			return err
		}
		defer cmd.webhooks.Close() // served, it is closed by then; this covers a run that failed first
		cmd.secret, cmd.hookForm = o.secret, o.dialect
	}
	if cmd.name == "run" && o.metrics != "" {
		var metrics *scrape.Endpoint
		if metrics, cmd.telemetry, err = o.instrument(ctx, fs, stderr); err != nil {
			return err
		}
		defer func() {
			stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopTimeout)
			defer cancel()
			err = errors.Join(err, metrics.Shutdown(stopCtx))
		}()
	}
	if cmd.name == "run" && cmd.untilDone && o.openFinance != nil {
		cmd.watch = newConsentWatch(o.cfg.Client.Observer)
		o.cfg.Client.Observer = cmd.watch
	}
	if strings.HasPrefix(o.dsn, "postgres://") || strings.HasPrefix(o.dsn, "postgresql://") {
		p, closeDB, err := openPostgres(ctx, o.dsn, o.cfg)
		if err != nil {
			return err
		}
		defer closeDB()
		return do(ctx, p, cmd, stdout, stderr)
	}
	if cmd.name != "add" && cmd.name != "run" {
		if _, err := os.Stat(o.dsn); errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("pixpay %s: no database at %s: pixpay add creates one with the first intent", cmd.name, o.dsn)
		}
	}
	p, closeDB, err := openSQLite(ctx, o.dsn, o.cfg)
	if err != nil {
		return err
	}
	defer closeDB()
	return do(ctx, p, cmd, stdout, stderr)
}

// do runs cmd on p.
func do[TTx any](ctx context.Context, p *durable.Payer[TTx], cmd command, stdout, stderr io.Writer) error {
	out := json.NewEncoder(stdout)
	switch cmd.name {
	case "add":
		in, err := add(ctx, p, cmd)
		if err != nil {
			return err
		}
		return out.Encode(added{in.ID, in.Key, in.Status, in.Payment.ConsentID})
	case "list":
		for in, err := range p.Intents(ctx) {
			if err != nil {
				return err
			}
			if err := out.Encode(listing(in)); err != nil {
				return err
			}
		}
		return nil
	}
	err := work(ctx, p, cmd)
	return errors.Join(err, summarize(context.WithoutCancel(ctx), p, stderr))
}

// stopTimeout bounds the wait for attempts in flight when run stops.
const stopTimeout = 15 * time.Second

// work runs p until ctx ends or, with run's -until-done, until no intent is pending, or every
// pending one waits on a consent that will never pay it (cmd.watch). With -metrics, p's
// gauges are observed while it works.
func work[TTx any](ctx context.Context, p *durable.Payer[TTx], cmd command) (err error) {
	unobserve, err := observeIntents(p, cmd.telemetry)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, unobserve()) }()
	if cmd.webhooks != nil {
		stop := serveWebhooks(cmd.webhooks, webhookHandler(cmd.hookForm, cmd.secret, p.ApplyWebhook))
		defer func() {
			stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopTimeout)
			defer cancel()
			err = errors.Join(err, stop(stopCtx))
		}()
	}
	if err := p.Start(ctx); err != nil {
		if ctx.Err() != nil {
			return nil // interrupted while starting: nothing runs, as after an interrupt later
		}
		return err
	}
	if cmd.untilDone {
		err = waitUntilDone(ctx, p, cmd.watch)
	} else {
		<-ctx.Done()
	}
	if errors.Is(err, ctx.Err()) {
		err = nil // interrupted: stop as run does
	}
	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopTimeout)
	defer cancel()
	return errors.Join(err, p.Stop(stopCtx))
}

// added is add's line.
type added struct {
	ID        string         `json:"id"`
	Key       string         `json:"key"`
	Status    durable.Status `json:"status"`
	ConsentID string         `json:"consentId,omitempty"`
}

// listed is one of list's lines.
type listed struct {
	ID          string         `json:"id"`
	Key         string         `json:"key"`
	Keys        []string       `json:"keys"`
	Status      durable.Status `json:"status"`
	EndToEndID  string         `json:"endToEndId"`
	Resumptions int            `json:"resumptions"`
	FirstSent   string         `json:"firstSent"`
	Error       string         `json:"error"`
	ConsentID   string         `json:"consentId,omitempty"`
	PaymentID   string         `json:"paymentId,omitempty"`
}

// listing is in's line.
func listing(in durable.Intent) listed {
	l := listed{in.ID, in.Key, in.Keys, in.Status, in.EndToEndID, in.Attempts, "", in.Error, in.Payment.ConsentID,
		in.PaymentID}
	if !in.FirstSent.IsZero() {
		l.FirstSent = in.FirstSent.UTC().Format(time.RFC3339Nano)
	}
	return l
}

// dsn is o's -db, or "" without o.
func dsn(o *options) string {
	if o == nil {
		return ""
	}
	return o.dsn
}

// redact hides the password of dsn in msg.
func redact(msg, dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		return msg
	}
	if pw, ok := u.User.Password(); ok && pw != "" {
		msg = strings.ReplaceAll(msg, dsn, u.Redacted())
		msg = strings.ReplaceAll(msg, pw, "xxxxx")
	}
	return msg
}
