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

// TestNewRefusesABadConfig: New names the field it cannot follow, and why.
func TestNewRefusesABadConfig(t *testing.T) {
	good := webhook.Config{URL: "https://receiver.example/pix", Secret: webhook.Secret(secret)}
	for _, tc := range []struct {
		field string
		edit  func(*webhook.Config)
		want  string
	}{
		{"URL", func(c *webhook.Config) { c.URL = "" }, `URL "" is not an absolute http or https URL`},
		{"URL", func(c *webhook.Config) { c.URL = "/pix" }, `URL "/pix" is not an absolute http or https URL`},
		{"URL", func(c *webhook.Config) { c.URL = "ftp://receiver.example/pix" },
			`URL "ftp://receiver.example/pix" is not an absolute http or https URL`},
		{"URL", func(c *webhook.Config) { c.URL = "http:///pix" }, `URL "http:///pix" is not an absolute http or https URL`},
		{"URL", func(c *webhook.Config) { c.URL = "http://[::1/pix" },
			`URL "http://[::1/pix" is not an absolute http or https URL`},
		{"Secret", func(c *webhook.Config) { c.Secret = nil }, "Secret has 0 bytes, want at least 32"},
		{"Secret", func(c *webhook.Config) { c.Secret = c.Secret[:webhook.MinSecretBytes-1] },
			"Secret has 31 bytes, want at least 32"},
		{"Attempts", func(c *webhook.Config) { c.Attempts = -1 }, "Attempts is -1, want 1 to 100 (0 for 8)"},
		{"Attempts", func(c *webhook.Config) { c.Attempts = webhook.MaxAttempts + 1 }, "Attempts is 101, want 1 to 100 (0 for 8)"},
		{"DelayBase", func(c *webhook.Config) { c.DelayBase = -1 }, "DelayBase is -1ns, want 0 or more"},
		{"WaitMax", func(c *webhook.Config) { c.WaitMax = -1 }, "WaitMax is -1ns, want 0 or at least DelayBase (1s)"},
		{"WaitMax", func(c *webhook.Config) { c.WaitMax = 500 * time.Millisecond }, // below the default base
			"WaitMax is 500ms, want 0 or at least DelayBase (1s)"},
		{"WaitMax", func(c *webhook.Config) { c.DelayBase, c.WaitMax = 2*time.Second, time.Second },
			"WaitMax is 1s, want 0 or at least DelayBase (2s)"},
		{"Timeout", func(c *webhook.Config) { c.Timeout = -1 }, "Timeout is -1ns, want 0 or more"},
		{"Queue", func(c *webhook.Config) { c.Queue = -1 }, "Queue is -1, want 0 or more"},
		{"Parallel", func(c *webhook.Config) { c.Parallel = -1 }, "Parallel is -1, want 0 or more"},
	} {
		cfg := good
		tc.edit(&cfg)
		_, err := webhook.New(cfg)
		if bad, ok := errors.AsType[*webhook.ConfigError](err); !ok || bad.Field != tc.field ||
			err.Error() != "webhook: invalid config: "+tc.want {
			t.Errorf("New(%+v) = %v, want a *ConfigError for %s: %s", cfg, err, tc.field, tc.want)
		}
	}
	for _, edit := range []func(*webhook.Config){
		func(c *webhook.Config) { c.URL = "http://127.0.0.1:8081" },
		func(c *webhook.Config) { c.URL = "https://receiver.example:8443/pix?x=1" },
		func(c *webhook.Config) { c.Attempts = webhook.MaxAttempts },
		func(c *webhook.Config) { c.WaitMax = time.Second }, // the default base
		func(c *webhook.Config) { c.DelayBase, c.WaitMax = 2*time.Second, 2*time.Second },
	} {
		cfg := good
		edit(&cfg)
		s, err := webhook.New(cfg)
		if err != nil {
			t.Errorf("New(%+v): %v", cfg, err)
			continue
		}
		s.Close()
	}
}

// TestDefaultAttempts: Attempts 0 gives a delivery 8 tries.
func TestDefaultAttempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rc := &receiver{answer: func(int, string) int { return http.StatusServiceUnavailable }}
		s := mustSender(t, rc, nil)
		s.Send(ended("k", 100, "REALIZADO"))
		time.Sleep(time.Hour)
		synctest.Wait()
		if d := s.Deliveries()[0]; d.State != webhook.GivenUp || len(d.Attempts) != 8 {
			t.Errorf("delivery %s after %d tries, want given_up after 8", d.State, len(d.Attempts))
		}
	})
}

// TestNewCopiesTheSecret: a change to the caller's bytes after New does not change the key.
func TestNewCopiesTheSecret(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		key := []byte(secret)
		rc := answering()
		s := mustSender(t, rc, func(c *webhook.Config) { c.Secret = key })
		copy(key, "changed")
		s.Send(ended("k", 100, "REALIZADO"))
		synctest.Wait()
		r := rc.received()[0]
		if _, ok := verified(secret, r.signature, r.body); !ok {
			t.Errorf("Pix-Signature %q does not verify with the secret given to New", r.signature)
		}
	})
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
	if want := `{"Secret":"[secret]"}`; string(encoded) != want {
		t.Errorf("json.Marshal() = %s, want %s", encoded, want)
	}
	if want := `"secret":"[secret]"`; !strings.Contains(logged.String(), want) {
		t.Errorf("logged %s, want %s", &logged, want)
	}
	if got, want := fmt.Sprint(cfg.Secret), "[secret]"; got != want {
		t.Errorf("fmt.Sprint(Secret) = %s, want %s", got, want)
	}
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
