package main

import (
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestCoverageRan(t *testing.T) {
	profile := "mode: set\n" +
		"fixture/tally/tally.go:10.2,12.3 2 1\n" +
		"fixture/tally/tally.go:14.2,16.3 1 0\n"
	path := filepath.Join(t.TempDir(), "cover.out")
	if err := os.WriteFile(path, []byte(profile), 0o600); err != nil {
		t.Fatal(err)
	}
	cov, err := readCoverage(path)
	if err != nil {
		t.Fatalf("readCoverage() error = %v", err)
	}
	cases := []struct {
		line, column int
		ran, listed  bool
	}{
		{11, 1, true, true},   // in a block that ran
		{14, 2, false, true},  // at the start of a block that did not
		{16, 2, false, true},  // before its end
		{16, 3, false, false}, // at its end: outside
		{13, 5, false, false}, // in no block: not known to be unrun
	}
	for _, c := range cases {
		p := token.Position{Line: c.line, Column: c.column}
		if ran, listed := cov.ran("fixture/tally/tally.go", p); ran != c.ran || listed != c.listed {
			t.Errorf("ran(%d:%d) = %v, %v; want %v, %v", c.line, c.column, ran, listed, c.ran, c.listed)
		}
	}
	if ran, listed := cov.ran("fixture/tally/other.go", token.Position{Line: 14, Column: 2}); ran || listed {
		t.Error("ran() of a file the profile does not name = true, want false")
	}
}

func TestReadCoverageRejectsABadProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cover.out")
	if err := os.WriteFile(path, []byte("mode: set\ntally.go:x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readCoverage(path); err == nil {
		t.Error("readCoverage() of a bad line = nil error, want one")
	}
	if _, err := readCoverage(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("readCoverage() of a missing file = nil error, want one")
	}
}

// A position no block holds is run by every test that links its package, and by no other; a
// package no test links is not covered.
func TestCoveringRoutesByPackage(t *testing.T) {
	blocks := coverage{"m/a/a.go": {{startLine: 1, startCol: 1, endLine: 5, endCol: 1, hit: true}}}
	r := &routes{tests: []testRun{
		{name: "TestSlow", took: 2, hit: blocks},
		{name: "TestFast", took: 1, hit: blocks},
		{name: "TestOther", took: 1, hit: coverage{"m/b/b.go": {{startLine: 1, startCol: 1, endLine: 5, endCol: 1}}}},
	}}
	names := func(ts []testRun) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.name)
		}
		return out
	}
	for _, tt := range []struct {
		file string
		line int
		want []string
	}{
		{"m/a/a.go", 2, []string{"TestFast", "TestSlow"}},    // in a block that ran, fastest first
		{"m/a/a.go", 9, []string{"TestFast", "TestSlow"}},    // in no block: every test linking m/a
		{"m/a/vars.go", 3, []string{"TestFast", "TestSlow"}}, // a file without blocks, in m/a
		{"m/b/b.go", 2, nil},                                 // in a block that did not run
		{"m/c/c.go", 2, nil},                                 // a package no test links
	} {
		got := names(r.covering(tt.file, token.Position{Line: tt.line, Column: 1}))
		if !slices.Equal(got, tt.want) {
			t.Errorf("covering(%s:%d) = %v, want %v", tt.file, tt.line, got, tt.want)
		}
	}
}
