package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// mustSources writes src as pkg/file.go under a new root, and returns its sources.
func mustSources(t *testing.T, src string) *sources {
	t.Helper()
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, "pkg"), 0o700)
	if err := os.WriteFile(filepath.Join(root, "pkg", "file.go"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	return &sources{root: root}
}

func TestKeysStayWhenLinesMove(t *testing.T) {
	moved := "package retry\n// A comment and a declaration\n// moved the function down three lines.\nvar x = 1\n" +
		strings.Replace(doGo[len("package retry\n"):], "if a < b", "if a <  b", 1) // and gofmt aligned a comment
	for _, m := range []struct{ line, column int }{{4, 7}, {5, 12}, {7, 11}} {
		before, err := mustSources(t, doGo).key("pkg/file.go", m.line, m.column, "CONDITIONALS_NEGATION")
		if err != nil {
			t.Fatal(err)
		}
		after, err := mustSources(t, moved).key("pkg/file.go", m.line+3, m.column, "CONDITIONALS_NEGATION")
		if err != nil {
			t.Fatal(err)
		}
		if before != after {
			t.Errorf("key before the move = %q, after = %q", before, after)
		}
	}
}

func TestKeyNamesTheDeclarationAndTheToken(t *testing.T) {
	src := "package pkg\n\nvar limit = 64 << 10\n\ntype set[T any] struct{ n int }\n\n" +
		"func (s *set[T]) add() { s.n++ }\n\nfunc (s set[T]) big() bool { return s.n > limit-1 }\n"
	s := mustSources(t, src)
	for _, c := range []struct {
		line, column int
		want         string
	}{
		{3, 16, "pkg/file.go:limit INVERT_BITWISE: var limit = 64 «<<» 10"},
		{7, 29, "pkg/file.go:set.add INVERT_BITWISE: func (s *set[T]) add() { s.n«++» }"},
		{9, 48, "pkg/file.go:set.big INVERT_BITWISE: func (s set[T]) big() bool { return s.n > limit«-»1 }"},
	} {
		got, err := s.key("pkg/file.go", c.line, c.column, "INVERT_BITWISE")
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("key(%d:%d) = %q, want %q", c.line, c.column, got, c.want)
		}
	}
}

func TestCodeSpans(t *testing.T) {
	md := "a `one` b ``two `with` ticks`` c `unclosed\n`three` and ```not closed `` here\n"
	got := codeSpans(md)
	want := []string{"one", "two `with` ticks", "three"}
	if !slices.Equal(got, want) {
		t.Errorf("codeSpans() = %q, want %q", got, want)
	}
	if e := explanations("`pix/a.go:f X: y` `pixel/b.go:g X: z` `pix/a.go` `retry/c.go:h X: w`", "pix"); len(e) != 1 ||
		!e["pix/a.go:f X: y"] {
		t.Errorf("explanations() = %v, want pix/a.go:f X: y alone", e)
	}
}
