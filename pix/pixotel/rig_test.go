package pixotel_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"pixretry/pix"
	"pixretry/pix/pixotel"
	"pixretry/psp"
	"pixretry/psp/psptest"
	"pixretry/retry"
)

// The demo's client (cmd/demo): small real delays, and every wait half its ceiling, so 25 ms,
// 50 ms, 100 ms.
var (
	demoPolicy     = retry.Policy{AttemptsMax: 4, DelayBase: 50 * time.Millisecond, DelayMax: 400 * time.Millisecond}
	attemptTimeout = 300 * time.Millisecond
)

func halfDraw() float64 { return 0.5 }

// rig is a PSP double served over pipes (psptest) and a pix.Client of it whose Observer
// records into an SDK meter with a manual reader and an SDK tracer with a span recorder. Make
// it inside the synctest bubble that uses it.
type rig struct {
	srv    *psptest.Server
	reader *sdkmetric.ManualReader
	spans  *tracetest.SpanRecorder
	tp     *sdktrace.TracerProvider
	obs    *pixotel.Observer
	client *pix.Client
}

// newRig starts the double with faults queued, and closes it when the test ends.
func newRig(t *testing.T, faults ...psp.Fault) *rig {
	t.Helper()
	srv, err := psptest.NewServer(psp.DefaultConfig())
	if err != nil {
		t.Fatalf("psptest.NewServer() error = %v", err)
	}
	t.Cleanup(srv.Close)
	srv.Inject(faults...)
	r := &rig{srv: srv, reader: sdkmetric.NewManualReader(), spans: tracetest.NewSpanRecorder()}
	r.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(r.spans))
	r.obs, err = pixotel.NewObserver(pixotel.Config{
		MeterProvider:  sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.reader)),
		TracerProvider: r.tp,
		Propagator:     propagation.TraceContext{},
	})
	if err != nil {
		t.Fatalf("NewObserver() error = %v", err)
	}
	r.client = srv.Client(demoPolicy)
	r.client.AttemptTimeout, r.client.Jitter, r.client.Observer = attemptTimeout, halfDraw, r.obs
	return r
}

// points writes every metric point the reader collects as a line, sorted: the name, the
// attributes, and the value of a sum or a gauge, or the count and sum of a histogram.
func (r *rig) points(t *testing.T) []string {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatalf("Collect() error = %v", err)
	}
	var lines []string
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			lines = append(lines, pointLines(t, m)...)
		}
	}
	slices.Sort(lines)
	return lines
}

func pointLines(t *testing.T, m metricdata.Metrics) []string {
	var lines []string
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		for _, p := range d.DataPoints {
			lines = append(lines, fmt.Sprintf("%s%s %d", m.Name, braced(p.Attributes), p.Value))
		}
	case metricdata.Gauge[float64]:
		for _, p := range d.DataPoints {
			lines = append(lines, fmt.Sprintf("%s%s %.6g", m.Name, braced(p.Attributes), p.Value))
		}
	case metricdata.Histogram[float64]:
		for _, p := range d.DataPoints {
			lines = append(lines, fmt.Sprintf("%s%s count=%d sum=%.6g", m.Name, braced(p.Attributes), p.Count, p.Sum))
		}
	default:
		t.Fatalf("metric %s holds a %T", m.Name, m.Data)
	}
	return lines
}

// braced is "{k=v,...}" for a set that is not empty, sorted by key.
func braced(s attribute.Set) string {
	if s.Len() == 0 {
		return ""
	}
	return "{" + s.Encoded(attribute.DefaultEncoder()) + "}"
}

// spanLines writes every span ended, in the order they ended, as "name kind in parent:
// attributes", and " [Error]" when its status says so. The attributes in skip are left out.
func (r *rig) spanLines(skip ...attribute.Key) []string {
	ended := r.spans.Ended()
	names := map[string]string{}
	for _, s := range ended {
		names[s.SpanContext().SpanID().String()] = s.Name()
	}
	var lines []string
	for _, s := range ended {
		line := s.Name() + " " + s.SpanKind().String()
		if s.Parent().IsValid() {
			line += " in " + names[s.Parent().SpanID().String()]
		}
		var kept []attribute.KeyValue
		for _, kv := range s.Attributes() {
			if !slices.Contains(skip, kv.Key) {
				kept = append(kept, kv)
			}
		}
		set := attribute.NewSet(kept...)
		line += ": " + set.Encoded(attribute.DefaultEncoder())
		if s.Status().Code == codes.Error {
			line += " [Error]"
		}
		lines = append(lines, line)
	}
	return lines
}

// perRequest are the span attributes that name the request, the same for every attempt of a
// payment, which the tables of spans leave out.
var perRequest = []attribute.Key{"http.request.method", "url.full", "server.address", "server.port", "pix.idempotency_key"}

// keyOf is the Idempotency-Key of the PSP's first request.
func (r *rig) keyOf(t *testing.T) string {
	t.Helper()
	requests, _ := r.srv.Requests(psp.RequestFilter{})
	if len(requests) == 0 {
		t.Fatal("the PSP received no request")
	}
	return requests[0].Key
}
