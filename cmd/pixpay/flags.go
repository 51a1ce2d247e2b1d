package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"pixretry/durable"
	"pixretry/durable/durableotel"
	"pixretry/internal/cmdline"
	"pixretry/pix"
	"pixretry/pix/openfinance"
	efipsp "pixretry/psp/efi"
	"pixretry/retry"
)

// options is what the options before the command ask for.
type options struct {
	dsn     string
	cfg     durable.Config
	metrics string // where run serves its metrics, if anywhere (-metrics)
	webhook string // where run serves the PSP's webhooks, if anywhere (-webhook)
	secret  []byte // the webhooks' secret (-webhook-secret-file)

	dialect     cmdline.Dialect      // the PSP's payments API (-dialect)
	payerKey    string               // the payer's Pix key, with -dialect efi (-payer-key)
	openFinance *openfinance.Dialect // with -dialect openfinance, its Dialect; nil with another
}

// command is the command after the options, with its own flags.
type command struct {
	name      string // add, run or list
	id        string
	payment   pix.Payment
	untilDone bool
	telemetry *durableotel.Config // run's metrics, with -metrics
	webhooks  net.Listener        // where run serves webhooks, with -webhook
	secret    []byte              // their secret
	hookForm  cmdline.Dialect     // whose webhooks they are: efi's form with -dialect efi, else the double's own
	// newConsent makes the consent of add's payment, with -dialect openfinance and without
	// -consent. It is nil otherwise.
	newConsent func(context.Context, pix.Payment) (string, error)
	// watch notes the intents whose consent will never pay them, for run -until-done with
	// -dialect openfinance. It is nil otherwise.
	watch *consentWatch
}

// commands are the commands, in the usage's order.
var commands = []string{"add", "run", "list"}

// commandLine reads the options, the command and its options, and checks them. On a bad
// command line it writes the problem, the usage and, for an option on the wrong side of the
// command, a hint to stderr, and returns an error wrapping cmdline.ErrUsage. For help (-h,
// -help or the command help, wherever it appears) it writes the usage and returns
// flag.ErrHelp.
func commandLine(args []string, stderr io.Writer) (*options, *flag.FlagSet, command, error) {
	o := &options{}
	pspURL, token, secretFile, fs := o.flags(stderr)
	signingKey, pspKeys := o.dialectFlags(fs)
	cfs := map[string]*flag.FlagSet{}
	var c command
	var valor, chave, info, consent string
	for _, name := range commands {
		cfs[name] = c.flags(name, &valor, &chave, &info, &consent, stderr)
	}
	fs.Usage = func() { printUsage(fs.Output(), fs, cfs) }
	if err := fs.Parse(args); err != nil {
		return nil, fs, c, misplaced(fs, err, cfs)
	}
	c.name = fs.Arg(0)
	if c.name == "help" {
		fs.Usage()
		return nil, fs, c, flag.ErrHelp
	}
	if c.name == "" {
		return nil, fs, c, cmdline.Refuse(fs, errors.New("pixpay: a command is required: add, run or list"))
	}
	sub, ok := cfs[c.name]
	if !ok {
		return nil, fs, c, cmdline.Refuse(fs, fmt.Errorf("pixpay: command %q: want add, run, list or help", c.name))
	}
	sub.Usage = fs.Usage
	if err := sub.Parse(fs.Args()[1:]); err != nil {
		return nil, fs, c, misplaced(fs, err, cfs)
	}
	if sub.Arg(0) == "help" {
		fs.Usage()
		return nil, fs, c, flag.ErrHelp
	}
	if err := o.checkDialect(fs, sub, c.name, *pspURL, *signingKey, *pspKeys); err != nil {
		return nil, fs, c, cmdline.Refuse(fs, err)
	}
	if err := o.check(fs, sub, c.name, *pspURL, *token, valor, chave); err != nil {
		return nil, fs, c, cmdline.Refuse(fs, err)
	}
	if err := o.checkWebhook(*secretFile); err != nil {
		return nil, fs, c, cmdline.Refuse(fs, err)
	}
	if c.name == "add" {
		cents, err := parseValor(valor)
		if err != nil {
			return nil, fs, c, err
		}
		c.payment = pix.Payment{AmountCents: cents, PixKey: chave, Description: info, ConsentID: consent}
		if o.openFinance != nil && consent == "" {
			c.newConsent = newConsent(o.openFinance, o.cfg.Client)
		}
	}
	return o, fs, c, nil
}

