package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTestedByGivesAPackageWithoutTestsToTheOneAbove: a package without test files joins the
// nearest package above it that has some, in the pass or not named; one without any fails.
func TestTestedByGivesAPackageWithoutTestsToTheOneAbove(t *testing.T) {
	root := t.TempDir()
	for _, file := range []string{"a/a_test.go", "a/b/b.go", "a/b/c/c.go", "d/d_test.go", "e/e.go"} {
		path := filepath.Join(root, file)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("package x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	dir := func(d string) string { return filepath.Join(root, d) }
	groups, err := testedBy([]string{dir("a/b/c"), dir("d"), dir("a"), dir("a/b")})
	if err != nil {
		t.Fatalf("testedBy() error = %v", err)
	}
	var got [][]string
	for _, g := range groups {
		got = append(got, g.dirs)
	}
	want := [][]string{{dir("a"), dir("a/b/c"), dir("a/b")}, {dir("d")}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("testedBy() groups mismatch (-want +got):\n%s", diff)
	}
	if _, err := testedBy([]string{dir("e")}); err == nil {
		t.Errorf("testedBy(a package without tests, none above) error = nil, want one")
	}
}
