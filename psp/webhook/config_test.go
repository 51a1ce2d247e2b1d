package webhook_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"pixretry/psp/webhook"
)

// TestNewRefusesABadConfig: New names the field it cannot follow.
func TestNewRefusesABadConfig(t *testing.T) {
	good := webhook.Config{URL: "https://receiver.example/pix", Secret: webhook.Secret(secret)}
	for _, tc := range []struct {
		field string
		edit  func(*webhook.Config)
	}{
		{"URL", func(c *webhook.Config) { c.URL = "" }},
		{"URL", func(c *webhook.Config) { c.URL = "/pix" }},
		{"URL", func(c *webhook.Config) { c.URL = "ftp://receiver.example/pix" }},
		{"URL", func(c *webhook.Config) { c.URL = "http:///pix" }},
		{"URL", func(c *webhook.Config) { c.URL = "http://[::1/pix" }},
		{"Secret", func(c *webhook.Config) { c.Secret = nil }},
		{"Secret", func(c *webhook.Config) { c.Secret = c.Secret[:webhook.MinSecretBytes-1] }},
		{"Attempts", func(c *webhook.Config) { c.Attempts = -1 }},
		{"Attempts", func(c *webhook.Config) { c.Attempts = webhook.MaxAttempts + 1 }},
		{"DelayBase", func(c *webhook.Config) { c.DelayBase = -1 }},
		{"WaitMax", func(c *webhook.Config) { c.WaitMax = -1 }},
		{"WaitMax", func(c *webhook.Config) { c.WaitMax = 500 * time.Millisecond }}, // below the default base
		{"WaitMax", func(c *webhook.Config) { c.DelayBase, c.WaitMax = 2*time.Second, time.Second }},
		{"Timeout", func(c *webhook.Config) { c.Timeout = -1 }},
		{"Queue", func(c *webhook.Config) { c.Queue = -1 }},
		{"Parallel", func(c *webhook.Config) { c.Parallel = -1 }},
	} {
		cfg := good
		tc.edit(&cfg)
		_, err := webhook.New(cfg)
		if bad, ok := errors.AsType[*webhook.ConfigError](err); !ok || bad.Field != tc.field {
			t.Errorf("New(%+v) = %v, want a *ConfigError for %s", cfg, err, tc.field)
		}
	}
	for _, url := range []string{"http://127.0.0.1:8081", "https://receiver.example:8443/pix?x=1"} {
		cfg := good
		cfg.URL = url
		s, err := webhook.New(cfg)
		if err != nil {
			t.Errorf("New() with URL %s: %v", url, err)
			continue
		}
		s.Close()
	}
}

// TestSecretNeverPrints: a Secret prints as [secret] with every verb, in a Config too, logged
// or encoded.
func TestSecretNeverPrints(t *testing.T) {
	cfg := webhook.Config{URL: "http://127.0.0.1:1/", Secret: webhook.Secret(secret)}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("config", "secret", cfg.Secret, "config", cfg)
	encoded, err := json.Marshal(struct{ Secret webhook.Secret }{cfg.Secret})
	if err != nil {
		t.Fatal(err)
	}
	printed := fmt.Sprintf("%v %+v %#v %s %x %q %d", cfg, cfg, cfg, cfg.Secret, cfg.Secret, cfg.Secret, cfg.Secret)
	for name, text := range map[string]string{"printed": printed, "logged": logged.String(), "encoded": string(encoded)} {
		wantNoSecret(t, name, text)
	}
}

// TestSecretNeverLoggedNorRecorded: whatever becomes of the deliveries, neither the log nor the
// record holds the secret.
func TestSecretNeverLoggedNorRecorded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logged bytes.Buffer
		answers := map[string]int{"delivered": 200, "refused": 404, "given-up": 500, "no-answer": hang}
		rc := &receiver{answer: func(_ int, body string) int {
			for key, status := range answers {
				if strings.Contains(body, `"`+key+`"`) {
					return status
				}
			}
			return http.StatusOK
		}}
		s := mustSender(t, rc, func(c *webhook.Config) {
			c.Attempts, c.Timeout, c.Queue = 2, time.Second, 2
			c.Logger = slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))
		})
		s.Inject(webhook.Delay(time.Hour), webhook.Duplicate(), webhook.Fail(1))
		for _, key := range []string{"dropped", "delivered", "refused", "given-up", "no-answer"} {
			s.Send(ended(key, 100, "REALIZADO"))
			synctest.Wait()
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		record := fmt.Sprintf("%+v %+v", s.Deliveries(), s.Stats())
		wantNoSecret(t, "the log", logged.String())
		wantNoSecret(t, "the record", record)
		for _, want := range []string{"delivered", "refused", "given_up", "dropped", "no answer within 1s", "fail fault"} {
			if !strings.Contains(record, want) {
				t.Errorf("no delivery was %s: the test misses a path\n%s", want, record)
			}
		}
	})
}

// wantNoSecret fails if text holds the secret, as is or in hexadecimal.
func wantNoSecret(t *testing.T, name, text string) {
	t.Helper()
	for _, form := range []string{secret, fmt.Sprintf("%x", secret), secret[:16]} {
		if strings.Contains(text, form) {
			t.Errorf("%s holds the secret: %s", name, text)
		}
	}
}
