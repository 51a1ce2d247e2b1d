package properties

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"
)

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
