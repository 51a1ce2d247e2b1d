package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTidyRemovesWhatTestsLeftButGo checks that tidy removes the files and directories that
// appeared in a package's directory during a pass, and spares Go files and a directory that
// holds one below: a new package someone is writing meanwhile.
func TestTidyRemovesWhatTestsLeftButGo(t *testing.T) {
	dir := t.TempDir()
	write := func(name string) {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("old.lock")
	done := tidy(dir)
	write("new.lock")
	write("scratch/data.db")
	write("new_test.go")
	write("internal/hook/problem.go")
	done()
	for name, want := range map[string]bool{
		"old.lock": true, "new.lock": false, "scratch": false, "new_test.go": true, "internal/hook/problem.go": true,
	} {
		_, err := os.Stat(filepath.Join(dir, name))
		if got := err == nil; got != want {
			t.Errorf("after tidy, %s exists = %v, want %v", name, got, want)
		}
	}
}
