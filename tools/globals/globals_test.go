package main

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCheckReportsEveryAssignment: in the fixture, the assignments in a function and in a test
// are reported, once each; a declaration, init, a map element and a local are not.
func TestCheckReportsEveryAssignment(t *testing.T) {
	t.Setenv("GOWORK", "off") // the fixture is a module of its own, outside the workspace
	got, err := check(filepath.Join("testdata", "fixture"), []string{"./..."})
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		got[i] = filepath.Base(got[i])
	}
	want := []string{
		"fixture.go:14:2: package-level variable count assigned outside its declaration",
		"fixture.go:16:6: package-level variable count assigned outside its declaration",
		"fixture_test.go:6:2: package-level variable hook assigned outside its declaration",
		"fixture_test.go:7:3: package-level variable hook assigned outside its declaration",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("check() mismatch (-want +got):\n%s", diff)
	}
}
