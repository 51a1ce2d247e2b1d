// Command demo walks the Retry Pattern's five scenarios against a Pix PSP and checks each one
// against the PSP's own ledger.
//
// By default it serves the PSP simulator (package psp) in-process on a loopback port. With -psp
// it drives an external cmd/psp instead, through the same HTTP control API, with
// -control-token if that PSP has one. It resets the PSP,
// then pays with a pix.Client that retries (4 attempts, waits of up to 50 ms·2^(n−1) capped at
// 400 ms, 300 ms per attempt):
//
//  1. the PSP answers on the first attempt;
//  2. it answers 503 twice, and the third attempt succeeds;
//  3. it settles but answers after the attempt timeout, and the retry gets the stored answer;
//  4. an amount above the balance is refused, and not retried;
//  5. it is down for longer than the retry budget, so the payment fails with its outcome unknown.
//
// The faults of each scenario are a file of psp/scenarios, which cmd/psp -faults loads too.
//
// -dialect chooses the payments API that the client speaks and the PSP serves: pix, the
// double's own (the default), efi, Efí's Pix payouts (packages pix/efi and psp/efi), or
// openfinance, Open Finance Brasil payments v4 (packages pix/openfinance and psp/openfinance).
// The scenarios are the same in each, and so are the checks against the ledger. What must come
// of them differs where the APIs do, and expectations.go holds it per dialect. In efi a first
// PUT answers EM_PROCESSAMENTO, so Send ends with pix.ErrPending and the demo awaits the payment
// (Client.AwaitRef), which a lookup finds settled. An overdraft is Efí's pagamento_negado,
// pix.ErrRejected. In openfinance each payment first needs a consent, which the demo asks the
// PSP for (POST /consents, one request per payment), and the client signs with the key that
// the PSP hands out at its client-key path, as a sandbox hands out credentials. The client
// makes the endToEndId there, and the ledger holds it as in the other dialects. An external
// PSP must speak the dialect asked for (psp -dialect): the demo probes it first, and names
// both dialects when they differ.
//
// It prints one log line per attempt, a summary, and "PSP recorded 3 settlements for 3
// successful payments". The summary counts, per payment, the payment requests (attempts) and,
// in a dialect that looks payments up, the lookups that the PSP received, as its control API
// counts them. The demo holds them equal to the requests its client sent. Beside the ledger,
// the summary shows the client's own metrics, recorded by package pix/pixotel and read from a
// MeterProvider in the demo: payments and attempts by outcome, and retries. It exits 1 if an
// expectation fails, naming the scenario and what differed, or if the PSP cannot be driven. It
// exits 2 on a bad command line, after printing the problem and the usage on stderr.
//
// Usage:
//
//	demo [-psp URL] [-dialect pix|efi|openfinance] [-token TOKEN] [-control-token TOKEN] [-seed N]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"pixretry/internal/cmdline"
	"pixretry/psp"
	"pixretry/psp/control"
)

func main() { cmdline.Main(run) }

// run parses args, finds or starts the PSP and runs the demo. The report goes to stdout and
// every problem to stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	t, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	defer transport.CloseIdleConnections()
	t.Transport, t.Out = transport, stdout
	if !t.External {
		stop, err := serveLocal(t)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return err
		}
		defer stop()
	}
	if err := demo(ctx, t); err != nil {
		fmt.Fprintf(stderr, "demo FAILED:\n%v\n", err)
		return err
	}
	return nil
}

// parseFlags reads the command line into a target without its Transport and Out.
func parseFlags(args []string, stderr io.Writer) (*target, error) {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	t := &target{Dialect: dialects[0]}
	fs.StringVar(&t.BaseURL, "psp", "", "base `URL` of an external cmd/psp (default: serve one in-process)")
	fs.Func("dialect", "the payments API that the client speaks and the PSP must serve (psp -dialect), a `dialect`: "+
		"pix (the double's own, the default), efi (Efí's payouts) or openfinance (Open Finance Brasil payments v4)", func(name string) (err error) {
		t.Dialect, err = dialectNamed(name)
		return err
	})
	fs.StringVar(&t.Token, "token", psp.DefaultToken, "bearer `token` for the PSP")
	fs.StringVar(&t.ControlToken, "control-token", "", "bearer `token` for the PSP's control API, if it has one")
	fs.Uint64Var(&t.Seed, "seed", 1, "seed of the jitter draws: the same seed gives the same waits")
	err := cmdline.Parse(fs, args, func() error {
		srv, err := psp.NewServer(psp.Config{Tokens: []string{t.Token}})
		if err != nil {
			return fmt.Errorf("demo: -token %q: want visible ASCII without spaces", t.Token)
		}
		if _, err := control.NewHandler(srv, control.Options{Token: t.ControlToken}); err != nil {
			return fmt.Errorf("demo: -control-token: want visible ASCII without spaces")
		}
		t.BaseURL, t.External = strings.TrimSuffix(t.BaseURL, "/"), t.BaseURL != ""
		u, err := url.Parse(t.BaseURL)
		if t.External && (err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.RawQuery != "" || u.Fragment != "") {
			return fmt.Errorf("demo: -psp %q: want the PSP's base URL, such as http://127.0.0.1:8080", t.BaseURL)
		}
		return nil
	})
	return t, err
}

// serveLocal serves the PSP simulator, with its control API and t.Token, speaking t.Dialect, on
// a loopback port the system picks, and sets t.BaseURL to it. The PSP logs nothing, so the
// output is the client's view. stop closes it and every connection to it.
func serveLocal(t *target) (stop func() error, err error) {
	cfg := psp.DefaultConfig()
	cfg.Tokens = []string{t.Token}
	bank, err := psp.NewServer(cfg)
	if err != nil {
		return nil, fmt.Errorf("demo: the in-process PSP: %w", err)
	}
	payments, err := t.Dialect.Serve(bank)
	if err != nil {
		return nil, fmt.Errorf("demo: the in-process PSP: %w", err)
	}
	h, err := control.NewHandler(bank, control.Options{Payments: payments})
	if err != nil {
		return nil, fmt.Errorf("demo: the in-process PSP: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("demo: the in-process PSP: %w", err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.BaseURL = "http://" + ln.Addr().String()
	return srv.Close, nil
}
