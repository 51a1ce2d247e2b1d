package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"
)

// equivalents maps a mutant's id to the reason it is equivalent: no test can kill it because
// the mutated program behaves as the original does.
//
// The file holds one `ID => reason` per line; blank lines and lines starting with # are
// ignored. An id is a mutant's file:function:operator:source text (#n when it repeats), which
// does not move when lines do.
type equivalents map[string]string

func readEquivalents(name string) (equivalents, error) {
	eq := equivalents{}
	f, err := os.Open(name)
	if errors.Is(err, os.ErrNotExist) {
		return eq, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mutationextended: %w", err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for n := 1; s.Scan(); n++ {
		line := strings.TrimSpace(s.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, reason, ok := strings.Cut(line, " => ")
		id, reason = strings.TrimSpace(id), strings.TrimSpace(reason)
		if !ok || id == "" || reason == "" {
			return nil, fmt.Errorf("mutationextended: %s:%d: want `ID => reason`, got %q", name, n, line)
		}
		if _, dup := eq[id]; dup {
			return nil, fmt.Errorf("mutationextended: %s:%d: %s listed twice", name, n, id)
		}
		eq[id] = reason
	}
	return eq, s.Err()
}
