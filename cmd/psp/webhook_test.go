package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	encjson "encoding/json" // json is exposure_test.go's media type
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"pixretry/internal/cmdline"
	"pixretry/psp"
	"pixretry/psp/efi"
)

// webhookSecret signs the webhooks of these tests. Nothing psp prints or serves may hold it.
const webhookSecret = "cmd-psp-webhook-secret-0123456789"

// secretFile is a file in a new folder that holds content; it returns its name.
func secretFile(t *testing.T, content string) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return name
}

// TestWebhookFlagsRefused: a -webhook that psp cannot use exits 2, the problem naming the flag
// and never the secret.
func TestWebhookFlagsRefused(t *testing.T) {
	good := secretFile(t, webhookSecret+"\n")
	short := secretFile(t, webhookSecret[:31]+"\n")
	faults := secretFile(t, `{"faults":[{"kind":"reorder","target":"webhook"}]}`)
	missing := filepath.Join(t.TempDir(), "none")
	const url = "http://127.0.0.1:8081/pix"
	tests := map[string]struct {
		args []string
		want string // the first line of stderr
	}{
		"no secret file": {[]string{"-webhook", url},
			"psp: -webhook: needs -webhook-secret-file, a file holding the secret that signs each webhook"},
		"no URL": {[]string{"-webhook-secret-file", good},
			"psp: -webhook-secret-file: needs -webhook, the URL the webhooks go to"},
		"a missing secret file": {[]string{"-webhook", url, "-webhook-secret-file", missing},
			"psp: -webhook-secret-file: open " + missing + ": no such file or directory"},
		"a short secret": {[]string{"-webhook", url, "-webhook-secret-file", short},
			"psp: -webhook-secret-file " + short + ": 31 bytes, want at least 32, a trailing newline left out"},
		"a relative URL": {[]string{"-webhook", "/pix", "-webhook-secret-file", good},
			`psp: -webhook "/pix": want an absolute http or https URL, as in http://127.0.0.1:8081/pix`},
		"another scheme": {[]string{"-webhook", "ftp://127.0.0.1/pix", "-webhook-secret-file", good},
			`psp: -webhook "ftp://127.0.0.1/pix": want an absolute http or https URL, as in http://127.0.0.1:8081/pix`},
		"no host": {[]string{"-webhook", "http:///pix", "-webhook-secret-file", good},
			`psp: -webhook "http:///pix": want an absolute http or https URL, as in http://127.0.0.1:8081/pix`},
		"no attempt": {[]string{"-webhook", url, "-webhook-secret-file", good, "-webhook-attempts", "0"},
			"psp: -webhook-attempts 0: want 1 to 100"},
		"too many attempts": {[]string{"-webhook", url, "-webhook-secret-file", good, "-webhook-attempts", "101"},
			"psp: -webhook-attempts 101: want 1 to 100"},
		"no delay base": {[]string{"-webhook", url, "-webhook-secret-file", good, "-webhook-delay-base", "0s"},
			"psp: -webhook-delay-base 0s: want a positive duration, as in 1s"},
		"a wait max below the base": {[]string{"-webhook", url, "-webhook-secret-file", good, "-webhook-delay-base", "2s",
			"-webhook-wait-max", "1s"}, "psp: -webhook-wait-max 1s: want a duration of at least -webhook-delay-base (2s), as in 1m"},
		"no timeout": {[]string{"-webhook", url, "-webhook-secret-file", good, "-webhook-timeout", "0s"},
			"psp: -webhook-timeout 0s: want a positive duration, as in 5s"},
		"no queue": {[]string{"-webhook", url, "-webhook-secret-file", good, "-webhook-queue", "0"},
			"psp: -webhook-queue 0: want a positive number, as in 1000"},
		"webhook faults without -webhook": {[]string{"-faults", faults},
			`psp: -faults ` + faults + `: 1 faults with "target":"webhook", but no -webhook URL to send webhooks to`},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), tt.args, &stdout, &stderr)
			if got := cmdline.ExitCode(err); got != 2 {
				t.Errorf("exit code = %d (run: %v), want 2", got, err)
			}
			if !strings.HasPrefix(stderr.String(), tt.want+"\nUsage of psp:\n") || stdout.Len() != 0 {
				t.Errorf("stderr = %.300q..., stdout = %q; want %q, then the usage, on stderr only", stderr.String(),
					stdout.String(), tt.want)
			}
			if strings.Contains(stderr.String(), webhookSecret[:16]) {
				t.Errorf("stderr repeats the secret: %q", stderr.String())
			}
		})
	}
}

