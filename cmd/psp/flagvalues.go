package main

import (
	"errors"
	"flag"
	"strconv"
	"time"
)

// number is the value of a flag that takes a whole number, such as -max-keys. Unlike the flag
// package's int, it refuses a value in words that say what it wants, never "parse error".
type number int

// numberFlag defines the flag name of fs, a number of value by default.
func numberFlag(fs *flag.FlagSet, name string, value int, usage string) *number {
	n := number(value)
	fs.Var(&n, name, usage)
	return &n
}

func (n *number) String() string { return strconv.Itoa(int(*n)) }

func (n *number) Set(s string) error {
	v, err := strconv.Atoi(s)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return errors.New("out of range")
	case err != nil:
		return errors.New("want a whole number, as in 1000")
	}
	*n = number(v)
	return nil
}

// duration is the value of a flag that takes a time.Duration, such as -key-ttl. Unlike the flag
// package's, it refuses a value in words that say what it wants, never "parse error".
type duration time.Duration

// durationFlag defines the flag name of fs, a duration of value by default.
func durationFlag(fs *flag.FlagSet, name string, value time.Duration, usage string) *duration {
	d := duration(value)
	fs.Var(&d, name, usage)
	return &d
}

func (d *duration) String() string { return time.Duration(*d).String() }

func (d *duration) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("want a duration, a number and a unit, as in 1500ms, 2s or 24h")
	}
	*d = duration(v)
	return nil
}
