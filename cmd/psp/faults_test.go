package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"pixretry/internal/cmdline"
	"pixretry/psp"
	"pixretry/psp/control"
	"pixretry/psp/scenarios"
)

// mustFile writes content to name in a temporary folder and returns its path.
func mustFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFaultsFileMeetsTheFirstRequests: the faults of -faults are queued before psp prints its
// URL, so the first payments and lookups meet them in order, each in its own queue.
func TestFaultsFileMeetsTheFirstRequests(t *testing.T) {
	file := mustFile(t, "faults.json", `{"faults": [
  {"kind": "status", "status": 503, "retry_after_s": 2},
  {"kind": "status", "status": 502, "target": "lookup"},
  {"kind": "commit_status", "status": 504}
]}`)
	s := mustStart(t, "-tokens", "smoke", "-faults", file)
	lookup := psp.PaymentsPath + "?idempotency_key=k1"
	var got []int
	for _, r := range []struct{ method, path string }{
		{"POST", psp.PaymentsPath}, {"GET", lookup}, {"POST", psp.PaymentsPath}, {"POST", psp.PaymentsPath}, {"GET", lookup},
	} {
		status, _ := s.do(t, r.method, r.path, "k1", strings.NewReader(payment))
		got = append(got, status)
	}
	// 503 before any processing, the lookup's 502, 504 after the commit, then the replay and
	// the receipt
	if want := []int{503, 502, 504, 201, 200}; !slices.Equal(got, want) {
		t.Errorf("statuses = %v, want %v", got, want)
	}
	if err := s.stop(); err != nil {
		t.Errorf("run() = %v, want nil", err)
	}
}

// TestShippedScenariosLoad: psp -faults takes every file of psp/scenarios, and queues what
// package scenarios reads from it.
func TestShippedScenariosLoad(t *testing.T) {
	paths, err := filepath.Glob("../../psp/scenarios/*.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("Glob() = %v, %v; want the shipped scenarios", paths, err)
	}
	for _, path := range paths {
		o, _, err := parseFlags([]string{"-faults", path}, io.Discard)
		want, errWant := scenarios.Faults(strings.TrimSuffix(filepath.Base(path), ".json"))
		if diff := cmp.Diff(want, o.faults); err != nil || errWant != nil || diff != "" {
			t.Errorf("parseFlags(-faults %s) error = %v (scenarios: %v), faults mismatch (-want +got):\n%s", path, err, errWant, diff)
		}
	}
}

// TestBadFaultsFileExits2: a file psp cannot read, or whose faults the control API would
// refuse, is a bad command line. The problem names the file, the line, the column and the
// reason, and psp never listens, so nothing is queued anywhere.
func TestBadFaultsFileExits2(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, content string // no content: no file
		want          string // %[1]s is the file
	}{
		{"missing.json", "", "psp: -faults: open %[1]s: no such file or directory"},
		{"empty.json", " ", `psp: -faults %[1]s:1:2: body: empty, want an object such as {"faults":[{"kind":"drop"}]}`},
		{"not-json.json", "{\"faults\": [\n  {\"kind\": \"drop\"}\n  {\"kind\": \"reset\"}\n]}",
			`psp: -faults %[1]s:3:3: body: not valid JSON: invalid character '{' after array element (expecting ',' or ']'), within "faults"`},
		{"unknown-member.json", "{\"faults\": [],\n \"fautls\": []}",
			`psp: -faults %[1]s:2:2: body: unknown member "fautls": the body takes "faults" alone, as in {"faults":[{"kind":"drop"}]}`},
		{"no-faults.json", "\n{}", "psp: -faults %[1]s:2:1: faults: required: a JSON array of faults"},
		{"faults-not-an-array.json", `{"faults": {"kind": "drop"}}`,
			`psp: -faults %[1]s:1:12: body: member "faults" is an object, want an array, as in {"faults":[{"kind":"drop"}]}`},
		{"misspelled.json", "{\"faults\": [\n  {\"kind\": \"late\", \"delay\": 600}\n]}",
			`psp: -faults %[1]s:2:3: faults[0]: psp: invalid fault: unknown member "delay": kind "late" takes "delay_ms" ` +
				`(milliseconds, 0 to 3600000), and optionally "target":"lookup"`},
		{"wrong-type.json", "{\"faults\": [\n  {\"kind\": \"status\", \"status\": \"503\"}\n]}",
			`psp: -faults %[1]s:2:3: faults[0]: psp: invalid fault: member "status" is a string, want a whole number`},
		{"bad-fault.json", "{\"faults\": [\n  {\"kind\": \"drop\"},\n  {\"kind\": \"reset\"},\n  {\"kind\": \"slow\"}\n]}",
			`psp: -faults %[1]s:4:3: faults[2]: psp: invalid fault: kind "slow" takes "delay_ms" (milliseconds, 0 to 3600000), and no "target" (payments only)`},
		{"too-many.json", "{\"faults\": [\n" + strings.Repeat("  {\"kind\": \"drop\"},\n", control.MaxQueuedFaults) + "  {\"kind\": \"drop\"}\n]}",
			fmt.Sprintf("psp: -faults %%[1]s:%d:3: faults: %d given, at most %d may be queued",
				control.MaxQueuedFaults+2, control.MaxQueuedFaults+1, control.MaxQueuedFaults)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			if tt.content != "" {
				if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), []string{"-addr", "127.0.0.1:0", "-faults", path}, &stdout, &stderr)
			if got := cmdline.ExitCode(err); got != 2 {
				t.Errorf("exit code = %d (run: %v), want 2", got, err)
			}
			want := fmt.Sprintf(tt.want, path)
			if !strings.HasPrefix(stderr.String(), want+"\nUsage of psp") || stdout.Len() != 0 {
				t.Errorf("stderr = %q, stdout = %q; want %q and the usage on stderr only", stderr.String(), stdout.String(), want)
			}
			wantNoGoWords(t, err)
		})
	}
}

// wantNoGoWords checks that err speaks the words of its command line and files, never of the Go
// that reads them: no Go type, no package of the double, no struct.
func wantNoGoWords(tb testing.TB, err error) {
	tb.Helper()
	for _, goWord := range []string{"Go ", "control.", "struct", "jsontext", "json: cannot", "parse error"} {
		if strings.Contains(err.Error(), goWord) {
			tb.Errorf("error %q says %q, want only the words of the command line", err, goWord)
		}
	}
}
