package psp_test

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"pixretry/psp"
)

func TestNewServerRejectsBadConfig(t *testing.T) {
	tests := map[string]func(*psp.Config){
		"no tokens":                func(c *psp.Config) { c.Tokens = nil },
		"empty token":              func(c *psp.Config) { c.Tokens = []string{"ok", ""} },
		"token with space":         func(c *psp.Config) { c.Tokens = []string{"a b"} },
		"negative balance":         func(c *psp.Config) { c.BalanceCents = -1 },
		"negative TTL":             func(c *psp.Config) { c.KeyTTL = -1 },
		"negative MaxKeys":         func(c *psp.Config) { c.MaxKeys = -1 },
		"negative MaxSettlements":  func(c *psp.Config) { c.MaxSettlements = -1 },
		"short ISPB":               func(c *psp.Config) { c.ISPB = "1234567" },
		"ISPB with letters":        func(c *psp.Config) { c.ISPB = "1234567a" },
		"negative service time":    func(c *psp.Config) { c.ServiceTime = -time.Nanosecond },
		"negative capacity":        func(c *psp.Config) { c.Capacity = -1 },
		"negative shed RetryAfter": func(c *psp.Config) { c.ShedRetryAfter = -time.Nanosecond },
		"negative JournalMax":      func(c *psp.Config) { c.JournalMax = -1 },
		"negative JournalBytes":    func(c *psp.Config) { c.JournalBytes = -1 },
		"negative CompleteAfter":   func(c *psp.Config) { c.CompleteAfter = -time.Nanosecond },
		"negative RejectFromCents": func(c *psp.Config) { c.RejectFromCents, c.RejectToCents = -1, 100 },
		"reject range backwards":   func(c *psp.Config) { c.RejectFromCents, c.RejectToCents = 2000, 1001 },
		"reject from without to":   func(c *psp.Config) { c.RejectFromCents = 1001 },
	}
	for name, edit := range tests {
		t.Run(name, func(t *testing.T) {
			cfg := psp.DefaultConfig()
			edit(&cfg)
			s, err := psp.NewServer(cfg)
			if err == nil || !strings.HasPrefix(err.Error(), "psp: invalid config: ") || s != nil {
				t.Errorf("NewServer() = %v, %v; want nil, psp: invalid config: ...", s, err)
			}
		})
	}
}

// TestNewServerNamesTheFieldRefused: the error of a bad Config is a *ConfigError that names
// the field, and for a token its position, so that a caller branches without reading the text.
func TestNewServerNamesTheFieldRefused(t *testing.T) {
	tests := []struct {
		edit  func(*psp.Config)
		field string
		token int
	}{
		{func(c *psp.Config) { c.Tokens = nil }, "Tokens", -1},
		{func(c *psp.Config) { c.Tokens = []string{""} }, "Tokens", 0},
		{func(c *psp.Config) { c.Tokens = []string{"ok", "a b", ""} }, "Tokens", 1},
		{func(c *psp.Config) { c.Tokens = []string{"ok", "~!", "\x7f"} }, "Tokens", 2},
		{func(c *psp.Config) { c.Tokens = []string{"a b"}; c.KeyTTL = -1 }, "Tokens", 0}, // the tokens come first
		{func(c *psp.Config) { c.BalanceCents = -1 }, "BalanceCents", -1},
		{func(c *psp.Config) { c.KeyTTL = -1 }, "KeyTTL", -1},
		{func(c *psp.Config) { c.MaxKeys = -1 }, "MaxKeys", -1},
		{func(c *psp.Config) { c.MaxSettlements = -1 }, "MaxSettlements", -1},
		{func(c *psp.Config) { c.ISPB = "1234567" }, "ISPB", -1},
		{func(c *psp.Config) { c.ServiceTime = -1 }, "ServiceTime", -1},
		{func(c *psp.Config) { c.Capacity = -1 }, "Capacity", -1},
		{func(c *psp.Config) { c.ShedRetryAfter = -1 }, "ShedRetryAfter", -1},
		{func(c *psp.Config) { c.JournalMax = -1 }, "JournalMax", -1},
		{func(c *psp.Config) { c.JournalBytes = -1 }, "JournalBytes", -1},
		{func(c *psp.Config) { c.CompleteAfter = -1 }, "CompleteAfter", -1},
		{func(c *psp.Config) { c.RejectFromCents, c.RejectToCents = -1, 100 }, "RejectFromCents", -1},
		{func(c *psp.Config) { c.RejectFromCents, c.RejectToCents = -2, -1 }, "RejectFromCents", -1},
		{func(c *psp.Config) { c.RejectFromCents, c.RejectToCents = 1001, 1000 }, "RejectToCents", -1},
		{func(c *psp.Config) { c.RejectFromCents, c.RejectToCents = 0, -1 }, "RejectToCents", -1},
	}
	for _, tt := range tests {
		cfg := psp.DefaultConfig()
		tt.edit(&cfg)
		_, err := psp.NewServer(cfg)
		if bad, ok := errors.AsType[*psp.ConfigError](err); !ok || bad.Field != tt.field || bad.Token != tt.token {
			t.Errorf("NewServer(%+v) error = %#v, want a *ConfigError for %s, token %d", cfg, err, tt.field, tt.token)
		}
	}
	// The bounds themselves are valid: nothing is refused.
	cfg := psp.DefaultConfig()
	cfg.Tokens = []string{"!", "~"}
	cfg.RejectFromCents, cfg.RejectToCents = 1000, 1000
	if _, err := psp.NewServer(cfg); err != nil {
		t.Errorf("NewServer(tokens ! and ~, a range of one amount) error = %v, want nil", err)
	}
}

