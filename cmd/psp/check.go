package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"pixretry/psp"
)

// checkConfig refuses a psp.Config that the flags asked for and psp.NewServer would refuse,
// naming the flag and what it wants. It refuses a zero too where psp would read it as its
// default. It never repeats a token: tokens are secrets.
func checkConfig(c psp.Config) error {
	_, err := psp.NewServer(c)
	bad, ok := errors.AsType[*psp.ConfigError](err)
	if ok && bad.Field == "Tokens" && bad.Token >= 0 {
		why := "has a space or a character that is not visible ASCII"
		if c.Tokens[bad.Token] == "" {
			why = "is empty"
		}
		return fmt.Errorf("psp: -tokens: token %d of %d %s; want visible ASCII tokens without spaces, comma-separated, "+
			"as in %s", bad.Token+1, len(c.Tokens), why, psp.DefaultToken)
	}
	for _, f := range configFlags(c) {
		if f.zero || ok && bad.Field == f.field {
			return fmt.Errorf("psp: %s %s: %s", f.name, f.value, f.want)
		}
	}
	return err // whatever else it refuses
}

// configFlag is the flag that sets a field of psp.Config.
type configFlag struct {
	field string // the field, as psp.ConfigError names it
	name  string // the flag, such as -key-ttl
	value string // the value given, as the flag prints it
	// zero reports a value of 0 (or "") that psp would read as its default. The flag shows
	// that default already, so a zero given is a mistake, refused like a value psp refuses.
	zero bool
	want string // what the flag wants, with an example
}

// configFlags are the flags of c's fields, in the order psp.NewServer checks them. -tokens is
// apart: its problem names a token, not a value. -balance and -reject-range refuse a bad value
// as they parse it.
func configFlags(c psp.Config) []configFlag {
	return []configFlag{
		{"KeyTTL", "-key-ttl", c.KeyTTL.String(), c.KeyTTL == 0, "want a positive duration, as in 24h"},
		{"MaxKeys", "-max-keys", strconv.Itoa(c.MaxKeys), c.MaxKeys == 0, "want a positive number, as in 500000"},
		{"MaxSettlements", "-max-settlements", strconv.Itoa(c.MaxSettlements), c.MaxSettlements == 0,
			"want a positive number, as in 1000000"},
		{"ISPB", "-ispb", strconv.Quote(c.ISPB), c.ISPB == "", "want 8 digits, as in 12345678"},
		{"ServiceTime", "-service-time", c.ServiceTime.String(), false, "want 0 or a positive duration, as in 50ms"},
		{"Capacity", "-capacity", strconv.Itoa(c.Capacity), false, "want 0 (no limit) or more"},
		{"ShedRetryAfter", "-shed-retry-after", c.ShedRetryAfter.String(), false,
			"want 0 (none) or a positive duration, as in 2s"},
		{"JournalMax", "-journal-max", strconv.Itoa(c.JournalMax), c.JournalMax == 0, "want a positive number, as in 1000"},
		{"JournalBytes", "-journal-bytes", strconv.Itoa(c.JournalBytes), c.JournalBytes == 0,
			"want a positive number, as in 1048576"},
		{"CompleteAfter", "-complete-after", c.CompleteAfter.String(), false,
			"want 0 (at once) or a positive duration, as in 5s"},
	}
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
