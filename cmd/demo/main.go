// Command demo walks the Retry Pattern's five scenarios against a Pix PSP and checks each one
// against the PSP's own ledger.
//
// By default it starts the PSP simulator (package psp) in-process on a loopback port; with
// -psp it drives an external cmd/psp instead, through the same HTTP control API. It resets the
// PSP, then, with a pix.Client that retries (4 attempts, waits of up to 50 ms·2^(n−1) capped at
// 400 ms, 300 ms per attempt):
//
//  1. the PSP answers on the first attempt;
//  2. it answers 503 twice, and the third attempt succeeds;
//  3. it settles but answers after the attempt timeout, and the retry gets the stored answer;
//  4. an amount above the balance is refused, and not retried;
//  5. it is down for longer than the retry budget: the payment fails, outcome unknown.
//
// It prints one log line per attempt, a summary, and "PSP recorded 3 settlements for 3
// successful payments". It exits 1 if any expectation fails (naming the scenario and what
// differed), 2 on a bad command line.
//
// Usage:
//
//	demo [-psp URL] [-token TOKEN] [-seed N]
package main

import (
	"context"
	"errors"
	"flag"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err))
}

// exitCode maps run's error to the process's exit status: 0 for success or -help, 2 for a bad
// command line, 1 for anything else.
func exitCode(err error) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if errors.Is(err, errUsage) {
		return 2
	}
	return 1
}
