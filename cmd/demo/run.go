package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
)

// run is the whole program but for the exit status: it parses args, finds or starts the PSP,
// and runs the demo, writing its report to stdout and every problem to stderr. The error it
// returns wraps errUsage for a bad command line (see exitCode).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	defer transport.CloseIdleConnections()
	t := target{
		BaseURL:  o.PSP,
		Token:    o.Token,
		Client:   &http.Client{Transport: transport},
		Seed:     o.Seed,
		Out:      stdout,
		External: o.PSP != "",
	}
	if !t.External {
		local, err := startLocalPSP(o.Token)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return err
		}
		defer func() {
			if err := local.stop(); err != nil {
				fmt.Fprintln(stderr, err)
			}
		}()
		t.BaseURL = local.URL
	}
	if err := demo(ctx, t); err != nil {
		fmt.Fprintf(stderr, "demo FAILED:\n%v\n", err)
		return err
	}
	return nil
}
