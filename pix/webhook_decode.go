package pix

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"pixretry/pix/internal/hook"
)

// errWebhookBody is wrapped by every error of decodeWebhook.
var errWebhookBody = errors.New("pix: the webhook body breaks its contract")

// webhookMember is one member of a delivery's body: its name, what it takes, and how its text
// goes into a Webhook, false if the text is not what it takes.
type webhookMember struct {
	name  string
	takes string
	set   func(w *Webhook, text string) bool
}

// webhookMembers are the members of a delivery's body, every one required.
var webhookMembers = []webhookMember{
	{"id", "1 to 255 visible ASCII characters", func(w *Webhook, s string) bool {
		w.ID = s
		return idempotencyKeyPattern.MatchString(s)
	}},
	{"endToEndId", "E, an 8-digit ISPB, yyyyMMddHHmm and 11 letters or digits", func(w *Webhook, s string) bool {
		w.EndToEndID = s
		return endToEndIDPattern.MatchString(s) && validIDTime(s[9:21])
	}},
	{"idempotencyKey", "1 to 255 visible ASCII characters", func(w *Webhook, s string) bool {
		w.IdempotencyKey = s
		return idempotencyKeyPattern.MatchString(s)
	}},
	{"status", `"REALIZADO" or "NAO_REALIZADO"`, func(w *Webhook, s string) bool {
		w.Status = s
		return s == statusSettled || s == statusRejected
	}},
	{"valor", `an amount of 0.01 to 9999999999.99 with two decimals, such as "150.00"`, func(w *Webhook, s string) bool {
		cents, ok := parseValor(s)
		w.AmountCents = cents
		return ok
	}},
	{"horario", `an RFC 3339 time, such as "2025-01-02T15:04:05Z"`, func(w *Webhook, s string) bool {
		at, err := time.Parse(time.RFC3339, s)
		w.At = at
		return err == nil
	}},
}

// decodeWebhook decodes a delivery's body strictly: one JSON object (valid UTF-8, no name
// repeated) whose members are exactly webhookMembers, each a JSON string that it takes. The
// error wraps errWebhookBody and names each member at fault, and what it takes.
func decodeWebhook(body []byte) (Webhook, error) {
	var members map[string]jsontext.Value
	err := json.Unmarshal(body, &members)
	if _, syntax := errors.AsType[*jsontext.SyntacticError](err); syntax {
		return Webhook{}, fmt.Errorf("%w: the body is not valid JSON: %v", errWebhookBody, err)
	}
	if err != nil || members == nil {
		return Webhook{}, fmt.Errorf("%w: the body is %s, want a JSON object", errWebhookBody,
			hook.KindWord(jsontext.Value(body).Kind()))
	}
	var w Webhook
	var faults []string
	for _, m := range webhookMembers {
		raw, ok := members[m.name]
		delete(members, m.name)
		if fault := m.decode(&w, raw, ok); fault != "" {
			faults = append(faults, fault)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(members)) {
		faults = append(faults, fmt.Sprintf("member %q is unknown", name))
	}
	if faults != nil {
		return Webhook{}, fmt.Errorf("%w: %s; the members are id, endToEndId, idempotencyKey, status, valor and horario",
			errWebhookBody, strings.Join(faults, "; "))
	}
	return w, nil
}

// decode sets m's field of w from raw, its value in the body, present or not. It returns what
// is wrong with it, or "".
func (m webhookMember) decode(w *Webhook, raw jsontext.Value, present bool) string {
	var text string
	switch {
	case !present:
		return fmt.Sprintf("member %q is missing: want a string, %s", m.name, m.takes)
	case raw.Kind() != '"' || json.Unmarshal(raw, &text) != nil:
		return fmt.Sprintf("member %q is %s: want a string, %s", m.name, hook.KindWord(raw.Kind()), m.takes)
	case !m.set(w, text):
		return fmt.Sprintf("member %q is %s: want %s", m.name, raw, m.takes)
	}
	return ""
}
