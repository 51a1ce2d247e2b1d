package main

import (
	"bufio"
	"fmt"
	"go/token"
	"os"
	"path"
	"strings"
)

// block is one block of a coverage profile.
type block struct {
	startLine, startCol, endLine, endCol int
	hit                                  bool
}

func (b block) contains(p token.Position) bool {
	after := p.Line > b.startLine || p.Line == b.startLine && p.Column >= b.startCol
	before := p.Line < b.endLine || p.Line == b.endLine && p.Column < b.endCol
	return after && before
}

// coverage maps a file (its package's import path and its base name) to its blocks.
type coverage map[string][]block

// readCoverage reads a profile written by go test -coverprofile.
func readCoverage(name string) (coverage, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("mutationextended: %w", err)
	}
	defer f.Close()
	cov := coverage{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := s.Text()
		if strings.HasPrefix(line, "mode:") || line == "" {
			continue
		}
		var b block
		var stmts, count int
		file, rest, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("mutationextended: %s: bad line %q", name, line)
		}
		if _, err := fmt.Sscanf(rest, "%d.%d,%d.%d %d %d", &b.startLine, &b.startCol, &b.endLine, &b.endCol,
			&stmts, &count); err != nil {
			return nil, fmt.Errorf("mutationextended: %s: bad line %q: %w", name, line, err)
		}
		b.hit = count > 0
		cov[file] = append(cov[file], b)
	}
	return cov, s.Err()
}

// ran says whether the tests ran position p of file: it lies in a block that
// ran. listed says whether p lies in any block at all: a position in none (a switch case's
// condition, a package-level initializer) is not known to be unrun.
func (c coverage) ran(file string, p token.Position) (ran, listed bool) {
	for _, b := range c[file] {
		if b.contains(p) {
			if b.hit {
				return true, true
			}
			listed = true
		}
	}
	return false, listed
}

// counts says whether the profile counts the package of import path pkg: whether its binary
// links it.
func (c coverage) counts(pkg string) bool {
	for file := range c {
		if path.Dir(file) == pkg {
			return true
		}
	}
	return false
}