// TestNewServerSaysWhatIsWrongWithPending: the errors of a bad CompleteAfter or rejected range
// name the field and the value given.
func TestNewServerSaysWhatIsWrongWithPending(t *testing.T) {
	tests := []struct {
		edit func(*psp.Config)
		want string
	}{
		{func(c *psp.Config) { c.CompleteAfter = -time.Second }, "psp: invalid config: negative CompleteAfter -1s"},
		{func(c *psp.Config) { c.RejectFromCents, c.RejectToCents = 2000, 1001 },
			"psp: invalid config: rejected range 2000 to 1001 cents: want 0 <= RejectFromCents <= RejectToCents"},
	}
	for _, tt := range tests {
		cfg := psp.DefaultConfig()
		tt.edit(&cfg)
		if _, err := psp.NewServer(cfg); err == nil || err.Error() != tt.want {
			t.Errorf("NewServer() error = %v, want %s", err, tt.want)
		}
	}
}

func TestZeroValuesOfConfig(t *testing.T) {
	s := mustServer(t, func(c *psp.Config) {
		*c = psp.Config{Tokens: []string{"t"}} // balance 0, default TTL and ISPB, no logger
	})
	if got := s.Stats().BalanceCents; got != 0 {
		t.Errorf("Stats().BalanceCents = %d, want 0", got)
	}
	r := paymentRequest("k1", validBody)
	r.Header.Set("Authorization", "Bearer t")
	wantProblem(t, serve(s, r), 422, "insufficient_funds")
	if got, dropped := s.Requests(psp.RequestFilter{}); len(got) != 1 || dropped != 0 {
		t.Errorf("the journal holds %d requests and dropped %d, want 1 and 0 with its default bounds", len(got), dropped)
	}

	s = mustServer(t, func(c *psp.Config) { *c = psp.Config{Tokens: []string{token}, BalanceCents: 15000} })
	pay(s, "k1", validBody)
	ledger := s.Settlements()
	if len(ledger) != 1 {
		t.Fatalf("%d settlements, want 1", len(ledger))
	}
	wantEndToEndID(t, ledger[0].EndToEndID, "12345678", ledger[0].SettledAt)
}

func TestLoggerGetsARecordPerPaymentWithoutTokens(t *testing.T) {
	var buf bytes.Buffer
	s := mustServer(t, func(c *psp.Config) {
		c.Tokens = []string{"secret-token"}
		c.Logger = slog.New(slog.NewTextHandler(&buf, nil))
	})
	s.Inject(psp.Status(503))
	for range 3 { // refused by the fault, settled, replayed
		r := paymentRequest("k1", validBody)
		r.Header.Set("Authorization", "Bearer secret-token")
		serve(s, r)
	}
	logged := buf.String()
	want := []string{
		`level=INFO msg="psp: payment" status=503 key="" replayed=false fault=status`, // before any processing
		`level=INFO msg="psp: payment" status=201 key=k1 replayed=false fault=none`,
		`level=INFO msg="psp: payment" status=201 key=k1 replayed=true fault=none`,
	}
	lines := strings.Split(strings.TrimSuffix(logged, "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d records, want %d:\n%s", len(lines), len(want), logged)
	}
	for i, line := range lines {
		if !strings.HasSuffix(line, " "+want[i]) {
			t.Errorf("record %d = %q, want it to end %q", i, line, want[i])
		}
	}
	if strings.Contains(logged, "secret-token") {
		t.Errorf("the log holds the token:\n%s", logged)
	}
}

