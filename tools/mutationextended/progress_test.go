package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// clock is a time that a test moves.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestProgressPrintsPlainLinesOutsideATerminal(t *testing.T) {
	var out bytes.Buffer
	c := &clock{t: time.Unix(0, 0)}
	p := &progress{out: &out, interval: 30 * time.Second, now: c.now}
	p.begin("retry", 4)
	c.t = c.t.Add(10 * time.Second)
	p.done(killed)
	if out.Len() != 0 {
		t.Fatalf("a line before the interval: %q", out.String())
	}
	c.t = c.t.Add(30 * time.Second)
	p.done(survived)
	p.done(notCompiled)
	p.end()
	want := "retry: 2/4 mutants, 1 killed, 1 survived, 0 not compiled; about 40s left\n" +
		"retry: 3/4 mutants, 1 killed, 1 survived, 1 not compiled; about 13s left\n"
	if out.String() != want {
		t.Errorf("output = %q, want %q", out.String(), want)
	}
}

func TestProgressRewritesOneLineOnATerminal(t *testing.T) {
	var out bytes.Buffer
	c := &clock{t: time.Unix(0, 0)}
	p := &progress{out: &out, terminal: true, interval: time.Hour, now: c.now}
	p.begin("pix", 2)
	c.t = c.t.Add(time.Second)
	p.done(timedOut)
	p.done(notCovered)
	p.end()
	lines := strings.Split(out.String(), "\r\033[K")
	if len(lines) != 3 || lines[2] != "pix: 2/2 mutants, 1 killed, 1 survived, 0 not compiled; about 0s left\n" {
		t.Errorf("output = %q, want two rewrites of one line, then a newline", out.String())
	}
	var none *progress
	none.begin("x", 1) // a pass without progress, as in tests
	none.done(killed)
	none.end()
}
