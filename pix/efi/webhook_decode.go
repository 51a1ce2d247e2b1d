package efi

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"pixretry/pix"
	"pixretry/pix/internal/hook"
)

// errCallbackBody is wrapped by every error of decodeCallback.
var errCallbackBody = errors.New("efi: the webhook body breaks Efí's form")

// tipoSolicitacao is the tipo of a Pix the account sent, the only kind a callback here tells.
const tipoSolicitacao = "SOLICITACAO"

// The longest chave and infoPagador, in characters (Efí's attribute tables).
const (
	maxChave       = 77
	maxInfoPagador = 140
)

// callback reads a callback's body, noting each member at fault.
type callback struct{ faults []string }

// fault notes that the member at path is at fault, and why.
func (c *callback) fault(path, format string, args ...any) {
	c.faults = append(c.faults, fmt.Sprintf("member %s %s", path, fmt.Sprintf(format, args...)))
}

// decodeCallback decodes the body of Efí's callback for Pix sent, strictly: {"pix":[...]}, one
// or more entries, every member known, no name repeated, valid UTF-8. Each entry becomes a
// pix.Webhook whose ID is its endToEndId and whose IdempotencyKey is its gnExtras.idEnvio. The
// error wraps errCallbackBody and names each member at fault, such as pix[0].gnExtras.idEnvio,
// and what it takes.
func decodeCallback(body []byte) ([]pix.Webhook, error) {
	var c callback
	top, err := members(body)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errCallbackBody, err)
	}
	raw, ok := top["pix"]
	delete(top, "pix")
	var entries []jsontext.Value
	switch {
	case !ok:
		c.fault("pix", "is missing: want an array of the Pix sent")
	case raw.Kind() != '[' || json.Unmarshal(raw, &entries) != nil:
		c.fault("pix", "is %s: want an array of the Pix sent", hook.KindWord(raw.Kind()))
	case len(entries) == 0:
		c.fault("pix", "is empty: want at least one Pix sent")
	}
	c.unknown("", top)
	hooks := make([]pix.Webhook, len(entries))
	for i, e := range entries {
		hooks[i] = c.entry(fmt.Sprintf("pix[%d]", i), e)
	}
	if c.faults != nil {
		return nil, fmt.Errorf("%w: %s", errCallbackBody, strings.Join(c.faults, "; "))
	}
	return hooks, nil
}

