package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"pixretry/durable"
	"pixretry/durable/durableotel"
	"pixretry/internal/cmdline"
	"pixretry/pix"
	"pixretry/retry"
)

// options is what the options before the command ask for.
type options struct {
	dsn     string
	cfg     durable.Config
	metrics string // where run serves its metrics, if anywhere (-metrics)
}

// command is the command after the options, with its own flags.
type command struct {
	name      string // add, run or list
	id        string
	payment   pix.Payment
	untilDone bool
	telemetry *durableotel.Config // run's metrics, with -metrics
}

// parseGlobal reads the options before the command.
func parseGlobal(args []string, stderr io.Writer) (*options, *flag.FlagSet, error) {
	fs := flag.NewFlagSet("pixpay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	o := &options{}
	fs.StringVar(&o.dsn, "db", "", "the database: a SQLite file path or a postgres:// URL")
	pspURL := fs.String("psp", "", "the PSP's base URL, for run")
	token := fs.String("token", "test-token", "the PSP's bearer token")
	fs.IntVar(&o.cfg.Workers, "workers", 10, "payments worked at once, for run")
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
	fs.DurationVar(&o.cfg.KeyTTL, "key-ttl", 24*time.Hour,
		"how long the PSP remembers a key; must not exceed the PSP's -key-ttl. Past it, a key is looked up, never sent again")
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return nil, fs, err
	case err != nil:
		return nil, fs, fmt.Errorf("%w: %w", cmdline.ErrUsage, err)
	case o.dsn == "":
		return nil, fs, cmdline.Refuse(fs, errors.New("pixpay: -db is required"))
	case o.cfg.Workers < 1:
		return nil, fs, cmdline.Refuse(fs, fmt.Errorf("pixpay: -workers %d: want 1 or more", o.cfg.Workers))
	case o.cfg.KeyTTL <= 0:
		return nil, fs, cmdline.Refuse(fs, fmt.Errorf("pixpay: -key-ttl %v: want more than 0", o.cfg.KeyTTL))
	}
	if err := o.cfg.Validate(); err != nil {
		// Config's fields are the options: RescueAfter is -rescue-after, DelayBase -delay-base.
		return nil, fs, cmdline.Refuse(fs, fmt.Errorf("pixpay: an option is out of range: %w", err))
	}
	o.cfg.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if *pspURL != "" {
		// An attempt must end well before the key's deadline: a short -key-ttl shortens it.
		o.cfg.Client = &pix.Client{BaseURL: *pspURL, Token: *token, AttemptTimeout: min(3*time.Second, o.cfg.KeyTTL/4),
			KeyTTL: o.cfg.KeyTTL,
			Policy: retry.Policy{AttemptsMax: 3, DelayBase: 100 * time.Millisecond, DelayMax: 2 * time.Second}}
	}
	return o, fs, nil
}

const usage = `usage:
  pixpay -db DSN add -id ID -valor 150.00 -chave KEY [-info TEXT]
  pixpay -db DSN -psp URL [-token T] [-workers N] [-key-ttl D] [-metrics ADDR] run [-until-done]
  pixpay -db DSN list
options:
`

// command reads the command after the options in fs.
func (o *options) command(fs *flag.FlagSet, stderr io.Writer) (command, error) {
	name := fs.Arg(0)
	cfs := flag.NewFlagSet("pixpay "+name, flag.ContinueOnError)
	cfs.SetOutput(stderr)
	cfs.Usage = func() {
		fs.Usage()
		fmt.Fprintf(cfs.Output(), "options of %s:\n", name)
		cfs.PrintDefaults()
	}
	c := command{name: name}
	var valor, chave, info string
	switch name {
	case "add":
		cfs.StringVar(&c.id, "id", "", "the payment's id, unique in the database")
		cfs.StringVar(&valor, "valor", "", "the amount, as in 150.00")
		cfs.StringVar(&chave, "chave", "", "the payee's Pix key")
		cfs.StringVar(&info, "info", "", "a message to the payee")
	case "run":
		cfs.BoolVar(&c.untilDone, "until-done", false, "exit once no intent is pending")
	case "list":
	default:
		return c, cmdline.Refuse(fs, fmt.Errorf("pixpay: command %q: want add, run or list", name))
	}
	err := cmdline.Parse(cfs, fs.Args()[1:], func() error {
		switch {
		case name == "add" && (c.id == "" || valor == "" || chave == ""):
			return errors.New("pixpay add: -id, -valor and -chave are required")
		case name == "run" && o.cfg.Client == nil:
			return errors.New("pixpay run: -psp is required")
		}
		return nil
	})
	if err != nil {
		return c, err
	}
	cents, err := parseValor(valor)
	c.payment = pix.Payment{AmountCents: cents, PixKey: chave, Description: info}
	if name == "add" && err != nil {
		return c, err
	}
	return c, nil
}

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
