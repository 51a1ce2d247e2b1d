package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/internal/cmdline"
	"pixretry/internal/scrape/scrapetest"
	"pixretry/psp"
)

// scope is the otel_scope_ labels of the simulator's series, in the exporter's order.
const scope = `otel_scope_name="pixretry/cmd/psp",otel_scope_schema_url="",otel_scope_version=""`

// What the simulator did comes out at /metrics: two payments settled, a 503 fault met, a replay
// and a lookup, each counted by its answer, and the ledger, balance and keys they left.
func TestMetricsSayWhatThePSPDid(t *testing.T) {
	s := mustStart(t, "-tokens", "smoke", "-metrics", "127.0.0.1:0")
	url := s.metricsURL(t)
	s.pay(t, "k1", 201)
	if status, _ := s.do(t, "POST", "/_psp/faults", "", strings.NewReader(`{"faults":[{"kind":"status","status":503}]}`)); status != 204 {
		t.Fatalf("POST /_psp/faults = %d, want 204", status)
	}
	s.pay(t, "k2", 503)
	s.pay(t, "k2", 201)
	s.pay(t, "k1", 201) // a replay
	if status, _ := s.do(t, "GET", psp.PaymentsPath+"?idempotency_key=k1", "", nil); status != 200 {
		t.Fatalf("lookup of k1 = %d, want 200", status)
	}

	scrapetest.Await(t, url,
		`psp_requests_answered_total{fault="none",kind="payment",`+scope+`,status="201"} 3`,
		`psp_requests_answered_total{fault="status",kind="payment",`+scope+`,status="503"} 1`,
		`psp_requests_answered_total{fault="none",kind="lookup",`+scope+`,status="200"} 1`,
		`psp_requests_total{kind="payment",`+scope+`} 4`,
		`psp_requests_total{kind="lookup",`+scope+`} 1`,
		`psp_requests_shed_total{`+scope+`} 0`,
		`psp_requests_in_flight{`+scope+`} 0`,
		`psp_settlements_total{`+scope+`} 2`,
		`psp_balance{`+scope+`} 70000`,
		`psp_keys{`+scope+`} 2`,
		`psp_keys_closed{`+scope+`} 0`,
		`psp_faults_queued{`+scope+`} 0`,
	)
	if err := s.stop(); err != nil {
		t.Errorf("run() = %v, want nil after the context ends", err)
	}
	if _, err := http.Get(url); err == nil {
		t.Errorf("GET %s after psp stopped succeeded, want the connection refused", url)
	}
}

// pay sends a payment of 150.00 under key and fails t unless it is answered want.
func (s *started) pay(t *testing.T, key string, want int) {
	t.Helper()
	if got, body := s.do(t, "POST", psp.PaymentsPath, key, strings.NewReader(payment)); got != want {
		t.Fatalf("payment under %s = %d %s, want %d", key, got, body, want)
	}
}

// metricsURL reads from run's stderr the URL of its metrics. It is the first line.
func (s *started) metricsURL(t *testing.T) string {
	t.Helper()
	line := <-s.logs
	url, ok := strings.CutPrefix(line, "psp: metrics on ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/metrics") {
		t.Fatalf("run's first line on stderr = %q, want psp: metrics on http://127.0.0.1:PORT/metrics", line)
	}
	return url
}

// Without -metrics, psp serves no metrics and says nothing of them.
func TestNoMetricsByDefault(t *testing.T) {
	s := mustStart(t, "-tokens", "smoke")
	for line := range s.logs {
		if strings.Contains(line, "metrics") {
			t.Errorf("stderr says %q without -metrics", line)
		}
		if strings.Contains(line, "psp: listening") {
			break
		}
	}
	if status, _ := s.do(t, "GET", "/metrics", "", nil); status != 404 {
		t.Errorf("GET /metrics on the PSP's address = %d, want 404", status)
	}
	if err := s.stop(); err != nil {
		t.Errorf("run() = %v, want nil", err)
	}
}

func TestBadMetricsAddressExits2(t *testing.T) {
	tests := map[string]struct{ addr, want string }{
		"not an address": {"nonsense", "psp: -metrics nonsense: listen tcp: address nonsense: missing port in address"},
		"port too large": {":99999", "psp: -metrics :99999: listen tcp: address 99999: invalid port"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), []string{"-addr", "127.0.0.1:0", "-metrics", tt.addr}, &stdout, &stderr)
			if got := cmdline.ExitCode(err); got != 2 {
				t.Errorf("exit code = %d (run: %v), want 2", got, err)
			}
			if !strings.HasPrefix(stderr.String(), tt.want+"\nUsage of psp") || stdout.Len() != 0 {
				t.Errorf("stderr = %q, stdout = %q; want %q and the usage on stderr only", stderr.String(), stdout.String(), tt.want)
			}
		})
	}
}

// The tally counts a request once it is answered, also when a later one was answered first,
// and forgets what it no longer needs.
func TestTallyWaitsForARequestInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, err := psp.NewServer(psp.DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		srv.Inject(psp.Slow(time.Second))
		pay := func(key string) {
			r := httptest.NewRequest("POST", psp.PaymentsPath, strings.NewReader(payment))
			r.Header.Set("Authorization", "Bearer "+psp.DefaultToken)
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set(psp.IdempotencyKeyHeader, key)
			srv.ServeHTTP(httptest.NewRecorder(), r)
		}
		go pay("slow") // held for a second by the fault
		synctest.Wait()
		pay("quick")
		tally := newTally()
		settled := answer{kind: "payment", status: 201, fault: "none"}
		slow := answer{kind: "payment", status: 201, fault: "slow"}
		check := func(when string, want map[answer]int64, through uint64, counted int) {
			t.Helper()
			got := tally.update(srv)
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(answer{})); diff != "" {
				t.Errorf("%s: update() mismatch (-want +got):\n%s", when, diff)
			}
			if tally.through != through || len(tally.counted) != counted {
				t.Errorf("%s: through %d, %d counted after it; want %d, %d", when, tally.through, len(tally.counted), through, counted)
			}
		}
		check("the first in flight", map[answer]int64{settled: 1}, 0, 1)
		check("again", map[answer]int64{settled: 1}, 0, 1)
		time.Sleep(time.Second)
		synctest.Wait()
		check("both answered", map[answer]int64{settled: 1, slow: 1}, 2, 0)
		pay("quick") // a replay
		check("a replay", map[answer]int64{settled: 2, slow: 1}, 3, 0)
	})
}

func TestAnswerOf(t *testing.T) {
	tests := []struct {
		r    psp.Request
		want answer
	}{
		{psp.Request{Method: "POST", Path: psp.PaymentsPath, Status: 201}, answer{"payment", 201, "none"}},
		{psp.Request{Method: "GET", Path: psp.PaymentsPath + "?idempotency_key=k", Status: 404}, answer{"lookup", 404, "none"}},
		{psp.Request{Method: "POST", Path: psp.PaymentsPath, Fault: "drop"}, answer{"payment", 0, "drop"}},
		{psp.Request{Method: "PUT", Path: psp.PaymentsPath, Status: 405}, answer{"other", 405, "none"}},
		{psp.Request{Method: "POST", Path: "/v1/other", Status: 404}, answer{"other", 404, "none"}},
	}
	for _, tt := range tests {
		if got := answerOf(tt.r); got != tt.want {
			t.Errorf("answerOf(%s %s) = %+v, want %+v", tt.r.Method, tt.r.Path, got, tt.want)
		}
	}
}
