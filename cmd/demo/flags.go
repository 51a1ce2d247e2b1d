package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strings"
)

// errUsage is wrapped by every error about the command line; main exits 2 on it.
var errUsage = errors.New("demo: bad usage")

// options are the demo's flags.
type options struct {
	PSP   string // base URL of an external cmd/psp; "" starts one in-process
	Token string // bearer token
	Seed  uint64 // seeds the jitter draws
}

// parseFlags reads the command line. On a bad one it writes the problem and the usage to
// stderr and returns an error wrapping errUsage; for -h or -help, one wrapping flag.ErrHelp.
func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: demo [-psp URL] [-token TOKEN] [-seed N]")
		fmt.Fprintln(fs.Output(), "Walks the five retry scenarios against a PSP and checks them against its ledger.")
		fs.PrintDefaults()
	}
	fs.StringVar(&o.PSP, "psp", "", "base `URL` of an external cmd/psp with its control API (default: start one in-process)")
	fs.StringVar(&o.Token, "token", "test-token", "bearer `token` for the PSP")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the jitter draws: the same seed gives the same waits")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		return o, fmt.Errorf("%w: %w", errUsage, err) // fs has printed the problem and the usage
	}
	if err := o.validate(fs.Args()); err != nil {
		fmt.Fprintln(stderr, err)
		fs.Usage()
		return o, err
	}
	o.PSP = strings.TrimSuffix(o.PSP, "/")
	return o, nil
}

// visibleASCII reports whether s is one or more characters from 0x21 to 0x7E, what a bearer
// token may hold.
func visibleASCII(s string) bool {
	for _, c := range []byte(s) {
		if c < 0x21 || c > 0x7e {
			return false
		}
	}
	return s != ""
}

// validate checks what the flag package cannot: no arguments, a usable URL, a token.
func (o options) validate(args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, args[0])
	}
	if !visibleASCII(o.Token) {
		return fmt.Errorf("%w: -token %q: want visible ASCII characters, no spaces", errUsage, o.Token)
	}
	if o.PSP == "" {
		return nil
	}
	u, err := url.Parse(o.PSP)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%w: -psp %q: want the PSP's base URL, such as http://127.0.0.1:8080", errUsage, o.PSP)
	}
	return nil
}