// TestLoggerShowsTheKeyInOneForm: a record's key is the key as the ledger knows it, and
// key_header the Idempotency-Key as sent, only when it differs.
func TestLoggerShowsTheKeyInOneForm(t *testing.T) {
	var buf bytes.Buffer
	s := mustServer(t, func(c *psp.Config) { c.Logger = slog.New(slog.NewTextHandler(&buf, nil)) })
	pay(s, `"k1"`, validBody)
	pay(s, "k1", validBody)
	pay(s, `"k1`, validBody) // not a key: not echoed, not logged
	want := []string{
		`level=INFO msg="psp: payment" status=201 key=k1 key_header="\"k1\"" replayed=false fault=none`,
		`level=INFO msg="psp: payment" status=201 key=k1 replayed=true fault=none`,
		`level=INFO msg="psp: payment" status=400 key="" replayed=false fault=none`,
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d records, want %d:\n%s", len(lines), len(want), buf.String())
	}
	for i, line := range lines {
		if !strings.HasSuffix(line, " "+want[i]) {
			t.Errorf("record %d = %q, want it to end %q", i, line, want[i])
		}
	}
}

func TestDefaultConfig(t *testing.T) {
	cfg := psp.DefaultConfig()
	if len(cfg.Tokens) != 1 || cfg.Tokens[0] != "test-token" || cfg.BalanceCents != 100000 ||
		cfg.KeyTTL != 24*time.Hour || cfg.MaxKeys != 500_000 || cfg.MaxSettlements != 1_000_000 ||
		cfg.ISPB != "12345678" || cfg.Logger != nil ||
		cfg.ServiceTime != 0 || cfg.Capacity != 0 || cfg.ShedRetryAfter != 0 ||
		cfg.JournalMax != 1000 || cfg.JournalBytes != 1<<20 {
		t.Errorf("DefaultConfig() = %+v", cfg)
	}
}

// TestNewServerKeepsItsTokens: a caller that changes its Tokens slice after NewServer changes
// nothing the Server accepts.
func TestNewServerKeepsItsTokens(t *testing.T) {
	cfg := psp.DefaultConfig()
	s := mustServer(t, func(c *psp.Config) { *c = cfg })
	cfg.Tokens[0] = "another-token"
	wantSettled(t, pay(s, "k1", validBody))
}

// A fault that closes the connection leaves a record too: the client got no answer to log.
func TestLoggerRecordsAClosedConnection(t *testing.T) {
	var buf bytes.Buffer
	s := mustServer(t, func(c *psp.Config) { c.Logger = slog.New(slog.NewTextHandler(&buf, nil)) })
	s.Inject(psp.ResetConn())
	serveAborted(t, s, paymentRequest("k1", validBody))
	got, want := buf.String(), ` level=INFO msg="psp: payment: connection closed" fault=reset`+"\n"
	if !strings.HasSuffix(got, want) || strings.Count(got, "\n") != 1 {
		t.Errorf("log = %q, want one record ending %q", got, want)
	}
}

func TestLoggerGetsARecordPerLookup(t *testing.T) {
	var buf bytes.Buffer
	s := mustServer(t, func(c *psp.Config) { c.Logger = slog.New(slog.NewTextHandler(&buf, nil)) })
	s.Inject(psp.Status(503).ForLookup())
	pay(s, "k1", validBody)
	lookUp(s, "k1") // the fault's 503
	lookUp(s, "k1")
	lookUp(s, "k2")
	want := []string{
		`level=INFO msg="psp: payment" status=201 key=k1 replayed=false fault=none`,
		`level=INFO msg="psp: lookup" status=503 key="" fault=status`, // before any processing
		`level=INFO msg="psp: lookup" status=200 key=k1 fault=none`,
		`level=INFO msg="psp: lookup" status=404 key=k2 fault=none`,
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d records, want %d:\n%s", len(lines), len(want), buf.String())
	}
	for i, line := range lines {
		if !strings.HasSuffix(line, " "+want[i]) {
			t.Errorf("record %d = %q, want it to end %q", i, line, want[i])
		}
	}

	buf.Reset()
	s.Inject(psp.ResetConn().ForLookup())
	serveAborted(t, s, lookupRequest("k1"))
	if got, want := buf.String(), ` level=INFO msg="psp: lookup: connection closed" fault=reset`+"\n"; !strings.HasSuffix(got, want) {
		t.Errorf("log = %q, want one record ending %q", got, want)
	}
}

// A caller that set a Config from its own input names the input that is wrong.
func ExampleConfigError() {
	cfg := psp.DefaultConfig()
	cfg.Tokens = []string{"first", "the second"}
	_, err := psp.NewServer(cfg)
	if bad, ok := errors.AsType[*psp.ConfigError](err); ok && bad.Field == "Tokens" {
		fmt.Printf("token %d of %d is refused\n", bad.Token+1, len(cfg.Tokens))
	}
	// Output: token 2 of 2 is refused
}
