package control

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"time"

	"github.com/go-json-experiment/json"

	"pixretry/psp/webhook"
)

// targetWebhook is the target of a fault for the webhook Sender's next delivery.
const targetWebhook = "webhook"

// webhookFaultJSON is the JSON form of a webhook.Fault: {"target":"webhook","kind":"duplicate"},
// {"target":"webhook","kind":"delay","duration_ms":2000}, {"target":"webhook","kind":"reorder"}
// or {"target":"webhook","kind":"fail","times":3}. A nil pointer is an absent member.
type webhookFaultJSON struct {
	Kind       string `json:"kind"`
	DurationMS *count `json:"duration_ms,omitempty"`
	Times      *count `json:"times,omitempty"`
	Target     string `json:"target"`
}

// webhookFaultUsage says what each kind of webhook fault takes, in the JSON form.
var webhookFaultUsage = map[string]string{
	"duplicate": "no parameters",
	"delay":     `"duration_ms" (milliseconds, 0 to 3600000)`,
	"reorder":   "no parameters",
	"fail":      fmt.Sprintf(`"times" (1 to %d)`, webhook.MaxAttempts),
}

// targetOf is the target of the fault in data, or "" if it has none that is a string.
func targetOf(data []byte) string {
	var fault struct {
		Target string `json:"target"`
	}
	json.Unmarshal(data, &fault) // other members are ignored: a target that is not a string is none
	return fault.Target
}

// decodeWebhookFault reads the JSON form of a fault whose target is "webhook", strictly, as
// decodeFault reads the others. Errors wrap psp.ErrInvalidFault and say, in the words of the
// JSON form, which member is wrong and what the kind takes.
func decodeWebhookFault(data []byte) (webhook.Fault, error) {
	var w webhookFaultJSON
	if err := json.Unmarshal(data, &w, json.RejectUnknownMembers(true)); err != nil {
		why := jsonWords(err, "the fault")
		if errors.Is(err, json.ErrUnknownName) {
			return webhook.Fault{}, invalidFault("%v: %s", why, webhookMembersOf(w.Kind))
		}
		return webhook.Fault{}, invalidFault("%v", why)
	}
	if err := w.DurationMS.within("duration_ms", time.Millisecond); err != nil {
		return webhook.Fault{}, err
	}
	f := webhook.Fault{Kind: w.Kind, Duration: time.Duration(*cmp.Or(w.DurationMS, new(count))) * time.Millisecond}
	if w.Times != nil {
		f.Times = int(min(*w.Times, webhook.MaxAttempts+1)) // a larger count is out of range too
	}
	if _, known := webhookFaultUsage[w.Kind]; !known {
		return webhook.Fault{}, invalidFault(`unknown kind %q for "target":"webhook": the kinds are %s`, w.Kind,
			and(slices.Sorted(maps.Keys(webhookFaultUsage))))
	}
	// Writing f back must give what was read: this catches missing members, members the kind
	// does not take, and a times out of range.
	if f.Validate() != nil || !reflect.DeepEqual(webhookWire(f), w) {
		return webhook.Fault{}, invalidFault("%s", webhookMembersOf(f.Kind))
	}
	return f, nil
}

// webhookMembersOf says what a webhook fault of kind takes, or every kind's members for an
// unknown kind.
func webhookMembersOf(kind string) string {
	if usage, known := webhookFaultUsage[kind]; known {
		return fmt.Sprintf(`kind %q with "target":"webhook" takes %s`, kind, usage)
	}
	return `the members of a fault with "target":"webhook" are kind, duration_ms (delay) and times (fail)`
}

// webhookWire is the JSON form of a valid f.
func webhookWire(f webhook.Fault) webhookFaultJSON {
	w := webhookFaultJSON{Kind: f.Kind, Target: targetWebhook}
	switch f.Kind {
	case "delay":
		ms := count(f.Duration.Milliseconds())
		w.DurationMS = &ms
	case "fail":
		times := count(f.Times)
		w.Times = &times
	}
	return w
}