// delivery is a webhook a receiver got.
type delivery struct {
	signature, body string
	at              time.Time
	target          string // the request's path and query
}

// receiving is a webhook receiver on loopback that answers 204 and hands each delivery over.
func receiving(t *testing.T) (*httptest.Server, chan delivery) {
	got := make(chan delivery, 10)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- delivery{r.Header.Get("Pix-Signature"), string(body), time.Now(), r.URL.RequestURI()}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.Close)
	return rc, got
}

// signedBy reports whether signature is "t=<unix seconds>,v1=<hex HMAC-SHA256(secret,
// "<t>.<body>")>" with t within a minute of at, computed here apart from package webhook.
func signedBy(secret, signature, body string, at time.Time) bool {
	t, v1, _ := strings.Cut(signature, ",")
	unix, err := strconv.ParseInt(strings.TrimPrefix(t, "t="), 10, 64)
	sum, hexErr := hex.DecodeString(strings.TrimPrefix(v1, "v1="))
	mac := hmac.New(sha256.New, []byte(secret))
	io.WriteString(mac, strconv.FormatInt(unix, 10)+"."+body)
	return err == nil && hexErr == nil && strings.HasPrefix(t, "t=") && strings.HasPrefix(v1, "v1=") &&
		hmac.Equal(sum, mac.Sum(nil)) && at.Sub(time.Unix(unix, 0)).Abs() < time.Minute
}

// TestWebhookReachesAReceiver runs psp with -webhook at a receiver on loopback: a payment that
// settles reaches it once, signed with the secret of the file (its \r\n left out), and GET
// /_psp/webhooks says so. Neither the answers of the control API nor the log hold the secret.
func TestWebhookReachesAReceiver(t *testing.T) {
	rc, got := receiving(t)
	s := mustStart(t, "-tokens", "smoke", "-webhook", rc.URL+"/pix?from=psp", "-webhook-secret-file",
		secretFile(t, webhookSecret+"\r\n"))
	if status, body := s.do(t, "POST", psp.PaymentsPath, "k1", strings.NewReader(payment)); status != 201 {
		t.Fatalf("payment = %d %s, want 201", status, body)
	}
	var d delivery
	select {
	case d = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("no webhook within 10s")
	}
	want := regexp.MustCompile(`^\{"id":"wh_[0-9a-z]{20}","endToEndId":"E12345678[0-9]{12}[0-9a-z]{11}",` +
		`"idempotencyKey":"k1","status":"REALIZADO","valor":"150.00","horario":"[0-9T:.-]+Z"\}$`)
	if !want.MatchString(d.body) || !signedBy(webhookSecret, d.signature, d.body, d.at) {
		t.Errorf("webhook %s signed %q, want the pinned body signed with the secret", d.body, d.signature)
	}
	// The Sender records the receiver's answer after the receiver has the body: wait for it.
	var status int
	var body string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		status, body = s.do(t, "GET", "/_psp/webhooks", "", nil)
		var record struct {
			Deliveries []struct {
				State string `json:"state"`
			} `json:"deliveries"`
			Sent int `json:"sent"`
		}
		err := encjson.Unmarshal([]byte(body), &record)
		if err == nil && status == 200 && record.Sent == 1 && len(record.Deliveries) == 1 &&
			record.Deliveries[0].State == "delivered" {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("GET /_psp/webhooks = %d %s, want one delivery, delivered", status, body)
			break
		}
	}
	for _, path := range []string{"/_psp/webhooks", "/_psp/", "/_psp/requests", "/_psp/faults", "/openapi.json"} {
		if _, body := s.do(t, "GET", path, "", nil); strings.Contains(body, webhookSecret) {
			t.Errorf("GET %s holds the secret", path)
		}
	}
	if err := s.stop(); err != nil {
		t.Errorf("run() = %v, want nil", err)
	}
	for line := range s.logs {
		if strings.Contains(line, webhookSecret[:16]) {
			t.Errorf("the log holds the secret: %s", line)
		}
	}
	if n := len(got); n != 0 {
		t.Errorf("the receiver got %d more webhooks, want the one", n)
	}
}

