package main

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestDeclaredTestsReadsTheMatchingFiles checks that declaredTests names the top-level tests of
// the files matching its pattern, and no other file's, and not TestMain: the trace suite's
// planted violations, which the properties pass leaves out.
func TestDeclaredTestsReadsTheMatchingFiles(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"planted_test.go":         "package p\n\nfunc TestMain(m *testing.M) {}\n\nfunc TestNoVacuous(t *testing.T) {}\n\n// func TestInAComment(t *testing.T) {}\n",
		"dialect_planted_test.go": "package p\n\nfunc TestNoVacuousInADialect(t *testing.T) {}\nfunc helper() {}\n",
		"baseline_test.go":        "package p\n\nfunc TestBaselineKeepsEveryInvariant(t *testing.T) {}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	names, err := declaredTests(dir, "*planted_test.go")
	if err != nil {
		t.Fatalf("declaredTests() = %v", err)
	}
	got := slices.Sorted(maps.Keys(names))
	if want := []string{"TestNoVacuous", "TestNoVacuousInADialect"}; !slices.Equal(got, want) {
		t.Errorf("declaredTests() = %v, want %v", got, want)
	}
}
