package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"net/http/httptest"
	"strings"
	"testing"

	"pixretry/internal/cmdline"
	"pixretry/psp"
	"pixretry/psp/control"
)

// `make demo` itself: run with no flags, against the in-process PSP over real loopback. This is
// the one test that spends real time (about half a second of the demo's own backoff and attempt
// timeouts). The timing cannot decide its verdict, because every fault is sized with a wide
// margin against the policy (see TestFaultsAreSizedAgainstThePolicy).
func TestRunOverLoopback(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), nil, &stdout, &stderr); err != nil {
		t.Fatalf("run() error = %v\nstderr:\n%s\nstdout:\n%s", err, stderr.String(), stdout.String())
	}
	if got, want := lastLine(stdout.String()), "PSP recorded 3 settlements for 3 successful payments"; got != want {
		t.Errorf("last line = %q, want %q", got, want)
	}
	if !strings.HasPrefix(stdout.String(), "pix retry demo against an in-process PSP (seed 1)\n") || stderr.Len() != 0 {
		t.Errorf("stdout = %q, stderr = %q; want the in-process PSP and seed 1, and nothing on stderr", stdout.String(), stderr.String())
	}
}

// `go run ./cmd/demo -dialect NAME`: the demo over real loopback against the in-process PSP
// speaking each dialect but the default, which TestRunOverLoopback runs.
func TestRunOverLoopbackInEachDialect(t *testing.T) {
	for _, d := range dialects[1:] {
		t.Run(d.Name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if err := run(t.Context(), []string{"-dialect", d.Name}, &stdout, &stderr); err != nil {
				t.Fatalf("run() error = %v\nstderr:\n%s\nstdout:\n%s", err, stderr.String(), stdout.String())
			}
			if got, want := lastLine(stdout.String()), "PSP recorded 3 settlements for 3 successful payments"; got != want {
				t.Errorf("last line = %q, want %q", got, want)
			}
			want := "pix retry demo against an in-process PSP, in dialect " + d.Name + " (seed 1)\n"
			if !strings.HasPrefix(stdout.String(), want) || stderr.Len() != 0 {
				t.Errorf("stdout = %q, stderr = %q; want it to start %q, and nothing on stderr", stdout.String(), stderr.String(), want)
			}
		})
	}
}

// -psp, -token, -control-token and -seed reach the demo: an external PSP that accepts only
// another token than the default, and has a control token, settles the demo's payments, and the
// demo names that PSP and seed.
func TestRunTakesEachFlag(t *testing.T) {
	cfg := psp.DefaultConfig()
	cfg.Tokens = []string{"other-token"}
	ts := httptest.NewServer(mustControl(t, must(psp.NewServer(cfg)), control.Options{Token: "ctl"}))
	defer ts.Close()
	var stdout, stderr bytes.Buffer
	args := []string{"-psp", ts.URL + "/", "-token", "other-token", "-control-token", "ctl", "-seed", "7"}
	if err := run(t.Context(), args, &stdout, &stderr); err != nil {
		t.Fatalf("run() error = %v\nstderr:\n%s", err, stderr.String())
	}
	if want := "pix retry demo against the PSP at " + ts.URL + " (seed 7)\n"; !strings.HasPrefix(stdout.String(), want) {
		t.Errorf("stdout = %q, want it to start %q", stdout.String(), want)
	}
}

// -dialect reaches the demo: an external PSP that speaks Open Finance settles the demo's
// payments in that dialect, which the demo signs with the client key the PSP hands out.
func TestRunTakesTheDialect(t *testing.T) {
	srv := must(psp.NewServer(psp.DefaultConfig()))
	ts := httptest.NewServer(mustControl(t, srv, control.Options{Payments: must(openfinanceDialect.Serve(srv))}))
	defer ts.Close()
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"-psp", ts.URL, "-dialect", "openfinance"}, &stdout, &stderr); err != nil {
		t.Fatalf("run() error = %v\nstderr:\n%s", err, stderr.String())
	}
	want := "pix retry demo against the PSP at " + ts.URL + ", in dialect openfinance (seed 1)\n"
	if !strings.HasPrefix(stdout.String(), want) || lastLine(stdout.String()) != "PSP recorded 3 settlements for 3 successful payments" {
		t.Errorf("stdout = %q, want it to start %q and end with the closing line", stdout.String(), want)
	}
}