// members are the members of raw, a JSON object, or an error saying what raw is instead.
func members(raw []byte) (map[string]jsontext.Value, error) {
	var m map[string]jsontext.Value
	err := json.Unmarshal(raw, &m)
	if _, syntax := errors.AsType[*jsontext.SyntacticError](err); syntax {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	if err != nil || m == nil {
		return nil, fmt.Errorf("is %s, want a JSON object", hook.KindWord(jsontext.Value(raw).Kind()))
	}
	return m, nil
}

// entry decodes the Pix sent at path.
func (c *callback) entry(path string, raw jsontext.Value) pix.Webhook {
	m, err := members(raw)
	if err != nil {
		c.fault(path, "%v", err)
		return pix.Webhook{}
	}
	var w pix.Webhook
	w.EndToEndID = c.text(path, m, "endToEndId", "E, an 8-digit ISPB, yyyyMMddHHmm and 11 letters or digits",
		func(s string) bool { _, err := checkEndToEndID("", s); return err == nil })
	w.ID = w.EndToEndID
	c.text(path, m, "chave", fmt.Sprintf("a Pix key of 1 to %d characters", maxChave), func(s string) bool {
		return s != "" && utf8.RuneCountInString(s) <= maxChave
	})
	c.text(path, m, "tipo", `"`+tipoSolicitacao+`"`, func(s string) bool { return s == tipoSolicitacao })
	w.Status = c.text(path, m, "status", `"REALIZADO" or "NAO_REALIZADO"`, func(s string) bool {
		return s == statusSettled || s == statusRejected
	})
	c.text(path, m, "valor", `an amount of 0.01 to 9999999999.99 with two decimals, such as "150.00"`,
		func(s string) bool { cents, err := parseValor(s); w.AmountCents = cents; return err == nil })
	w.At = c.horario(path, m, w.Status)
	if _, ok := m["infoPagador"]; ok { // optional
		c.text(path, m, "infoPagador", fmt.Sprintf("at most %d characters", maxInfoPagador),
			func(s string) bool { return utf8.RuneCountInString(s) <= maxInfoPagador })
	}
	w.IdempotencyKey, w.Reason = c.gnExtras(path+".gnExtras", m, w.Status)
	c.unknown(path, m)
	return w
}

// horario reads the horario of the entry at path, whose status is status: an RFC 3339 time,
// or null for a Pix NAO_REALIZADO, which gives the zero time.
func (c *callback) horario(path string, m map[string]jsontext.Value, status string) time.Time {
	if raw, ok := m["horario"]; ok && raw.Kind() == 'n' && status == statusRejected {
		delete(m, "horario")
		return time.Time{}
	}
	var at time.Time
	takes := `an RFC 3339 time, such as "2021-03-04T20:39:47.000Z", or null if status is "NAO_REALIZADO"`
	c.text(path, m, "horario", takes, func(s string) bool {
		t, err := time.Parse(time.RFC3339, s)
		at = t
		return err == nil
	})
	return at
}

// gnExtras reads the member gnExtras of m, at path, of an entry whose status is status. It
// returns its idEnvio, and the reason that its erro gives, "" if it has none.
func (c *callback) gnExtras(path string, m map[string]jsontext.Value, status string) (idEnvio, reason string) {
	raw, ok := m["gnExtras"]
	delete(m, "gnExtras")
	if !ok {
		c.fault(path, "is missing: want an object holding idEnvio")
		return "", ""
	}
	x, err := members(raw)
	if err != nil {
		c.fault(path, "%v", err)
		return "", ""
	}
	idEnvio = c.text(path, x, "idEnvio", "1 to 35 letters or digits", idEnvioPattern.MatchString)
	if raw, ok := x["erro"]; ok {
		delete(x, "erro")
		reason = c.erro(path+".erro", raw, status)
	}
	c.unknown(path, x)
	return idEnvio, reason
}

// erro reads the erro at path of an entry whose status is status, the reason that Efí gives
// for a Pix NAO_REALIZADO: an object of exactly the strings codigo (such as "AC03"), origem and
// motivo, none empty. An entry REALIZADO has no erro. It returns the reason as
// "<codigo>: <motivo> (<origem>)".
func (c *callback) erro(path string, raw jsontext.Value, status string) string {
	if status == statusSettled {
		c.fault(path, `is present: want it only if status is "NAO_REALIZADO"`)
		return ""
	}
	e, err := members(raw)
	if err != nil {
		c.fault(path, "%v", err)
		return ""
	}
	given := func(s string) bool { return s != "" }
	codigo := c.text(path, e, "codigo", `a reason code, such as "AC03"`, given)
	origem := c.text(path, e, "origem", `who rejected the Pix, such as "PSP do usuário recebedor"`, given)
	motivo := c.text(path, e, "motivo", "why, in words", given)
	c.unknown(path, e)
	return codigo + ": " + motivo + " (" + origem + ")"
}

// text reads the required string member name of m, at path, which valid takes, and removes it
// from m. It returns the string, or "" and notes a fault.
func (c *callback) text(path string, m map[string]jsontext.Value, name, takes string, valid func(string) bool) string {
	raw, ok := m[name]
	delete(m, name)
	var s string
	switch {
	case !ok:
		c.fault(path+"."+name, "is missing: want a string, %s", takes)
	case raw.Kind() != '"' || json.Unmarshal(raw, &s) != nil:
		c.fault(path+"."+name, "is %s: want a string, %s", hook.KindWord(raw.Kind()), takes)
	case !valid(s):
		c.fault(path+"."+name, "is %s: want %s", raw, takes)
	default:
		return s
	}
	return ""
}

// unknown notes each member left in m, at path, as unknown, in the order of their names.
func (c *callback) unknown(path string, m map[string]jsontext.Value) {
	for _, name := range slices.Sorted(maps.Keys(m)) {
		if path == "" {
			c.fault(name, "is unknown")
		} else {
			c.fault(path+"."+name, "is unknown")
		}
	}
}
