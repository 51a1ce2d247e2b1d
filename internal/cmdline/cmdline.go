// Package cmdline is how the module's commands (cmd/psp, cmd/demo, cmd/pixpay) read their
// command line and exit. A command exits 0 when it succeeds or prints its usage for -h, 2 on a
// bad command line and 1 on any other failure. On a bad command line the problem and the usage
// go to stderr. Dialect is the -dialect flag the three share.
package cmdline

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Main is a command's main function. It calls run with the command's arguments and standard
// streams, under a context that SIGINT and SIGTERM end, and exits with ExitCode of its error.
func Main(run func(ctx context.Context, args []string, stdout, stderr io.Writer) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(ExitCode(err))
}

// ErrUsage is wrapped by every error about a bad command line.
var ErrUsage = errors.New("bad command line")

// Parse parses args with fs, then calls check for what the flag package cannot check. fs must
// use flag.ContinueOnError. The command takes no arguments besides its flags. On a bad command
// line Parse writes the problem and the usage to fs.Output() and returns an error wrapping
// ErrUsage. The problem is check's error as is, so it should name the command. For -h or -help
// Parse returns flag.ErrHelp.
func Parse(fs *flag.FlagSet, args []string, check func() error) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %w", ErrUsage, err) // fs has printed the problem and the usage
	}
	err := check()
	if fs.NArg() > 0 {
		err = fmt.Errorf("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	if err != nil {
		return Refuse(fs, err)
	}
	return nil
}

// Refuse reports a bad command line found after Parse, such as an address the command cannot
// listen on, as Parse reports one: it writes err and the usage to fs.Output() and returns an
// error wrapping ErrUsage and err.
func Refuse(fs *flag.FlagSet, err error) error {
	fmt.Fprintln(fs.Output(), err)
	fs.Usage()
	return fmt.Errorf("%w: %w", ErrUsage, err)
}

// ExitCode is the exit status for err, what a command's run returned.
func ExitCode(err error) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, ErrUsage):
		return 2
	}
	return 1
}
