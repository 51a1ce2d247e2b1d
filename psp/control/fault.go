package control

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"pixretry/psp"
)

// faultJSON is the JSON form of a psp.Fault, such as {"kind":"status","status":503,
// "retry_after_s":2}, {"kind":"late","delay_ms":1500}, {"kind":"duplicate","duration_ms":2000},
// {"kind":"bad_body","breach":"missing","member":"horario"},
// {"kind":"pending","after_ms":5000,"then":"rejected"} or, aimed at lookups,
// {"kind":"down","duration_ms":5000,"target":"lookup"}. A nil pointer is an absent member; an
// absent target aims the fault at payments.
type faultJSON struct {
	Kind        string  `json:"kind"`
	Status      *int    `json:"status,omitempty"`
	RetryAfterS *count  `json:"retry_after_s,omitempty"`
	DelayMS     *count  `json:"delay_ms,omitempty"`
	DurationMS  *count  `json:"duration_ms,omitempty"`
	Breach      *string `json:"breach,omitempty"`
	Member      *string `json:"member,omitempty"`
	AfterMS     *count  `json:"after_ms,omitempty"`
	Then        *string `json:"then,omitempty"`
	Target      *string `json:"target,omitempty"`
}

// The endings of faultUsage: whether a kind may be aimed at lookups.
const (
	forLookups = `, and optionally "target":"lookup"`
	noTarget   = `, and no "target" (payments only)`
)

// faultUsage says what each kind takes, in the JSON form, and whether it takes a lookup target.
var faultUsage = map[string]string{
	"status":    `"status" (400 to 599), optionally "retry_after_s" (whole seconds, 1 to 3600)` + forLookups,
	"slow":      `"delay_ms" (milliseconds, 0 to 3600000)` + noTarget,
	"late":      `"delay_ms" (milliseconds, 0 to 3600000)` + forLookups,
	"drop":      "no parameters" + noTarget,
	"reset":     "no parameters" + forLookups,
	"down":      `"duration_ms" (milliseconds, 0 to 3600000)` + forLookups,
	"duplicate": `"duration_ms" (milliseconds, 0 to 3600000)` + noTarget,
	"commit_status": `"status" (200 to 299 but 201, 204 and 205, or 500 to 599), optionally ` +
		`"retry_after_s" (whole seconds, 1 to 3600)` + noTarget,
	"bad_body": `"breach" (not_json, short, cut, missing, valor, chave or end_to_end_id), ` +
		`"member" (endToEndId, valor, chave, status or horario) with missing only` + forLookups,
	"redirect": `"status" (300 to 399)` + forLookups,
	"pending":  `"after_ms" (milliseconds, 0 to 3600000) and "then" (settled or rejected)` + noTarget,
}

// encodeFault is the JSON form of f. Durations are whole milliseconds, truncated. RetryAfter is
// whole seconds, rounded up. An invalid f is an error wrapping psp.ErrInvalidFault.
func encodeFault(f psp.Fault) ([]byte, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return json.Marshal(wire(f))
}

// decodeFault reads the JSON form of a fault, strictly. The kind and the target, if any, must be
// known. The members must be exactly those the kind takes, none unknown, repeated or missing.
// Numbers must be integers in range. Errors wrap psp.ErrInvalidFault and say, in the words of the
// JSON form, which member is wrong and what the kind takes.
func decodeFault(data []byte) (psp.Fault, error) {
	if kind := jsontext.Value(data).Kind(); kind != '{' {
		return psp.Fault{}, invalidFault(`the fault is %s, want an object such as {"kind":"drop"}`, kindWords(kind))
	}
	var w faultJSON
	if err := json.Unmarshal(data, &w, json.RejectUnknownMembers(true)); err != nil {
		why := jsonWords(err, "the fault")
		if errors.Is(err, json.ErrUnknownName) {
			return psp.Fault{}, invalidFault("%v: %s", why, membersOf(kindOf(data)))
		}
		return psp.Fault{}, invalidFault("%v", why)
	}
	if err := cmp.Or(w.RetryAfterS.within("retry_after_s", time.Second),
		w.DelayMS.within("delay_ms", time.Millisecond), w.DurationMS.within("duration_ms", time.Millisecond),
		w.AfterMS.within("after_ms", time.Millisecond)); err != nil {
		return psp.Fault{}, err
	}
	f := w.fault()
	_, known := faultUsage[f.Kind]
	switch {
	case f.Kind == "":
		return psp.Fault{}, invalidFault(`member "kind" is missing or empty: the kinds are %s`, faultKinds())
	case !known:
		return psp.Fault{}, invalidFault("unknown kind %q: the kinds are %s", f.Kind, faultKinds())
	case f.Target != "" && f.Target != "lookup":
		return psp.Fault{}, invalidFault(`unknown target %q: "lookup" aims a fault at lookups, "webhook" at webhooks, `+
			`and no target at payments`, f.Target)
	}
	// Writing f back must give what was read: this catches missing members, members the kind
	// does not take, a kind a lookup cannot take, a target of "" and a zero retry_after_s.
	if f.Validate() != nil || !reflect.DeepEqual(wire(f), w) {
		return psp.Fault{}, invalidFault("%s", membersOf(f.Kind))
	}
	return f, nil
}

