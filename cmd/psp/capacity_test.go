package main

import (
	"io"
	"strings"
	"testing"
	"time"

	"pixretry/psp"
)

func TestCapacityFlagsReachTheConfig(t *testing.T) {
	opts, _, err := parseFlags([]string{"-service-time", "250ms", "-capacity", "8", "-shed-retry-after", "2s"}, io.Discard)
	cfg := opts.cfg
	if err != nil {
		t.Fatalf("parseFlags() error = %v", err)
	}
	if cfg.ServiceTime != 250*time.Millisecond || cfg.Capacity != 8 || cfg.ShedRetryAfter != 2*time.Second {
		t.Errorf("service time, capacity, shed Retry-After = %v, %d, %v; want 250ms, 8, 2s",
			cfg.ServiceTime, cfg.Capacity, cfg.ShedRetryAfter)
	}
	opts, _, err = parseFlags(nil, io.Discard)
	cfg = opts.cfg
	if err != nil || cfg.ServiceTime != 0 || cfg.Capacity != 0 || cfg.ShedRetryAfter != 0 {
		t.Errorf("parseFlags(no flags) = %+v, %v; want no service time, no capacity, no shed Retry-After", cfg, err)
	}
}

func TestStatsAreServed(t *testing.T) {
	s := mustStart(t, "-tokens", "smoke", "-capacity", "4")
	s.do(t, "POST", psp.PaymentsPath, "k1", strings.NewReader(payment))
	s.do(t, "GET", psp.PaymentsPath+"?idempotency_key=k2", "", nil)
	status, body := s.do(t, "GET", "/_psp/stats", "", nil)
	want := `{"requests":1,"shed":0,"settled":1,"dropped":0,"keys":1,"in_flight":0,"max_in_flight":1,` +
		`"lookups":1,"closed_keys":1,"pending":0,"rejected":0}` + "\n"
	if status != 200 || body != want {
		t.Errorf("GET %s = %d %s, want 200 %s", "/_psp/stats", status, body, want)
	}
	if err := s.stop(); err != nil {
		t.Errorf("run() = %v, want nil", err)
	}
}

func TestMaxKeysFlag(t *testing.T) {
	opts, _, err := parseFlags(nil, io.Discard)
	if err != nil || opts.cfg.MaxKeys != psp.DefaultConfig().MaxKeys {
		t.Errorf("parseFlags(no flags) = %+v, %v; want MaxKeys %d", opts.cfg, err, psp.DefaultConfig().MaxKeys)
	}
	s := mustStart(t, "-tokens", "smoke", "-max-keys", "1")
	if status, _ := s.do(t, "POST", psp.PaymentsPath, "k1", strings.NewReader(payment)); status != 201 {
		t.Errorf("the first key = %d, want 201", status)
	}
	if status, body := s.do(t, "POST", psp.PaymentsPath, "k2", strings.NewReader(payment)); status != 503 ||
		!strings.Contains(body, `"code":"key_store_full"`) {
		t.Errorf("a second key = %d %s, want 503 key_store_full", status, body)
	}
	if status, _ := s.do(t, "POST", psp.PaymentsPath, "k1", strings.NewReader(payment)); status != 201 {
		t.Errorf("the first key again = %d, want its replayed 201", status)
	}
	if err := s.stop(); err != nil {
		t.Errorf("run() = %v, want nil", err)
	}
}

func TestMaxSettlementsFlag(t *testing.T) {
	opts, _, err := parseFlags(nil, io.Discard)
	if err != nil || opts.cfg.MaxSettlements != psp.DefaultConfig().MaxSettlements {
		t.Errorf("parseFlags(no flags) = %+v, %v; want MaxSettlements %d", opts.cfg, err, psp.DefaultConfig().MaxSettlements)
	}
	s := mustStart(t, "-tokens", "smoke", "-max-settlements", "1")
	for _, key := range []string{"k1", "k2"} {
		if status, _ := s.do(t, "POST", psp.PaymentsPath, key, strings.NewReader(payment)); status != 201 {
			t.Errorf("payment %s = %d, want 201", key, status)
		}
	}
	if status, body := s.do(t, "GET", "/_psp/stats", "", nil); status != 200 ||
		!strings.Contains(body, `"settled":1,"dropped":1,`) {
		t.Errorf("GET /_psp/stats = %d %s, want 1 settled and 1 dropped", status, body)
	}
	if status, body := s.do(t, "GET", psp.PaymentsPath+"?idempotency_key=k3", "", nil); status != 410 ||
		!strings.Contains(body, `"code":"outcome_unprovable"`) {
		t.Errorf("lookup of an unknown key = %d %s, want 410 outcome_unprovable", status, body)
	}
	if err := s.stop(); err != nil {
		t.Errorf("run() = %v, want nil", err)
	}
}
