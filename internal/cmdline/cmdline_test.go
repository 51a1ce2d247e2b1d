package cmdline

import (
	"errors"
	"flag"
	"strings"
	"testing"
)

// parse runs Parse with a flag -n and check, and returns what it printed and its error.
func parse(args []string, check func() error) (string, error) {
	var out strings.Builder
	fs := flag.NewFlagSet("cmd", flag.ContinueOnError)
	fs.SetOutput(&out)
	fs.Int("n", 0, "a number")
	err := Parse(fs, args, check)
	return out.String(), err
}

func TestParse(t *testing.T) {
	refuse := func() error { return errors.New("cmd: -n is odd") }
	accept := func() error { return nil }
	tests := []struct {
		name      string
		args      []string
		check     func() error
		want      error  // matched with errors.Is
		wantPrint string // in the output; "" for no output at all
	}{
		{"good", []string{"-n", "2"}, accept, nil, ""},
		{"help", []string{"-h"}, accept, flag.ErrHelp, "Usage of cmd"},
		{"unknown flag", []string{"-x"}, accept, ErrUsage, "flag provided but not defined: -x"},
		{"bad value", []string{"-n", "two"}, accept, ErrUsage, `invalid value "two" for flag -n`},
		{"check refuses", []string{"-n", "3"}, refuse, ErrUsage, "cmd: -n is odd\nUsage of cmd"},
		{"an argument", []string{"-n", "2", "extra"}, accept, ErrUsage, "cmd: unexpected argument \"extra\"\nUsage of cmd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := parse(tt.args, tt.check)
			if !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
				t.Errorf("Parse(%q) = %v, want %v", tt.args, err, tt.want)
			}
			if !strings.Contains(out, tt.wantPrint) || (tt.wantPrint == "") != (out == "") {
				t.Errorf("Parse(%q) printed %q, want %q in it", tt.args, out, tt.wantPrint)
			}
		})
	}
}

func TestRefuse(t *testing.T) {
	var out strings.Builder
	fs := flag.NewFlagSet("cmd", flag.ContinueOnError)
	fs.SetOutput(&out)
	taken := errors.New("cmd: -addr :80: address already in use")
	err := Refuse(fs, taken)
	if !errors.Is(err, ErrUsage) || !errors.Is(err, taken) || ExitCode(err) != 2 {
		t.Errorf("Refuse() = %v (exit %d), want one wrapping %v and %v (exit 2)", err, ExitCode(err), ErrUsage, taken)
	}
	if got, want := out.String(), "cmd: -addr :80: address already in use\nUsage of cmd"; !strings.HasPrefix(got, want) {
		t.Errorf("Refuse() printed %q, want %q first", got, want)
	}
}

func TestExitCode(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, 0},
		{flag.ErrHelp, 0},
		{ErrUsage, 2},
		{errors.Join(errors.New("-psp"), ErrUsage), 2},
		{errors.New("the PSP cannot be reached"), 1},
	}
	for _, tt := range tests {
		if got := ExitCode(tt.err); got != tt.want {
			t.Errorf("ExitCode(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}
