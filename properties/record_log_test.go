package properties

import (
	"context"
	"fmt"
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

// logStore is a slog.Handler that keeps every record, at every level. The handlers derived with
// WithAttrs and WithGroup share its records. It is safe for concurrent use.
type logStore struct {
	mu      *sync.Mutex
	records *[]logRecord
	attrs   []slog.Attr // already prefixed
	group   string      // the prefix of the attributes added from here on
}

func newLogStore() *logStore { return &logStore{mu: new(sync.Mutex), records: new([]logRecord)} }

func (h *logStore) Enabled(context.Context, slog.Level) bool { return true }

func (h *logStore) Handle(_ context.Context, r slog.Record) error {
	rec := logRecord{Time: r.Time, Level: r.Level, Message: r.Message, Attrs: map[string]slog.Value{}}
	for _, a := range h.attrs {
		flatten(rec.Attrs, "", a)
	}
	for a := range r.Attrs {
		flatten(rec.Attrs, h.group, a)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	*h.records = append(*h.records, rec)
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
	out := *h
	if name != "" {
		out.group += name + "."
	}
	return &out
}

func (h *logStore) recorded() []logRecord {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(*h.records)
}

// flatten adds a to attrs under prefix, resolving LogValuers and opening groups.
func flatten(attrs map[string]slog.Value, prefix string, a slog.Attr) {
	v := a.Value.Resolve()
	if v.Kind() != slog.KindGroup {
		attrs[prefix+a.Key] = v
		return
	}
	if a.Key != "" {
		prefix += a.Key + "."
	}
	for _, g := range v.Group() {
		flatten(attrs, prefix, g)
	}
}

// The messages of pix's log contract: a payment's, then a lookup's.
const (
	msgAttempt       = "pix attempt"
	msgSettled       = "pix payment settled"
	msgFailed        = "pix payment failed"
	msgLookupAttempt = "pix lookup attempt"
	msgFound         = "pix lookup found"
	msgFoundNothing  = "pix lookup found nothing"
	msgLookupFailed  = "pix lookup failed"
)

// logged is what the records of one phase say: its attempts and its closing record.
type logged struct {
	Attempts []Attempt
	Summary  *Summary
}

// parseRecords reads a call's records by pix's log contract: for a payment, one "pix attempt"
// record per attempt, then one closing record; then, for a Resume that looked its key up, the
// same for the lookup. A call has one phase or both, the payment's first. A record that breaks
// the contract is an error: a missing attribute, one of the wrong kind, a failure logged below
// warning, a phase with no closing record, a second one, a record of a phase after its closing
// record, a payment record after a lookup's. Other messages are let through.
func parseRecords(records []logRecord) (pay, look logged, err error) {
	for _, r := range records {
		lookup := r.Message == msgLookupAttempt || r.Message == msgFound || r.Message == msgFoundNothing ||
			r.Message == msgLookupFailed
		if !lookup && r.Message != msgAttempt && r.Message != msgSettled && r.Message != msgFailed {
			continue
		}
		ph := &pay
		if lookup {
			ph = &look
		}
		switch {
		case ph.Summary != nil:
			return pay, look, fmt.Errorf("record %q after the closing record %q", r.Message, ph.Summary.Message)
		case !lookup && (look.Summary != nil || len(look.Attempts) > 0):
			return pay, look, fmt.Errorf("payment record %q after a lookup's", r.Message)
		}
		p := attrParser{r: r}
		if r.Message == msgAttempt || r.Message == msgLookupAttempt {
			ph.Attempts = append(ph.Attempts, p.attempt())
		} else {
			ph.Summary = p.summary()
		}
		if p.err != nil {
			return pay, look, fmt.Errorf("record %q: %w", r.Message, p.err)
		}
	}
	unclosed := func(l logged) bool { return l.Summary == nil && len(l.Attempts) > 0 }
	if unclosed(pay) || unclosed(look) || pay.Summary == nil && look.Summary == nil {
		return pay, look, fmt.Errorf("no closing record (%q, %q, %q, %q or %q)", msgSettled, msgFailed, msgFound,
			msgFoundNothing, msgLookupFailed)
	}
	return pay, look, nil
}

// attrParser reads typed attributes from a record. It keeps the first error: a missing
// attribute or one of another kind.
type attrParser struct {
	r   logRecord
	err error
}

// attempt reads a "pix attempt" or "pix lookup attempt" record; "error" is there on failures
// only (a lookup's "not found" is none).
func (p *attrParser) attempt() Attempt {
	a := Attempt{At: p.r.Time, Number: int(p.value("attempt", slog.KindInt64).Int64()),
		Key: p.value("key", slog.KindString).String(), Outcome: p.value("outcome", slog.KindString).String()}
	if _, failed := p.r.Attrs["error"]; failed {
		a.Error = p.errorText("error")
	}
	a.Transient = p.value("transient", slog.KindBool).Bool()
	a.Wait = p.value("wait", slog.KindDuration).Duration()
	a.Elapsed = p.value("elapsed", slog.KindDuration).Duration()
	return a
}

// summary reads a closing record: settled or found (at any level), found nothing (at any
// level), or failed (warning or error).
func (p *attrParser) summary() *Summary {
	s := &Summary{At: p.r.Time, Message: p.r.Message, Key: p.value("key", slog.KindString).String(),
		Attempts: int(p.value("attempts", slog.KindInt64).Int64())}
	switch s.Message {
	case msgSettled:
		s.EndToEndID = p.value("endToEndId", slog.KindString).String()
		s.Replayed = p.value("replayed", slog.KindBool).Bool()
		return s
	case msgFound:
		s.EndToEndID = p.value("endToEndId", slog.KindString).String()
		return s
	case msgFoundNothing:
		return s
	}
	s.OutcomeUnknown = p.value("outcome_unknown", slog.KindBool).Bool()
	p.errorText("error")
	if p.err == nil && p.r.Level < slog.LevelWarn {
		p.err = fmt.Errorf("logged at %v, want warning or error", p.r.Level)
	}
	return s
}

// value returns the attribute name if it is of kind. Otherwise it records the error and
// returns the zero value of kind.
func (p *attrParser) value(name string, kind slog.Kind) slog.Value {
	v, ok := p.r.Attrs[name]
	if p.err == nil && !ok {
		p.err = fmt.Errorf("no %q attribute", name)
	}
	if p.err == nil && v.Kind() != kind {
		p.err = fmt.Errorf("attribute %q is a %v, want %v", name, v.Kind(), kind)
	}
	if p.err != nil {
		return zeroOf[kind]
	}
	return v
}

// zeroOf is the zero value of each kind the parser reads.
var zeroOf = map[slog.Kind]slog.Value{slog.KindString: slog.StringValue(""), slog.KindInt64: slog.Int64Value(0),
	slog.KindBool: slog.BoolValue(false), slog.KindDuration: slog.DurationValue(0)}

// errorText reads an error attribute, logged as its text or as the error itself.
func (p *attrParser) errorText(name string) string {
	if err, ok := p.r.Attrs[name].Any().(error); ok && err != nil {
		return err.Error()
	}
	return p.value(name, slog.KindString).String()
}
