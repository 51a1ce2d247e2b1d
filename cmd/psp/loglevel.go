package main

import (
	"errors"
	"log/slog"
	"math"
)

// logLevel is the value of -log: the least severe record that stderr gets. Its zero value is
// info.
type logLevel slog.Level

// levelOff is above the level of every record, so that none is written.
const levelOff = logLevel(math.MaxInt)

var logLevelNames = map[string]logLevel{
	"info": logLevel(slog.LevelInfo), // a line per payment and per lookup, and the start and the stop
	"warn": logLevel(slog.LevelWarn), // the server's warnings only
	"off":  levelOff,
}

func (l *logLevel) String() string {
	for name, level := range logLevelNames {
		if level == *l {
			return name
		}
	}
	return slog.Level(*l).String()
}

func (l *logLevel) Set(s string) error {
	level, ok := logLevelNames[s]
	if !ok {
		return errors.New("want info, warn or off")
	}
	*l = level
	return nil
}