// A -dialect that names none of the demo's is a bad command line, and the problem names those
// it accepts.
func TestRunRefusesAnUnknownDialect(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := run(t.Context(), []string{"-dialect", "stripe"}, &stdout, &stderr)
	want := "invalid value \"stripe\" for flag -dialect: want pix, efi or openfinance\nUsage of demo:"
	if got := cmdline.ExitCode(err); got != 2 || !strings.HasPrefix(stderr.String(), want) || stdout.Len() != 0 {
		t.Errorf("run(-dialect stripe) exit code %d, stdout %q, stderr %q; want 2 and stderr starting %q",
			got, stdout.String(), stderr.String(), want)
	}
}

// A PSP that cannot be driven fails the run with exit code 1 and says so on stderr.
func TestRunReportsAFailure(t *testing.T) {
	ts := httptest.NewServer(must(psp.NewServer(psp.DefaultConfig()))) // no control API
	defer ts.Close()
	var stderr bytes.Buffer
	err := run(t.Context(), []string{"-psp", ts.URL}, &bytes.Buffer{}, &stderr)
	if got := cmdline.ExitCode(err); got != 1 || !strings.HasPrefix(stderr.String(), "demo FAILED:\ncontrol: POST /_psp/reset: status 404, want 204") {
		t.Errorf("run() exit code %d, stderr %q; want 1 and the failed reset", got, stderr.String())
	}
}

func TestRunStopsWhenInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := run(ctx, nil, &bytes.Buffer{}, &bytes.Buffer{}); !errors.Is(err, context.Canceled) {
		t.Errorf("run() with a canceled context = %v, want %v", err, context.Canceled)
	}
}

func TestRunRefusesABadCommandLine(t *testing.T) {
	tests := map[string][]string{
		"unknown flag":          {"-nope"},
		"an argument":           {"now"},
		"seed not a number":     {"-seed", "one"},
		"token with a space":    {"-token", "a b"},
		"empty token":           {"-token", ""},
		"control token spaced":  {"-control-token", "a b"},
		"psp not a URL":         {"-psp", "127.0.0.1:8080"},
		"psp of another kind":   {"-psp", "ftp://127.0.0.1"},
		"psp without a host":    {"-psp", "http://"},
		"psp with a query":      {"-psp", "http://127.0.0.1:8080?x=1"},
		"psp with a fragment":   {"-psp", "http://127.0.0.1:8080#x"},
		"psp that cannot parse": {"-psp", "http://[::1"},
		"unknown dialect":       {"-dialect", "nope"},
		"dialect in capitals":   {"-dialect", "EFI"},
		"empty dialect":         {"-dialect", ""},
	}
	for name, args := range tests {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(t.Context(), args, &stdout, &stderr)
			if got := cmdline.ExitCode(err); got != 2 || !strings.Contains(stderr.String(), "Usage of demo:") || stdout.Len() != 0 {
				t.Errorf("run(%q) exit code %d, stdout %q, stderr %q; want 2 and the usage on stderr only", args, got, stdout.String(), stderr.String())
			}
		})
	}
}

func TestRunHelp(t *testing.T) {
	var stderr bytes.Buffer
	err := run(t.Context(), []string{"-h"}, &bytes.Buffer{}, &stderr)
	if !errors.Is(err, flag.ErrHelp) || cmdline.ExitCode(err) != 0 || !strings.Contains(stderr.String(), "-seed") ||
		!strings.Contains(stderr.String(), "-dialect dialect") {
		t.Errorf("run(-h) = %v, stderr %q; want flag.ErrHelp, exit code 0 and the usage", err, stderr.String())
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
