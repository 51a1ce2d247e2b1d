package main

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseFlagsDefaults(t *testing.T) {
	var stderr bytes.Buffer
	got, err := parseFlags(nil, &stderr)
	if err != nil {
		t.Fatalf("parseFlags(nil) error = %v", err)
	}
	want := options{PSP: "", Token: "test-token", Seed: 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parseFlags(nil) mismatch (-want +got):\n%s", diff)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr = %q, want nothing", stderr.String())
	}
}

func TestParseFlagsReadsEveryFlag(t *testing.T) {
	args := []string{"-psp", "http://127.0.0.1:8080/", "-token", "!other~token", "-seed", "18446744073709551615"}
	got, err := parseFlags(args, new(bytes.Buffer))
	if err != nil {
		t.Fatalf("parseFlags(%q) error = %v", args, err)
	}
	// The trailing slash goes, so that paths append cleanly.
	want := options{PSP: "http://127.0.0.1:8080", Token: "!other~token", Seed: 18446744073709551615}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parseFlags(%q) mismatch (-want +got):\n%s", args, diff)
	}
}

// A bad command line is refused by run before anything starts: exit status 2, and stderr says
// what was wrong and how to call the demo.
func TestRunRefusesABadCommandLine(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"seed not a number", []string{"-seed", "x"}, `invalid value "x" for flag -seed`},
		{"negative seed", []string{"-seed", "-1"}, `invalid value "-1" for flag -seed`},
		{"seed too large", []string{"-seed", "18446744073709551616"}, `invalid value "18446744073709551616" for flag -seed`},
		{"unknown flag", []string{"-nope"}, "flag provided but not defined: -nope"},
		{"flag without value", []string{"-psp"}, "flag needs an argument: -psp"},
		{"argument", []string{"extra"}, `unexpected argument "extra"`},
		{"argument after flags", []string{"-seed", "2", "extra"}, `unexpected argument "extra"`},
		{"empty token", []string{"-token", ""}, `-token "": want visible ASCII characters, no spaces`},
		{"token with a space", []string{"-token", "a b"}, `-token "a b": want visible ASCII characters, no spaces`},
		{"token with a control character", []string{"-token", "a\x1fb"}, `-token "a\x1fb": want visible ASCII characters, no spaces`},
		{"token with DEL", []string{"-token", "a\x7fb"}, `-token "a\x7fb": want visible ASCII characters, no spaces`},
		{"token not ASCII", []string{"-token", "tokén"}, `-token "tokén": want visible ASCII characters, no spaces`},
		{"psp not http", []string{"-psp", "ftp://127.0.0.1:8080"}, `-psp "ftp://127.0.0.1:8080": want the PSP's base URL`},
		{"psp without scheme", []string{"-psp", "127.0.0.1:8080"}, `-psp "127.0.0.1:8080": want the PSP's base URL`},
		{"psp without host", []string{"-psp", "http://"}, `-psp "http://": want the PSP's base URL`},
		{"psp with a query", []string{"-psp", "http://127.0.0.1:8080?x=1"}, `-psp "http://127.0.0.1:8080?x=1": want the PSP's base URL`},
		{"psp with a fragment", []string{"-psp", "http://127.0.0.1:8080#x"}, `-psp "http://127.0.0.1:8080#x": want the PSP's base URL`},
		{"psp unparsable", []string{"-psp", "http://[::1"}, `-psp "http://[::1": want the PSP's base URL`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(t.Context(), tt.args, &stdout, &stderr)
			if !errors.Is(err, errUsage) {
				t.Fatalf("run(%q) error = %v, want one wrapping errUsage", tt.args, err)
			}
			if got, want := exitCode(err), 2; got != want {
				t.Errorf("exitCode(%v) = %d, want %d", err, got, want)
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr = %q, want it to contain %q", stderr.String(), tt.want)
			}
			if !strings.Contains(stderr.String(), "usage: demo") {
				t.Errorf("stderr = %q, want the usage", stderr.String())
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout = %q, want nothing: the demo must not start", stdout.String())
			}
		})
	}
}

func TestRunHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := run(t.Context(), []string{"-h"}, &stdout, &stderr)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("run(-h) error = %v, want flag.ErrHelp", err)
	}
	if got, want := exitCode(err), 0; got != want {
		t.Errorf("exitCode(%v) = %d, want %d", err, got, want)
	}
	for _, want := range []string{"usage: demo", "-psp URL", "-token token", "-seed uint", `(default "test-token")`, "(default 1)"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr = %q, want it to contain %q", stderr.String(), want)
		}
	}
}

func TestExitCode(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, 0},
		{flag.ErrHelp, 0},
		{errUsage, 2},
		{errors.Join(errors.New("other"), errUsage), 2},
		{&expectationError{Scenario: 1, What: "x"}, 1},
		{errors.New("demo: GET /_psp/balance: connection refused"), 1},
	}
	for _, tt := range tests {
		if got := exitCode(tt.err); got != tt.want {
			t.Errorf("exitCode(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}