// flags defines the options before the command on a new FlagSet that writes to stderr, and
// returns it with where -psp and -token go.
func (o *options) flags(stderr io.Writer) (pspURL, token, secretFile *string, fs *flag.FlagSet) {
	fs = flag.NewFlagSet("pixpay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.dsn, "db", "", "the database: a SQLite file path or a postgres:// URL")
	pspURL = fs.String("psp", "", "the PSP's base `URL`, such as http://127.0.0.1:8080, for run")
	token = fs.String("token", "test-token", "the PSP's bearer token, for run")
	fs.IntVar(&o.cfg.Workers, "workers", 10, "payments worked at once, for run")
	fs.StringVar(&o.webhook, "webhook", "", "an `address` to serve the PSP's webhooks on, at its root path, for run (default none)")
	secretFile = fs.String("webhook-secret-file", "", "a `file` holding the webhooks' secret: at least 32 bytes, one trailing newline left out")
	fs.StringVar(&o.metrics, "metrics", "", "an `address` to serve run's metrics on, at /metrics, for a Prometheus scraper (default none)")
	fs.DurationVar(&o.cfg.MaxAge, "max-age", 24*time.Hour, "age past which a pending intent is listed as overdue")
	fs.DurationVar(&o.cfg.DelayBase, "delay-base", 10*time.Second, "the wait after a first unknown outcome, doubled after each")
	fs.DurationVar(&o.cfg.DelayMax, "delay-max", 5*time.Minute, "the longest wait after an unknown outcome")
	fs.DurationVar(&o.cfg.RescueAfter, "rescue-after", 15*time.Second,
		"on Postgres, how long a job may run before another process takes it over (at least 10s)")
	fs.DurationVar(&o.cfg.PollInterval, "poll", time.Second, "how often an idle run looks for new intents")
	fs.DurationVar(&o.cfg.FetchCooldown, "fetch-cooldown", time.Millisecond,
		"the shortest time between two fetches of jobs while workers free up, from 1ms to -poll")
	fs.DurationVar(&o.cfg.OutageMax, "outage-max", time.Minute,
		"how long run -until-done rides out a database that fails every look for pending intents before it exits 1")
	fs.DurationVar(&o.cfg.PSPOutageMax, "psp-outage-max", time.Minute,
		"how long run -until-done rides out a PSP that refuses -token or cannot be reached at -psp before it exits 1")
	fs.DurationVar(&o.cfg.KeyTTL, "key-ttl", 24*time.Hour,
		"how long the PSP remembers a key; must not exceed the PSP's -key-ttl. Past it, a key is looked up, never sent again")
	return pspURL, token, secretFile, fs
}

// dialectFlags defines on fs the options of -dialect and of the dialects, and returns where
// -signing-key and -psp-keys go.
func (o *options) dialectFlags(fs *flag.FlagSet) (signingKey, pspKeys *string) {
	o.dialect = cmdline.DialectPix
	fs.Var(&o.dialect, "dialect", "the PSP's payments API, a `dialect`: pix (the double's own), efi (Efí's payouts) "+
		"or openfinance (Open Finance Brasil payments v4) (default pix)")
	fs.StringVar(&o.payerKey, "payer-key", efipsp.PayerKey,
		"with -dialect efi, the paying account's Pix `key`, sent as pagador.chave; the default is the double's payer")
	signingKey = fs.String("signing-key", "", "with -dialect openfinance, a PEM `file` holding the RSA key that signs "+
		"requests (default: the key the double at -psp hands out)")
	pspKeys = fs.String("psp-keys", "", "with -dialect openfinance, a `file` holding the PSP's JWK Set, which verifies "+
		"its answers (default: the one the double at -psp publishes)")
	return signingKey, pspKeys
}

// checkWebhook reads the webhooks' secret of secretFile: -webhook and -webhook-secret-file
// come together.
func (o *options) checkWebhook(secretFile string) (err error) {
	switch {
	case o.webhook == "" && secretFile == "":
		return nil
	case o.webhook == "":
		return errors.New("pixpay: -webhook-secret-file needs -webhook, the address to serve webhooks on")
	case secretFile == "":
		return errors.New("pixpay: -webhook needs -webhook-secret-file, the secret the PSP signs them with")
	}
	o.secret, err = readSecret(secretFile)
	return err
}

// flags defines the options of the command name on a new FlagSet that writes to stderr.
func (c *command) flags(name string, valor, chave, info, consent *string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("pixpay "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	switch name {
	case "add":
		fs.StringVar(&c.id, "id", "", "the payment's id, unique in the database")
		fs.StringVar(valor, "valor", "", "the amount in reais, as in 150.00")
		fs.StringVar(chave, "chave", "", "the payee's Pix key: a CPF, a CNPJ, a phone as +5511987654321, an e-mail or an EVP")
		fs.StringVar(info, "info", "", "a message to the payee")
		fs.StringVar(consent, "consent", "", "with -dialect openfinance, the payer's consent `ID` that the payment "+
			"consumes (default: a new one the PSP makes)")
	case "run":
		fs.BoolVar(&c.untilDone, "until-done", false, "exit once no intent is pending")
	}
	return fs
}

// check checks what the flag package cannot: the options every command needs, the command's
// own, and the ranges. It then makes o's Client for -psp and -token, and o's Logger.
func (o *options) check(fs, sub *flag.FlagSet, name, pspURL, token, valor, chave string) error {
	switch {
	case sub.NArg() > 0:
		return fmt.Errorf("pixpay %s: unexpected argument %q", name, sub.Arg(0))
	case o.dsn == "":
		return errors.New("pixpay: -db is required: a SQLite file path or a postgres:// URL")
	case name == "add" && (sub.Lookup("id").Value.String() == "" || valor == "" || chave == ""):
		return errors.New("pixpay add: -id, -valor and -chave are required")
	case name == "run" && pspURL == "":
		return errors.New("pixpay run: -psp is required: the PSP's base URL, such as http://127.0.0.1:8080")
	case o.cfg.Workers < 1:
		return fmt.Errorf("pixpay: -workers %d: want 1 or more", o.cfg.Workers)
	case o.cfg.KeyTTL <= 0:
		return fmt.Errorf("pixpay: -key-ttl %v: want more than 0", o.cfg.KeyTTL)
	}
	if pspURL != "" {
		if u, err := url.Parse(pspURL); err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
			return fmt.Errorf("pixpay: -psp %q: want an http or https URL, such as http://127.0.0.1:8080", pspURL)
		}
		// An attempt must end well before the key's deadline: a short -key-ttl shortens it.
		o.cfg.Client = &pix.Client{BaseURL: pspURL, Token: token, AttemptTimeout: min(3*time.Second, o.cfg.KeyTTL/4),
			KeyTTL: o.cfg.KeyTTL, Dialect: o.payDialect(),
			Policy: retry.Policy{AttemptsMax: 3, DelayBase: 100 * time.Millisecond, DelayMax: 2 * time.Second}}
	}
	if err := o.cfg.Validate(); err != nil {
		return fmt.Errorf("pixpay: an option is out of range: %s", inFlags(err))
	}
	o.cfg.Advice = advice
	o.cfg.Logger = slog.New(slog.NewTextHandler(fs.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	return nil
}

// advice says which option fixes a durable.Trouble.
func advice(t durable.Trouble) string {
	if t == durable.TroubleCredentials {
		return "check -token, the bearer token the PSP expects"
	}
	return "check -psp, and that the PSP runs there"
}

// inFlags is err, an error of durable.Config.Validate, with the options in place of the
// fields they set.
func inFlags(err error) string {
	return strings.NewReplacer(
		"durable: invalid config: ", "", "retry: invalid policy: ", "",
		"PSPOutageMax", "-psp-outage-max", "OutageMax", "-outage-max",
		"DelayBase", "-delay-base", "DelayMax", "-delay-max", "RescueAfter", "-rescue-after",
		"PollInterval", "-poll", "FetchCooldown", "-fetch-cooldown", "MaxAge", "-max-age",
		"KeyTTL", "-key-ttl", "Workers", "-workers", "JobTimeout", "the job timeout",
	).Replace(err.Error())
}

// misplaced turns err, a parse error of fs or of a command's FlagSet, which the flag package
// has already written with the usage, into a bad command line. For -h it returns
// flag.ErrHelp. For an option defined on the other side of the command, it first writes a
// hint that says where the option goes.
func misplaced(fs *flag.FlagSet, err error, cfs map[string]*flag.FlagSet) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	name = strings.TrimLeft(name, "-")
	switch {
	case !ok:
	case fs.Lookup(name) != nil:
		fmt.Fprintf(fs.Output(), "hint: -%s is an option of pixpay, not of a command: put it before the command, "+
			"as in pixpay -db DSN -%[1]s ... run\n", name)
	default:
		for _, c := range commands {
			if cfs[c].Lookup(name) != nil {
				fmt.Fprintf(fs.Output(), "hint: -%s is an option of %s: put it after the command, as in pixpay -db DSN %[2]s -%[1]s\n",
					name, c)
				break
			}
		}
	}
	return fmt.Errorf("%w: %w", cmdline.ErrUsage, err)
}

// printUsage writes the usage of pixpay, with its options and each command's, to w.
func printUsage(w io.Writer, fs *flag.FlagSet, cfs map[string]*flag.FlagSet) {
	fmt.Fprint(w, usage)
	fs.PrintDefaults()
	for _, name := range commands {
		sub := cfs[name]
		n := 0
		sub.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintf(w, "options of %s, after it:\n", name)
			sub.PrintDefaults()
		}
	}
}

const usage = `usage:
  pixpay -db DSN [-dialect D ... -psp URL] add -id ID -valor 150.00 -chave KEY [-info TEXT] [-consent ID]
  pixpay -db DSN -psp URL [-dialect D ...] [-token T] [-workers N] [-key-ttl D] [-metrics ADDR]
         [-webhook ADDR -webhook-secret-file FILE] run [-until-done]
  pixpay -db DSN list
  pixpay help
Options come before the command, and a command's own options after it.
-dialect is the PSP's payments API: pix, the double's own (the default); efi, Efí's payouts,
paid from the Pix key -payer-key; or openfinance, Open Finance Brasil payments v4, signed
with -signing-key and verified with -psp-keys. Without those two files, pixpay fetches the
keys the double at -psp hands out, as a sandbox hands out credentials. Under efi and
openfinance, add takes -psp too: the PSP's API decides the form of an intent's key. Under
openfinance each payment consumes a consent: add -consent stores the caller's, and add
without it asks the PSP for a new one, which the double authorises at once.
options:
`

// parseValor reads an amount such as 150.00: digits, a dot and two digits.
func parseValor(s string) (int64, error) {
	whole, cents, ok := strings.Cut(s, ".")
	if !ok || len(cents) != 2 || whole == "" || len(whole) > 10 || !digits(whole) || !digits(cents) {
		return 0, fmt.Errorf("%w: -valor %q: want digits, a dot and 2 digits, as in 150.00", pix.ErrInvalidPayment, s)
	}
	w, _ := strconv.ParseInt(whole, 10, 64)
	c, _ := strconv.ParseInt(cents, 10, 64)
	return w*100 + c, nil
}

// digits reports whether s holds ASCII digits only.
func digits(s string) bool {
	return strings.Trim(s, "0123456789") == ""
}