// invalidFault is an error wrapping psp.ErrInvalidFault that says why, as fmt.Sprintf(format,
// args...).
func invalidFault(format string, args ...any) error {
	return fmt.Errorf("%w: %s", psp.ErrInvalidFault, fmt.Sprintf(format, args...))
}

// kindOf is the kind of the fault in data, or "" if it has none that is a string.
func kindOf(data []byte) string {
	var fault struct {
		Kind string `json:"kind"`
	}
	json.Unmarshal(data, &fault) // other members are ignored: a kind that is not a string is none
	return fault.Kind
}

// membersOf says what a fault of kind takes, or every member of the JSON form for an unknown
// kind.
func membersOf(kind string) string {
	if usage, known := faultUsage[kind]; known {
		return fmt.Sprintf("kind %q takes %s", kind, usage)
	}
	t := reflect.TypeFor[faultJSON]()
	members := make([]string, t.NumField())
	for i := range members {
		members[i], _, _ = strings.Cut(t.Field(i).Tag.Get("json"), ",")
	}
	return "the members are " + and(members)
}

// faultKinds lists the kinds of faultUsage, in alphabetical order.
func faultKinds() string {
	return and(slices.Sorted(maps.Keys(faultUsage)))
}

// and lists names as in "a, b and c".
func and(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// count is a number of units (seconds or milliseconds) in the JSON form.
type count int64

// within returns an error naming member if n, when present, is negative or more than
// psp.MaxFaultDuration in units. It is checked before the conversion to a time.Duration, which
// could overflow.
func (n *count) within(member string, unit time.Duration) error {
	most := count(psp.MaxFaultDuration / unit)
	switch {
	case n == nil:
		return nil
	case *n < 0:
		return fmt.Errorf("%w: %s %d is negative", psp.ErrInvalidFault, member, *n)
	case *n > most:
		return fmt.Errorf("%w: %s %d exceeds the maximum %d", psp.ErrInvalidFault, member, *n, most)
	}
	return nil
}

// wire is the JSON form of a valid f.
func wire(f psp.Fault) faultJSON {
	w := faultJSON{Kind: f.Kind}
	if f.Target != "" {
		w.Target = &f.Target
	}
	ms := count(f.Duration.Milliseconds())
	switch f.Kind {
	case "status", "commit_status":
		w.Status = &f.Status
		if f.RetryAfter > 0 {
			s := count((f.RetryAfter + time.Second - 1) / time.Second)
			w.RetryAfterS = &s
		}
	case "slow", "late":
		w.DelayMS = &ms
	case "down", "duplicate":
		w.DurationMS = &ms
	case "redirect":
		w.Status = &f.Status
	case "bad_body":
		w.Breach = &f.Breach
		if f.Breach == "missing" {
			w.Member = &f.Member
		}
	case "pending":
		w.AfterMS, w.Then = &ms, &f.Then
	}
	return w
}

// fault reads w leniently; Validate and wire tell whether it was well formed.
func (w faultJSON) fault() psp.Fault {
	var none count
	return psp.Fault{
		Kind:       w.Kind,
		Status:     *cmp.Or(w.Status, new(int)),
		RetryAfter: time.Duration(*cmp.Or(w.RetryAfterS, &none)) * time.Second,
		Duration:   time.Duration(*cmp.Or(w.DelayMS, w.DurationMS, w.AfterMS, &none)) * time.Millisecond,
		Breach:     *cmp.Or(w.Breach, new(string)),
		Member:     *cmp.Or(w.Member, new(string)),
		Then:       *cmp.Or(w.Then, new(string)),
		Target:     *cmp.Or(w.Target, new(string)),
	}
}
