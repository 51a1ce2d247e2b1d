package properties

import (
	"cmp"
	"context"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"
)

// tripRecorder is an http.RoundTripper that records every round trip it passes to next. It
// sees what a client's http.Client hands its transport: one Trip per attempt that reached the
// network. It is safe for concurrent use.
type tripRecorder struct {
	next  http.RoundTripper
	mu    sync.Mutex
	trips []Trip
}

func (rec *tripRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	trip := Trip{Start: time.Now(), Key: req.Header.Get("Idempotency-Key")}
	resp, err := rec.next.RoundTrip(req)
	trip.End = time.Now()
	if err != nil {
		trip.Err = err
	} else {
		trip.Status = resp.StatusCode
		trip.RetryAfter = resp.Header.Get("Retry-After")
		trip.Replayed = resp.Header.Get("Idempotent-Replayed") == "true"
	}
	rec.mu.Lock()
	rec.trips = append(rec.trips, trip)
	if err == nil {
		resp.Body = &bodyRecorder{ReadCloser: resp.Body, rec: rec, i: len(rec.trips) - 1}
	}
	rec.mu.Unlock()
	return resp, err
}

// bodyRecorder notes in trip i of rec the first error, other than EOF, reading an answer's body.
type bodyRecorder struct {
	io.ReadCloser
	rec *tripRecorder
	i   int
}

func (b *bodyRecorder) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		b.rec.mu.Lock()
		b.rec.trips[b.i].BodyErr = cmp.Or(b.rec.trips[b.i].BodyErr, err)
		b.rec.mu.Unlock()
	}
	return n, err
}

func (rec *tripRecorder) recorded() []Trip {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return slices.Clone(rec.trips)
}

// logRecord is one slog record with its attributes flattened: a group's members are named
// "group.member".
type logRecord struct {
	Time    time.Time
	Level   slog.Level
	Message string
	Attrs   map[string]slog.Value
}

// logStore is a slog.Handler that keeps every record, at every level. Handlers derived with
// WithAttrs and WithGroup share the store. It is safe for concurrent use.
type logStore struct {
	shared *logShared
	attrs  []slog.Attr
	group  string // prefix for the names of attributes added from here on
}

type logShared struct {
	mu      sync.Mutex
	records []logRecord
}

func newLogStore() *logStore { return &logStore{shared: &logShared{}} }

func (h *logStore) Enabled(context.Context, slog.Level) bool { return true }

func (h *logStore) Handle(_ context.Context, r slog.Record) error {
	rec := logRecord{Time: r.Time, Level: r.Level, Message: r.Message, Attrs: map[string]slog.Value{}}
	for _, a := range h.attrs {
		flatten(rec.Attrs, "", a)
	}
	r.Attrs(func(a slog.Attr) bool {
		flatten(rec.Attrs, h.group, a)
		return true
	})
	h.shared.mu.Lock()
	h.shared.records = append(h.shared.records, rec)
	h.shared.mu.Unlock()
	return nil
}

func (h *logStore) WithAttrs(attrs []slog.Attr) slog.Handler {
	out := *h
	out.attrs = slices.Clone(h.attrs)
	for _, a := range attrs {
		out.attrs = append(out.attrs, slog.Attr{Key: h.group + a.Key, Value: a.Value})
	}
	return &out
}

func (h *logStore) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	out := *h
	out.group = h.group + name + "."
	return &out
}

func (h *logStore) recorded() []logRecord {
	h.shared.mu.Lock()
	defer h.shared.mu.Unlock()
	return slices.Clone(h.shared.records)
}

// flatten adds a to attrs under prefix, resolving LogValuers and opening groups.
func flatten(attrs map[string]slog.Value, prefix string, a slog.Attr) {
	v := a.Value.Resolve()
	if v.Kind() != slog.KindGroup {
		attrs[prefix+a.Key] = v
		return
	}
	inner := prefix
	if a.Key != "" {
		inner += a.Key + "."
	}
	for _, g := range v.Group() {
		flatten(attrs, inner, g)
	}
}
