package main

// run's webhooks from the command line: -webhook and its secret file, and what a bad one says.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// secretFile writes content to a file of the test's and returns its path.
func secretFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestWebhookOptionsRefusedInWords(t *testing.T) {
	db := filepath.Join(t.TempDir(), "pay.db")
	good := secretFile(t, strings.Repeat("s", 32)+"\n")
	short := secretFile(t, strings.Repeat("s", 31)+"\r\n")
	missing := filepath.Join(t.TempDir(), "nowhere")
	for _, tt := range []struct {
		args []string
		says string
	}{
		{[]string{"-webhook", "127.0.0.1:0"}, "pixpay: -webhook needs -webhook-secret-file, the secret the PSP signs them with"},
		{[]string{"-webhook-secret-file", good}, "pixpay: -webhook-secret-file needs -webhook, the address to serve webhooks on"},
		{[]string{"-webhook", "127.0.0.1:0", "-webhook-secret-file", short}, "holds 31 bytes: want at least 32"},
		{[]string{"-webhook", "127.0.0.1:0", "-webhook-secret-file", missing}, "pixpay: -webhook-secret-file: open " + missing},
		{[]string{"-webhook", "127.0.0.1:-1", "-webhook-secret-file", good}, "pixpay: -webhook 127.0.0.1:-1: "},
	} {
		args := append(append([]string{"-db", db, "-psp", "http://127.0.0.1:1"}, tt.args...), "run", "-until-done")
		_, stderr, code := pixpay(t, args...)
		if code != 2 || !strings.Contains(stderr, tt.says) || !strings.Contains(stderr, "usage:") {
			t.Errorf("pixpay %v: exit %d, stderr %q; want 2, the usage and %q", tt.args, code, stderr, tt.says)
		}
		if strings.Contains(stderr, strings.Repeat("s", 31)) {
			t.Errorf("pixpay %v: stderr repeats the secret: %q", tt.args, stderr)
		}
	}
}

func TestReadSecretLeavesOneNewlineOut(t *testing.T) {
	for content, want := range map[string]string{
		strings.Repeat("a", 32) + "\n":   strings.Repeat("a", 32),
		strings.Repeat("a", 32) + "\r\n": strings.Repeat("a", 32),
		strings.Repeat("a", 33):          strings.Repeat("a", 33),
		strings.Repeat("a", 32) + "\n\n": strings.Repeat("a", 32) + "\n",
	} {
		got, err := readSecret(secretFile(t, content))
		if err != nil || string(got) != want {
			t.Errorf("readSecret(%q) = %q, %v; want %q", content, got, err, want)
		}
	}
}