// TestWebhookFaultsFromAFile: -faults queues the faults with "target":"webhook" for the
// webhooks, and GET /_psp/faults gives them back after the payments'.
func TestWebhookFaultsFromAFile(t *testing.T) {
	rc, _ := receiving(t)
	faults := secretFile(t, `{"faults":[{"kind":"fail","times":2,"target":"webhook"},{"kind":"drop"}]}`)
	s := mustStart(t, "-webhook", rc.URL, "-webhook-secret-file", secretFile(t, webhookSecret), "-faults", faults)
	want := `{"faults":[{"kind":"drop"},{"kind":"fail","times":2,"target":"webhook"}]}` + "\n"
	if status, body := s.do(t, "GET", "/_psp/faults", "", nil); status != 200 || body != want {
		t.Errorf("GET /_psp/faults = %d %s, want 200 %s", status, body, want)
	}
	if err := s.stop(); err != nil {
		t.Errorf("run() = %v, want nil", err)
	}
}

// TestWebhookInEfisForm: under -dialect efi the webhook is Efí's callback of a Pix sent, posted to
// the URL with the secret as its hmac parameter and an empty ignorar that takes the /pix Efí
// appends, and with no Pix-Signature. A payout in -reject-range is told NAO_REALIZADO, with the
// core's motivo in gnExtras.erro.
func TestWebhookInEfisForm(t *testing.T) {
	rc, got := receiving(t)
	s := mustStart(t, "-tokens", "smoke", "-dialect", "efi", "-reject-range", "10.01-20.00", "-webhook", rc.URL+"/efi",
		"-webhook-secret-file", secretFile(t, webhookSecret))
	for key, valor := range map[string]string{"k1": "150.00", "k2": "15.00"} {
		payout := `{"valor":"` + valor + `","pagador":{"chave":"` + efi.PayerKey +
			`"},"favorecido":{"chave":"pix@example.com"}}`
		if status, body := s.do(t, "PUT", efi.SendPath+key, "", strings.NewReader(payout)); status != 201 {
			t.Fatalf("payout %s = %d %s, want 201", key, status, body)
		}
	}
	entry := `^\{"pix":\[\{"endToEndId":"E12345678[0-9]{12}[0-9a-z]{11}","chave":"` + regexp.QuoteMeta(efi.PayerKey) +
		`","tipo":"SOLICITACAO",`
	want := map[string]*regexp.Regexp{
		"k1": regexp.MustCompile(entry + `"status":"REALIZADO","valor":"150.00","horario":"[0-9T:.-]+Z",` +
			`"gnExtras":\{"idEnvio":"k1"\}\}\]\}\n$`),
		"k2": regexp.MustCompile(entry + `"status":"NAO_REALIZADO","valor":"15.00","horario":null,` +
			`"gnExtras":\{"idEnvio":"k2","erro":\{"codigo":"DS04","origem":"PSP do usuário recebedor",` +
			`"motivo":"valor 15.00 is in the range the PSP rejects, 10.01 to 20.00"\}\}\}\]\}\n$`),
	}
	for range want {
		var d delivery
		select {
		case d = <-got:
		case <-time.After(10 * time.Second):
			t.Fatal("no webhook within 10s")
		}
		key := "k1"
		if strings.Contains(d.body, `"idEnvio":"k2"`) {
			key = "k2"
		}
		re, ok := want[key]
		if !ok {
			t.Fatalf("webhook %s is the second for %s, want one each for k1 and k2", d.body, key)
		}
		if !re.MatchString(d.body) || d.signature != "" {
			t.Errorf("webhook %s with Pix-Signature %q, want Efí's callback of %s unsigned", d.body, d.signature, key)
		}
		delete(want, key)
		if wantTarget := "/efi?hmac=" + webhookSecret + "&ignorar=/pix"; d.target != wantTarget {
			t.Errorf("webhook posted to %s, want %s", d.target, wantTarget)
		}
	}
	if err := s.stop(); err != nil {
		t.Errorf("run() = %v, want nil", err)
	}
}
