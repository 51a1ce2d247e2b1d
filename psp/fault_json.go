package psp

import (
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"time"
)

// faultJSON is the JSON form of a Fault. A nil pointer is an absent member.
type faultJSON struct {
	Kind        FaultKind `json:"kind"`
	Status      *int      `json:"status,omitempty"`
	RetryAfterS *count    `json:"retry_after_s,omitempty"`
	DelayMS     *count    `json:"delay_ms,omitempty"`
	DurationMS  *count    `json:"duration_ms,omitempty"`
	Breach      *Breach   `json:"breach,omitempty"`
	Member      *string   `json:"member,omitempty"`
}

// MarshalJSON writes f in the form the control API takes. Durations are whole milliseconds,
// truncated. RetryAfter is whole seconds, rounded up. An invalid f is an error wrapping
// ErrInvalidFault.
func (f Fault) MarshalJSON() ([]byte, error) {
	if err := f.validate(); err != nil {
		return nil, err
	}
	return json.Marshal(f.wire())
}

// UnmarshalJSON reads the form the control API takes, strictly. The kind must be known. The
// members must be exactly those the kind takes, none unknown, repeated or missing. Numbers must
// be integers in range. Errors wrap ErrInvalidFault.
func (f *Fault) UnmarshalJSON(data []byte) error {
	_, bad := decodeObject(data, "kind", "status", "retry_after_s", "delay_ms", "duration_ms", "breach", "member")
	if len(bad) > 0 {
		return fmt.Errorf("%w: %s %s", ErrInvalidFault, bad[0].Field, bad[0].Reason)
	}
	var w faultJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidFault, err)
	}
	if err := cmp.Or(w.RetryAfterS.within("retry_after_s", time.Second),
		w.DelayMS.within("delay_ms", time.Millisecond), w.DurationMS.within("duration_ms", time.Millisecond)); err != nil {
		return err
	}
	got := w.fault()
	if err := got.validate(); err != nil {
		return err
	}
	// Writing got back must give what was read: this catches missing members, members the kind
	// does not take and a zero retry_after_s.
	if !reflect.DeepEqual(got.wire(), w) {
		return fmt.Errorf("%w: kind %q takes %s", ErrInvalidFault, w.Kind, faultUsage[w.Kind])
	}
	*f = got
	return nil
}

// count is a number of units (seconds or milliseconds) in the JSON form.
type count int64

// within returns an error naming member if n, when present, is negative or more than
// MaxFaultDuration in units. It is checked before the conversion to a time.Duration, which
// could overflow.
func (n *count) within(member string, unit time.Duration) error {
	if n == nil {
		return nil
	}
	if *n < 0 {
		return fmt.Errorf("%w: %s %d is negative", ErrInvalidFault, member, *n)
	}
	if most := count(MaxFaultDuration / unit); *n > most {
		return fmt.Errorf("%w: %s %d exceeds the maximum %d", ErrInvalidFault, member, *n, most)
	}
	return nil
}

// wire is the JSON form of a valid f.
func (f Fault) wire() faultJSON {
	w := faultJSON{Kind: f.Kind}
	ms := count(f.Duration.Milliseconds())
	switch f.Kind {
	case FaultStatus, FaultCommitStatus:
		w.Status = &f.Status
		if f.RetryAfter > 0 {
			s := count(wholeSeconds(f.RetryAfter))
			w.RetryAfterS = &s
		}
	case FaultSlow, FaultLate:
		w.DelayMS = &ms
	case FaultDown:
		w.DurationMS = &ms
	case FaultRedirect:
		w.Status = &f.Status
	case FaultBadBody:
		w.Breach = &f.Breach
		if f.Breach == BreachMissing {
			w.Member = &f.Member
		}
	}
	return w
}

// fault reads w leniently; validate and wire tell whether it was well formed.
func (w faultJSON) fault() Fault {
	var none count
	return Fault{
		Kind:       w.Kind,
		Status:     *cmp.Or(w.Status, new(int)),
		RetryAfter: time.Duration(*cmp.Or(w.RetryAfterS, &none)) * time.Second,
		Duration:   time.Duration(*cmp.Or(w.DelayMS, w.DurationMS, &none)) * time.Millisecond,
		Breach:     *cmp.Or(w.Breach, new(Breach)),
		Member:     *cmp.Or(w.Member, new(string)),
	}
}
