package scrape_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/goleak"

	"pixretry/internal/scrape"
	"pixretry/internal/scrape/scrapetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// mustServe serves an Endpoint on a free loopback port until the test ends.
func mustServe(t *testing.T) *scrape.Endpoint {
	t.Helper()
	e, err := scrape.Serve("127.0.0.1:0", "scrape-test")
	if err != nil {
		t.Fatalf("Serve() error = %v", err)
	}
	t.Cleanup(func() {
		if err := e.Shutdown(context.Background()); err != nil {
			t.Errorf("Shutdown() error = %v", err)
		}
	})
	return e
}

// get answers GET url's status, Content-Type and body.
func get(t *testing.T, url string) (int, string, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	http.DefaultClient.CloseIdleConnections()
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(body)
}

// A counter and a gauge of the Endpoint's provider come out in the Prometheus text format,
// named as the exporter names them, with the service in target_info.
func TestServeExposesTheProvidersInstruments(t *testing.T) {
	e := mustServe(t)
	if !strings.HasPrefix(e.URL(), "http://127.0.0.1:") || strings.HasSuffix(e.URL(), ":0/metrics") || !strings.HasSuffix(e.URL(), "/metrics") {
		t.Fatalf("URL() = %q, want http://127.0.0.1:PORT/metrics with the port picked", e.URL())
	}
	meter := e.MeterProvider().Meter("pixretry/internal/scrape")
	payments, err := meter.Int64Counter("demo.payments", metric.WithUnit("{payment}"))
	if err != nil {
		t.Fatal(err)
	}
	payments.Add(context.Background(), 3, metric.WithAttributes(attribute.String("outcome", "settled")))
	if _, err := meter.Float64ObservableGauge("demo.wait", metric.WithUnit("s"),
		metric.WithFloat64Callback(func(_ context.Context, o metric.Float64Observer) error {
			o.Observe(0.25)
			return nil
		})); err != nil {
		t.Fatal(err)
	}

	status, contentType, body := get(t, e.URL())
	if status != http.StatusOK || !strings.HasPrefix(contentType, "text/plain; version=0.0.4") {
		t.Errorf("GET /metrics = %d %q, want 200 and the text format", status, contentType)
	}
	scope := `otel_scope_name="pixretry/internal/scrape",otel_scope_schema_url="",otel_scope_version=""`
	if missing := scrapetest.Missing(body,
		"# TYPE demo_payments_total counter",
		`demo_payments_total{`+scope+`,outcome="settled"} 3`,
		"# TYPE demo_wait_seconds gauge",
		`demo_wait_seconds{`+scope+`} 0.25`,
	); missing != nil {
		t.Errorf("GET /metrics lacks the lines %q; it answered:\n%s", missing, body)
	}
	if !strings.Contains(body, "\ntarget_info{") || !strings.Contains(body, `service_name="scrape-test"`) {
		t.Errorf("GET /metrics has no target_info naming service scrape-test:\n%s", body)
	}
}

// Only GET /metrics answers.
func TestServeAnswersOnlyMetrics(t *testing.T) {
	e := mustServe(t)
	root := strings.TrimSuffix(e.URL(), scrape.Path)
	if status, _, _ := get(t, root+"/"); status != http.StatusNotFound {
		t.Errorf("GET / = %d, want 404", status)
	}
	resp, err := http.Post(e.URL(), "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	http.DefaultClient.CloseIdleConnections()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /metrics = %d, want 405", resp.StatusCode)
	}
}

// Two Endpoints in one process keep their metrics apart: each has its own registry.
func TestEndpointsDoNotShareARegistry(t *testing.T) {
	a, b := mustServe(t), mustServe(t)
	c, err := a.MeterProvider().Meter("a").Int64Counter("only.in.a")
	if err != nil {
		t.Fatal(err)
	}
	c.Add(context.Background(), 1)
	if _, _, body := get(t, b.URL()); strings.Contains(body, "only_in_a") {
		t.Errorf("b serves a's counter:\n%s", body)
	}
	if _, _, body := get(t, a.URL()); !strings.Contains(body, "only_in_a_total{") {
		t.Errorf("a does not serve its counter:\n%s", body)
	}
}

func TestServeRefusesAnAddressItCannotListenOn(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for addr, want := range map[string]string{
		"nonsense":            "listen tcp: address nonsense: missing port in address",
		":99999":              "listen tcp: address 99999: invalid port",
		taken.Addr().String(): "address already in use",
	} {
		e, err := scrape.Serve(addr, "scrape-test")
		if err == nil {
			e.Shutdown(context.Background())
			t.Errorf("Serve(%q) = nil error, want %q", addr, want)
			continue
		}
		if _, ok := errors.AsType[*net.OpError](err); !ok || !strings.Contains(err.Error(), want) {
			t.Errorf("Serve(%q) error = %v, want net.Listen's *net.OpError saying %q", addr, err, want)
		}
	}
}

// After Shutdown nothing listens, and the provider's instruments record nothing more.
func TestShutdownClosesTheListener(t *testing.T) {
	e, err := scrape.Serve("127.0.0.1:0", "scrape-test")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown() error = %v", err)
	}
	if _, err := http.Get(e.URL()); err == nil {
		t.Errorf("GET %s after Shutdown succeeded, want the connection refused", e.URL())
	}
}
