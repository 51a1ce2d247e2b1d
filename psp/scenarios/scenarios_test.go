package scenarios_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"pixretry/psp/scenarios"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestEveryFileLoads walks the folder: every JSON file is a valid fault queue that Faults
// reads, and README.md describes exactly the files there are.
func TestEveryFileLoads(t *testing.T) {
	paths, err := filepath.Glob("*.json")
	if err != nil || len(paths) < 10 {
		t.Fatalf("Glob(*.json) = %v, %v; want the demo's five scenarios and more", paths, err)
	}
	for _, path := range paths {
		if _, err := scenarios.Faults(strings.TrimSuffix(path, ".json")); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var described []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+\\.json)` \\|").FindAllSubmatch(readme, -1) {
		described = append(described, string(m[1]))
	}
	if slices.Sort(described); !slices.Equal(described, paths) {
		t.Errorf("README.md describes %v, want every file: %v", described, paths)
	}
}

func TestFaultsOfAnUnknownName(t *testing.T) {
	for _, name := range []string{"no-such-scenario", "README", "../scenarios/lost-answer", ""} {
		if faults, err := scenarios.Faults(name); !errors.Is(err, fs.ErrNotExist) || faults != nil {
			t.Errorf("Faults(%q) = %v, %v; want none, %v", name, faults, err, fs.ErrNotExist)
		}
	}
}

func ExampleFaults() {
	faults, err := scenarios.Faults("lost-answer-flaky-lookup")
	if err != nil {
		panic(err)
	}
	for _, f := range faults {
		fmt.Printf("%s %d %v %q\n", f.Kind, f.Status, f.RetryAfter, f.Target)
	}
	// Output:
	// drop 0 0s ""
	// status 503 1s "lookup"
	// reset 0 0s "lookup"
}
