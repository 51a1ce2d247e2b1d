// Command planted plants realistic bugs in the code, one at a time, and checks that the tests
// named for each one catch it.
//
// Each bug in the table (bugs.go) is an edit of one file: its old text, which must occur
// exactly once (else the bug went stale), and its new text. The edit is applied through
// `go test -overlay`, so that no file of the tree is written. The bug's tests run with
// RAPID_SEED=1 and RAPID_NOFAILFILE=1, and must fail: a bug that does not compile, a run that
// times out, or a failure that names no test is not a catch. The unplanted tests of each
// package run first and must pass, or a catch would prove nothing.
//
// A bug marked Awaits waits for a change that is not merged yet. It must not be caught: once
// it is, the mark has to go, so that the bug is checked like the others.
//
// Usage, from the product module's root:
//
//	"$(go -C tools tool -n planted)" [-workers 2] [WORD ...]    # the bugs whose name holds a WORD, or all
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
)

func main() {
	workers := flag.Int("workers", 2, "bugs planted and tested at once")
	flag.Parse()
	// Pinned, so that a verdict cannot flip between runs. mutant.Runner sets RAPID_NOFAILFILE.
	os.Setenv("RAPID_SEED", "1")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	chosen := slices.DeleteFunc(slices.Clone(bugs), func(b bug) bool { return !named(b, flag.Args()) })
	if len(chosen) == 0 {
		fmt.Fprintln(os.Stderr, "planted: no bug's name holds", strings.Join(flag.Args(), " or "))
		os.Exit(2)
	}
	if err := run(ctx, ".", chosen, *workers, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// named reports whether b's name holds one of words, or words is empty.
func named(b bug, words []string) bool {
	return len(words) == 0 || slices.ContainsFunc(words, func(w string) bool { return strings.Contains(b.Name, w) })
}
