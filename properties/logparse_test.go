package properties

import (
	"fmt"
	"log/slog"
	"time"
)

// The messages of pix's log contract.
const (
	msgAttempt = "pix attempt"
	msgSettled = "pix payment settled"
	msgFailed  = "pix payment failed"
)

// parseRecords reads a call's log records by pix's log contract: one "pix attempt" record per
// attempt, then one closing record. Records that break the contract (a missing attribute, one
// of the wrong kind, a failure logged below warning, no closing record, a second one, an
// attempt after it) are an error. Other messages are let through.
func parseRecords(records []logRecord) ([]Attempt, *Summary, error) {
	var attempts []Attempt
	var summary *Summary
	for _, r := range records {
		if summary != nil && (r.Message == msgAttempt || r.Message == msgSettled || r.Message == msgFailed) {
			return nil, nil, fmt.Errorf("record %q after the closing record %q", r.Message, summary.Message)
		}
		var err error
		switch r.Message {
		case msgAttempt:
			var a Attempt
			a, err = parseAttempt(r)
			attempts = append(attempts, a)
		case msgSettled, msgFailed:
			summary, err = parseSummary(r)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("record %q: %w", r.Message, err)
		}
	}
	if summary == nil {
		return nil, nil, fmt.Errorf("no closing record (%q or %q)", msgSettled, msgFailed)
	}
	return attempts, summary, nil
}

// parseAttempt reads a "pix attempt" record; "error" is there on failures only.
func parseAttempt(r logRecord) (Attempt, error) {
	a := Attempt{At: r.Time}
	p := attrParser{r: r}
	a.Number = int(p.int64("attempt"))
	a.Key = p.string("key")
	a.Outcome = p.string("outcome")
	if _, failed := r.Attrs["error"]; failed {
		a.Error = p.errorText("error")
	}
	a.Transient = p.bool("transient")
	a.Wait = p.duration("wait")
	a.Elapsed = p.duration("elapsed")
	return a, p.err
}

// parseSummary reads a closing record: settled (at any level) or failed (warning or error).
func parseSummary(r logRecord) (*Summary, error) {
	s := &Summary{At: r.Time, Message: r.Message}
	p := attrParser{r: r}
	s.Key = p.string("key")
	s.Attempts = int(p.int64("attempts"))
	if r.Message == msgSettled {
		s.EndToEndID = p.string("endToEndId")
		s.Replayed = p.bool("replayed")
	} else {
		s.OutcomeUnknown = p.bool("outcome_unknown")
		p.errorText("error")
		if p.err == nil && r.Level < slog.LevelWarn {
			p.err = fmt.Errorf("logged at %v, want warning or error", r.Level)
		}
	}
	return s, p.err
}

// attrParser reads typed attributes from a record and keeps the first error: a missing
// attribute or one of another kind.
type attrParser struct {
	r   logRecord
	err error
}

// value returns the attribute name if it is of kind; otherwise it records the error.
func (p *attrParser) value(name string, kind slog.Kind) (slog.Value, bool) {
	v, ok := p.r.Attrs[name]
	if p.err == nil && !ok {
		p.err = fmt.Errorf("no %q attribute", name)
	}
	if p.err == nil && v.Kind() != kind {
		p.err = fmt.Errorf("attribute %q is a %v, want %v", name, v.Kind(), kind)
	}
	return v, p.err == nil
}

func (p *attrParser) string(name string) string {
	if v, ok := p.value(name, slog.KindString); ok {
		return v.String()
	}
	return ""
}

// errorText reads an error attribute, logged as its text or as the error itself.
func (p *attrParser) errorText(name string) string {
	if v, ok := p.r.Attrs[name]; ok && v.Kind() == slog.KindAny {
		if err, isErr := v.Any().(error); isErr && err != nil {
			return err.Error()
		}
	}
	return p.string(name)
}

func (p *attrParser) int64(name string) int64 {
	if v, ok := p.value(name, slog.KindInt64); ok {
		return v.Int64()
	}
	return 0
}

func (p *attrParser) bool(name string) bool {
	if v, ok := p.value(name, slog.KindBool); ok {
		return v.Bool()
	}
	return false
}

func (p *attrParser) duration(name string) time.Duration {
	if v, ok := p.value(name, slog.KindDuration); ok {
		return v.Duration()
	}
	return 0
}
