package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// progress reports a pass while it runs: mutants done of the total, killed, survived, and an
// estimate of the time left. On a terminal it rewrites one line; elsewhere (CI, a file) it
// prints a plain line every interval, and one at each package's end.
type progress struct {
	out      io.Writer
	terminal bool
	interval time.Duration
	now      func() time.Time

	mu                      sync.Mutex
	pkg                     string
	total, n                int
	killed, survived, other int
	started, printed        time.Time
}

// newProgress reports to stderr, rewriting one line when stderr is a terminal and CI is unset.
func newProgress() *progress {
	terminal := false
	if fi, err := os.Stderr.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 && os.Getenv("CI") == "" {
		terminal = true
	}
	return &progress{out: os.Stderr, terminal: terminal, interval: 30 * time.Second, now: time.Now}
}

// begin starts a package of total mutants; the estimate counts from here.
func (p *progress) begin(pkg string, total int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pkg, p.total, p.n = pkg, total, 0
	p.killed, p.survived, p.other = 0, 0, 0
	p.started, p.printed = p.now(), p.now()
}

// done counts one mutant's outcome.
func (p *progress) done(o outcome) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	switch o {
	case killed, timedOut:
		p.killed++
	case survived, notCovered:
		p.survived++
	default:
		p.other++
	}
	now := p.now()
	if p.terminal {
		fmt.Fprintf(p.out, "\r\033[K%s", p.line(now))
		return
	}
	if now.Sub(p.printed) >= p.interval {
		fmt.Fprintln(p.out, p.line(now))
		p.printed = now
	}
}

// end closes the package's line.
func (p *progress) end() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.terminal {
		fmt.Fprintln(p.out)
		return
	}
	fmt.Fprintln(p.out, p.line(p.now()))
}

func (p *progress) line(now time.Time) string {
	elapsed := now.Sub(p.started)
	left := "unknown"
	if p.n > 0 {
		left = "about " + (elapsed * time.Duration(p.total-p.n) / time.Duration(p.n)).Round(time.Second).String()
	}
	return fmt.Sprintf("%s: %d/%d mutants, %d killed, %d survived, %d not compiled; %s left",
		p.pkg, p.n, p.total, p.killed, p.survived, p.other, left)
}
