package main

// run against a PSP it cannot use, across processes: it says why once, exits 1 after
// -psp-outage-max, and leaves the intents pending for a run that can.

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// runToEnd runs pixpay with args in a child process, which must exit within limit, and
// returns its stderr and exit code.
func runToEnd(t *testing.T, limit time.Duration, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(limit, func() { cmd.Process.Kill() })
	err := cmd.Wait()
	if !timer.Stop() {
		t.Fatalf("pixpay %v still ran after %v; its stderr:\n%s", args, limit, &stderr)
	}
	if exit, ok := errors.AsType[*exec.ExitError](err); ok {
		return stderr.String(), exit.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return stderr.String(), 0
}

// fast are run's options that make a trouble end it within seconds.
var fast = []string{"-psp-outage-max", "1s", "-delay-base", "50ms", "-delay-max", "200ms", "-poll", "50ms"}

func TestRunExitsOnAPSPItCannotUse(t *testing.T) {
	url, settlements := mustPSP(t)
	for _, tt := range []struct {
		name   string
		psp    string
		token  string
		record string // the ERROR record's message and fix
		ends   string // the last line's start
	}{
		{"a wrong token", url, "wrong", `level=ERROR msg="durable: the PSP refuses the client's credentials; payments wait" ` +
			`resumptions=1 error="pix: outcome unknown for key \"KEY\" after 1 attempt(s): pix: PSP answered 401 unauthorized: ` +
			`a known bearer token is required in Authorization" fix="check -token, the bearer token the PSP expects"`,
			"durable: the PSP refuses the client's credentials on every attempt for "},
		{"no PSP at -psp", "http://127.0.0.1:1", "test-token", `level=ERROR msg="durable: the PSP cannot be reached; payments wait" ` +
			`resumptions=1 error="pix: outcome unknown for key \"KEY\" after 3 attempt(s): retry: attempt 3 of 3, budget spent: ` +
			`pix: Post \"http://127.0.0.1:1/v1/pix/payments\": dial tcp 127.0.0.1:1: connect: connection refused" ` +
			`fix="check -psp, and that the PSP runs there"`, "durable: the PSP cannot be reached on every attempt for "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "pay.db")
			added, _, _ := pixpay(t, "-db", db, "add", "-id", "a", "-valor", "1.00", "-chave", "pix@example.com")
			key := lines(t, added)[0].Key
			args := append([]string{"-db", db, "-psp", tt.psp, "-token", tt.token}, fast...)
			stderr, code := runToEnd(t, 30*time.Second, append(args, "run", "-until-done")...)
			logged := regexp.MustCompile(`time=\S+ `).ReplaceAllString(strings.ReplaceAll(stderr, key, "KEY"), "")
			if code != 1 || strings.Count(logged, "level=ERROR") != 1 || !strings.Contains(logged, tt.record) {
				t.Errorf("run: exit %d, stderr:\n%s\nwant exit 1 and one ERROR record: %s", code, logged, tt.record)
			}
			if strings.Contains(logged, "level=WARN") {
				t.Errorf("run: stderr:\n%s\nwant no WARN record: the ERROR record says it", logged)
			}
			summary := "pixpay: run ended; the database holds 0 settled, 0 refused and 1 pending intents\n" +
				"pixpay: pending a waits: pix: outcome unknown for key \"KEY\" after "
			if !strings.Contains(logged, summary) {
				t.Errorf("run: stderr:\n%s\nwant the summary %q", logged, summary)
			}
			if last := lastLine(logged); !strings.HasPrefix(last, tt.ends) || !strings.Contains(last, "; check -") {
				t.Errorf("run's last line = %q, want it to start %q and name the option to check", last, tt.ends)
			}
			out, _, _ := pixpay(t, "-db", db, "list")
			if got := lines(t, out); len(got) != 1 || got[0].Status != "pending" || got[0].Key != key {
				t.Fatalf("list after the run = %q, want a pending under its key %s", out, key)
			}
			stderr, code = runToEnd(t, 30*time.Second, "-db", db, "-psp", url, "-poll", "50ms", "run", "-until-done")
			if code != 0 || settlements()[key] != 1 || !strings.Contains(stderr, "holds 1 settled, 0 refused and 0 pending") {
				t.Errorf("run with the trouble fixed: exit %d, %d settlements under the key, stderr:\n%s\nwant 0, 1 and the summary",
					code, settlements()[key], stderr)
			}
		})
	}
}

// lastLine is s's last non-empty line.
func lastLine(s string) string {
	all := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return all[len(all)-1]
}
