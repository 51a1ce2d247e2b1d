package main

// Webhooks across processes: cmd/psp with -webhook delivers the ends of payments it accepted
// pending to pixpay run -webhook, duplicated, reordered and failed on command; a forged one
// comes too; and the first pixpay is killed with SIGKILL between receiving a webhook and
// storing it.

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"pixretry/durable"
)

// crashEnv names the crash point at which a child kills itself with SIGKILL.
const crashEnv = "PIXPAY_TEST_CRASH_AT"

// crashAt are the knobs of a child that kills itself at point, or none for "".
func crashAt(point string) durable.TestingKnobs {
	if point == "" {
		return durable.TestingKnobs{}
	}
	return durable.TestingKnobs{CrashPoint: func(at string) {
		if at == point {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}}
}

// buildPSP builds cmd/psp into the test's folder, with -race if this test binary has it, so
// that make test's build serves it.
func buildPSP(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "psp")
	args := []string{"build", "-o", bin}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "-race" && s.Value == "true" {
				args = append(args, "-race")
			}
		}
	}
	out, err := exec.Command("go", append(args, "pixretry/cmd/psp")...).CombinedOutput()
	if err != nil {
		t.Fatalf("go build cmd/psp: %v\n%s", err, out)
	}
	return bin
}

// startProcess starts bin with args and env, killed at the end of the test, and returns it
// once it has written a line on stderr or stdout holding ready.
func startProcess(t *testing.T, env []string, ready string, bin string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	r, w := io.Pipe()
	cmd.Stdout, cmd.Stderr = w, w
	var all bytes.Buffer
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	seen := make(chan bool, 1)
	go func() {
		found := false
		for sc := bufio.NewScanner(r); sc.Scan(); {
			all.WriteString(sc.Text() + "\n")
			if !found && strings.Contains(sc.Text(), ready) {
				found = true
				seen <- true
			}
		}
		if !found {
			seen <- false
		}
	}()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait(); w.Close() })
	select {
	case ok := <-seen:
		if !ok {
			t.Fatalf("%s %v ended before %q:\n%s", bin, args, ready, all.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("%s %v: no %q within 60 s", bin, args, ready)
	}
	return cmd, &all
}

// freePort is a loopback address free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// post posts body to url and returns the status.
func post(t *testing.T, url, body string, header map[string]string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// getJSON reads the JSON at url into v.
func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

// signed is the Pix-Signature of body at t under secret.
func signed(secret string, t time.Time, body string) string {
	m := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(m, "%d.%s", t.Unix(), body)
	return fmt.Sprintf("t=%d,v1=%s", t.Unix(), hex.EncodeToString(m.Sum(nil)))
}

func TestWebhooksAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/psp and runs it beside pixpay in real time")
	}
	secret := strings.Repeat("k", 40)
	secretPath := secretFile(t, secret+"\n")
	pspAddr, hookAddr := freeAddr(t), freeAddr(t)
	psp := "http://" + pspAddr
	startProcess(t, nil, "psp: listening on", buildPSP(t), "-addr", pspAddr, "-log", "warn",
		"-complete-after", "400ms", "-reject-range", "2.00-2.99",
		"-webhook", "http://"+hookAddr+"/", "-webhook-secret-file", secretPath,
		"-webhook-delay-base", "100ms", "-webhook-wait-max", "500ms", "-webhook-attempts", "20")
	faults := `{"faults":[{"target":"webhook","kind":"duplicate"},{"target":"webhook","kind":"reorder"},` +
		`{"target":"webhook","kind":"fail","times":2},{"target":"webhook","kind":"delay","duration_ms":300},` +
		`{"target":"webhook","kind":"duplicate"}]}`
	if code := post(t, psp+"/_psp/faults", faults, nil); code != http.StatusNoContent {
		t.Fatalf("POST /_psp/faults: %d", code)
	}
	db := filepath.Join(t.TempDir(), "pay.db")
	cents := map[string]int64{"a": 101, "b": 202, "c": 103, "d": 204, "e": 105, "f": 106}
	keys := map[string]string{}
	for id, c := range cents {
		out, stderr, code := pixpay(t, "-db", db, "add", "-id", id, "-valor", fmt.Sprintf("%d.%02d", c/100, c%100),
			"-chave", "pix@example.com")
		if code != 0 {
			t.Fatalf("add %s: %s", id, stderr)
		}
		keys[id] = lines(t, out)[0].Key
	}
	args := []string{"-db", db, "-psp", psp, "-webhook", hookAddr, "-webhook-secret-file", secretPath,
		"-delay-base", "2s", "-delay-max", "4s", "-poll", "50ms", "run", "-until-done"}
	// The first run dies with SIGKILL at the first webhook it receives, before storing it: the
	// PSP got no answer, and delivers again.
	first, firstOut := startProcess(t, []string{childEnv + "=1", crashEnv + "=webhook-received"}, "pixpay: webhooks on",
		os.Args[0], args...)
	if err := first.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("the first run ended with %v, want killed at its crash point; its output:\n%s", err, firstOut)
	}
	second, secondOut := startProcess(t, []string{childEnv + "=1"}, "pixpay: webhooks on", os.Args[0], args...)
	// Forged deliveries while it runs: a wrong signature, and a right one made too long ago.
	forged := fmt.Sprintf(`{"id":"wh_forged","endToEndId":"E12345678202612070000aaaaaaaaaaa","idempotencyKey":%q,`+
		`"status":"NAO_REALIZADO","valor":"1.01","horario":"2026-12-07T00:00:00Z"}`, keys["a"])
	for name, sig := range map[string]string{
		"a wrong signature": signed(strings.Repeat("x", 40), time.Now(), forged),
		"an old timestamp":  signed(secret, time.Now().Add(-10*time.Minute), forged),
		"no signature":      "",
	} {
		if code := post(t, "http://"+hookAddr+"/", forged, map[string]string{"Pix-Signature": sig}); code != http.StatusUnauthorized {
			t.Errorf("a forged delivery with %s: %d, want 401", name, code)
		}
	}
	done := make(chan error, 1)
	go func() { done <- second.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the second run: %v; its output:\n%s", err, secondOut)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("the second run still runs after 60 s; its output:\n%s", secondOut)
	}

	var ledger []struct{ IdempotencyKey, EndToEndID string }
	getJSON(t, psp+"/_psp/settlements", &struct{ Settlements any }{&ledger})
	settled := map[string]string{}
	for _, s := range ledger {
		if _, twice := settled[s.IdempotencyKey]; twice {
			t.Errorf("the ledger settles key %s twice", s.IdempotencyKey)
		}
		settled[s.IdempotencyKey] = s.EndToEndID
	}
	out, _, _ := pixpay(t, "-db", db, "list")
	for _, in := range lines(t, out) {
		want := "settled"
		if cents[in.ID]/100 == 2 {
			want = "refused" // in -reject-range: accepted, then NAO_REALIZADO
		}
		if in.Status != want || in.Key != keys[in.ID] || len(in.Keys) != 1 || in.EndToEndID != settled[in.Key] {
			t.Errorf("intent %+v, ledger endToEndId %q; want %s under its first key, as the ledger says", in, settled[in.Key], want)
		}
	}
	if len(settled) != 4 {
		t.Errorf("the ledger holds %d settlements, want 4", len(settled))
	}
	var hooks struct {
		Deliveries                                           []struct{ State string }
		Sent, Retried, Duplicated, GivenUp, Refused, Dropped int
	}
	getJSON(t, psp+"/_psp/webhooks", &hooks)
	var requests []struct{ IdempotencyKey string }
	getJSON(t, psp+"/_psp/requests", &struct {
		Requests *[]struct{ IdempotencyKey string }
	}{&requests})
	t.Logf("webhooks: %d deliveries, %d sent, %d retried, %d duplicated, %d given up, %d refused, %d dropped; "+
		"%d requests to the PSP for %d payments", len(hooks.Deliveries), hooks.Sent, hooks.Retried, hooks.Duplicated,
		hooks.GivenUp, hooks.Refused, hooks.Dropped, len(requests), len(cents))
	if hooks.Duplicated < 1 || hooks.Retried < 1 {
		t.Errorf("webhooks: %+v, want a duplicated delivery and a retried one", hooks)
	}
}
