package control

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"pixretry/psp"
	"pixretry/psp/webhook"
)

// DecodeFaults reads data, a body of POST FaultsPath such as {"faults":[{"kind":"drop"}]}, as
// the control API does: strict JSON, each fault in its JSON form, lookup targets included, and
// at most MaxQueuedFaults faults. Unlike the API it takes data of any size. It returns every
// fault in order, or none and a *FaultsError that says where the first problem starts. A fault
// with "target":"webhook" is such a problem here: DecodeAllFaults reads those too.
func DecodeFaults(data []byte) ([]psp.Fault, error) {
	faults, bad := decodeFaults(data, false)
	if len(bad) > 0 {
		return nil, bad[0]
	}
	return faults.Server, nil
}

// Faults are the faults of a body of POST FaultsPath, each in the queue it goes to, in order.
type Faults struct {
	Server   []psp.Fault     // payment and lookup faults, for psp.Server.Inject
	Webhooks []webhook.Fault // faults with "target":"webhook", for webhook.Sender.Inject
}

// DecodeAllFaults reads data as DecodeFaults does, and the faults with "target":"webhook" too.
// Command psp reads its -faults file with it.
func DecodeAllFaults(data []byte) (Faults, error) {
	faults, bad := decodeFaults(data, true)
	if len(bad) > 0 {
		return Faults{}, bad[0]
	}
	return faults, nil
}

// A FaultsError is a problem in a body of POST FaultsPath: where it starts, what it concerns
// and why.
type FaultsError struct {
	// Line and Column are where the problem starts, from 1. Column counts bytes.
	Line, Column int
	// Field is what the problem concerns, as the control API's 400 names it in violacoes:
	// "body" for data that is not JSON or not {"faults":[...]}, "faults" for faults missing or
	// too many, and "faults[i]" for the fault at index i.
	Field string
	// Err says why, in the words of the control API's 400. It wraps psp.ErrInvalidFault for a
	// bad fault.
	Err error
}

func (e *FaultsError) Error() string {
	return fmt.Sprintf("control: line %d, column %d: %s: %v", e.Line, e.Column, e.Field, e.Err)
}

func (e *FaultsError) Unwrap() error { return e.Err }

// decodeFaults reads a body of POST FaultsPath. It returns the faults and a problem for each
// bad one, or only the problem of data that is not {"faults":[...]} with at most
// MaxQueuedFaults faults. A webhook fault is a problem unless webhooks is true.
func decodeFaults(data []byte, webhooks bool) (Faults, []*FaultsError) {
	var in struct {
		Faults []rawFault `json:"faults"`
	}
	err := json.Unmarshal(data, &in, json.RejectUnknownMembers(true))
	switch {
	case err != nil:
		return Faults{}, []*FaultsError{shapeError(data, err)}
	case in.Faults == nil:
		start := len(data) - len(bytes.TrimLeft(data, " \t\r\n")) // the value: an object or null
		return Faults{}, []*FaultsError{at(data, int64(start), "faults", errors.New("required: a JSON array of faults"))}
	case len(in.Faults) > MaxQueuedFaults:
		return Faults{}, []*FaultsError{at(data, in.Faults[MaxQueuedFaults].offset, "faults",
			fmt.Errorf("%d given, at most %d may be queued", len(in.Faults), MaxQueuedFaults))}
	}
	var faults Faults
	var bad []*FaultsError
	for i, raw := range in.Faults {
		if err = faults.add(raw.value, webhooks); err != nil {
			bad = append(bad, at(data, raw.offset, fmt.Sprintf("faults[%d]", i), err))
		}
	}
	return faults, bad
}

// add decodes the fault in data and adds it to its queue: the webhooks' if its target is
// "webhook", and webhooks is true.
func (faults *Faults) add(data jsontext.Value, webhooks bool) error {
	if targetOf(data) != targetWebhook {
		f, err := decodeFault(data)
		faults.Server = append(faults.Server, f)
		return err
	}
	if !webhooks {
		return invalidFault(`"target":"webhook": this reader queues payment and lookup faults only`)
	}
	f, err := decodeWebhookFault(data)
	faults.Webhooks = append(faults.Webhooks, f)
	return err
}

// rawFault is a fault's JSON text and the offset in the body where it starts.
type rawFault struct {
	value  jsontext.Value
	offset int64
}

func (r *rawFault) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	v, err := dec.ReadValue()
	r.value, r.offset = v.Clone(), dec.InputOffset()-int64(len(v))
	return err
}

// shapeError is the problem of data, which json.Unmarshal refused with err: it is not JSON, or
// not an object of "faults" alone.
func shapeError(data []byte, err error) *FaultsError {
	const want = `{"faults":[{"kind":"drop"}]}`
	why := jsonWords(err, "the body")
	syntax, isSyntax := errors.AsType[*jsontext.SyntacticError](err)
	switch {
	case isSyntax && len(bytes.TrimSpace(data)) == 0:
		return at(data, syntax.ByteOffset, "body", errors.New("empty, want an object such as "+want))
	case isSyntax:
		return at(data, syntax.ByteOffset, "body", why)
	case errors.Is(err, json.ErrUnknownName):
		why = fmt.Errorf(`%w: the body takes "faults" alone, as in %s`, why, want)
	default:
		why = fmt.Errorf("%w, as in %s", why, want)
	}
	shape, _ := errors.AsType[*json.SemanticError](err) // the only other error of Unmarshal
	return at(data, shape.ByteOffset, "body", why)
}

// at is a problem with field, for err, that starts at offset in data.
func at(data []byte, offset int64, field string, err error) *FaultsError {
	before := data[:offset]
	return &FaultsError{
		Line:   bytes.Count(before, []byte("\n")) + 1,
		Column: len(before) - bytes.LastIndexByte(before, '\n'),
		Field:  field,
		Err:    err,
	}
}

// violations are bad as the control API's 400 names them.
func violations(bad []*FaultsError) []psp.Violation {
	v := make([]psp.Violation, len(bad))
	for i, e := range bad {
		v[i] = psp.Violation{Field: e.Field, Reason: e.Err.Error()}
	}
	return v
}
