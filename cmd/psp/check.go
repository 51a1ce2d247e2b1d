package main

import (
	"errors"
	"fmt"
	"strings"

	"pixretry/psp"
)

// checkConfig refuses a psp.Config that the flags asked for and psp.NewServer would refuse,
// naming the flag and what it wants. It never repeats a token: tokens are secrets.
func checkConfig(c psp.Config) error {
	var err error
	switch n, why := badToken(c.Tokens); {
	case n > 0:
		err = fmt.Errorf("psp: -tokens: token %d of %d %s; want visible ASCII tokens without spaces, comma-separated, "+
			"as in %s", n, len(c.Tokens), why, psp.DefaultToken)
	case c.KeyTTL <= 0:
		err = fmt.Errorf("psp: -key-ttl %v: want a positive duration, as in 24h", c.KeyTTL)
	case c.MaxKeys <= 0:
		err = fmt.Errorf("psp: -max-keys %d: want a positive number, as in 500000", c.MaxKeys)
	case c.MaxSettlements <= 0:
		err = fmt.Errorf("psp: -max-settlements %d: want a positive number, as in 1000000", c.MaxSettlements)
	case len(c.ISPB) != 8 || strings.Trim(c.ISPB, "0123456789") != "":
		err = fmt.Errorf("psp: -ispb %q: want 8 digits, as in 12345678", c.ISPB)
	case c.ServiceTime < 0:
		err = fmt.Errorf("psp: -service-time %v: want 0 or a positive duration, as in 50ms", c.ServiceTime)
	case c.Capacity < 0:
		err = fmt.Errorf("psp: -capacity %d: want 0 (no limit) or more", c.Capacity)
	case c.ShedRetryAfter < 0:
		err = fmt.Errorf("psp: -shed-retry-after %v: want 0 (none) or a positive duration, as in 2s", c.ShedRetryAfter)
	case c.JournalMax <= 0:
		err = fmt.Errorf("psp: -journal-max %d: want a positive number, as in 1000", c.JournalMax)
	case c.JournalBytes <= 0:
		err = fmt.Errorf("psp: -journal-bytes %d: want a positive number, as in 1048576", c.JournalBytes)
	case c.CompleteAfter < 0:
		err = fmt.Errorf("psp: -complete-after %v: want 0 (at once) or a positive duration, as in 5s", c.CompleteAfter)
	default:
		_, err = psp.NewServer(c) // whatever else it refuses
	}
	return err
}

// badToken returns the position, from 1, of the first token that psp.Config refuses, and why;
// 0 if there is none.
func badToken(tokens []string) (int, string) {
	for i, token := range tokens {
		switch {
		case token == "":
			return i + 1, "is empty"
		case !visibleASCII(token):
			return i + 1, "has a space or a character that is not visible ASCII"
		}
	}
	return 0, ""
}

// visibleASCII reports whether s is made of the characters from 0x21 to 0x7E only.
func visibleASCII(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r < 0x21 || r > 0x7E })
}

// check refuses what else the command line asks that psp cannot do, naming the flag. It never
// repeats the control token, a secret: control.Options.Token says what it may be.
func (o options) check() error {
	switch {
	case o.maxConns < 0:
		return fmt.Errorf("psp: -max-conns %d: want 0 (no limit) or more", o.maxConns)
	case !visibleASCII(o.controlToken):
		return errors.New("psp: -control-token: want visible ASCII without spaces")
	}
	for _, h := range o.controlHosts {
		if h == "" || !visibleASCII(h) {
			// An empty entry would let a request with no Host through the control API's guard.
			return fmt.Errorf("psp: -control-hosts: %q: want HOST:PORT values, comma-separated, none empty", h)
		}
	}
	return nil
}
