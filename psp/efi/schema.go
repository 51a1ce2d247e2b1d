package efi

import (
	"errors"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"pixretry/psp"
)

// valorPattern is the format of valor.
var valorPattern = regexp.MustCompile(`^\d{1,10}\.\d{2}$`)

// payout is the body of a PUT, checked against Efí's schema.
type payout struct {
	valor    string
	payerKey string // pagador.chave
	info     string // pagador.infoPagador; "" if absent
	chave    string // favorecido.chave
}

// readPayout reads the body of r, at most psp.MaxBodyBytes, and checks it. It returns the
// payout, or the answer that refuses it: 400 json_invalido for a body that fails the schema,
// else valor_invalido for a zero valor, else chave_invalida for a pagador.chave that is not
// PayerKey.
func readPayout(w http.ResponseWriter, r *http.Request) (payout, *answer) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, psp.MaxBodyBytes))
	if _, tooLarge := errors.AsType[*http.MaxBytesError](err); tooLarge {
		return refuse(invalidJSON(erro{"maxLength", ".body", "must be at most " + strconv.Itoa(psp.MaxBodyBytes) + " bytes"}))
	}
	if err != nil {
		return refuse(invalidJSON(erro{"json", ".body", "could not be read"}))
	}
	p, refusal := decodePayout(body)
	switch cents, _ := psp.ParseBalance(p.valor); {
	case refusal != nil:
		return payout{}, refusal
	case cents == 0:
		return refuse(gnError(http.StatusBadRequest, nomeInvalidValue, "valor must be greater than zero"))
	case p.payerKey != PayerKey:
		return refuse(gnError(http.StatusBadRequest, nomeInvalidKey,
			"pagador.chave is not a key of the authenticated account, whose key is "+PayerKey))
	}
	return p, nil
}

// refuse returns no payout and a.
func refuse(a answer) (payout, *answer) { return payout{}, &a }

// decodePayout decodes body and checks it against the schema: one JSON object (valid UTF-8,
// no repeated member) with the members valor, pagador {chave, infoPagador} and favorecido
// {chave}, and no other. It returns the payout, or the 400 json_invalido that names every
// member at fault: in each object its unknown members by name, then its members in order.
func decodePayout(body []byte) (payout, *answer) {
	var top map[string]jsontext.Value
	err := json.Unmarshal(body, &top)
	if syntax, ok := errors.AsType[*jsontext.SyntacticError](err); ok {
		return refuse(invalidJSON(erro{"json", ".body", "is not valid JSON, at byte " + strconv.FormatInt(syntax.ByteOffset, 10)}))
	}
	if err != nil || jsontext.Value(body).Kind() != '{' {
		return refuse(invalidJSON(erro{"type", ".body", "must be an object"}))
	}
	var c checker
	var p payout
	c.unknown(".body", top, "valor", "pagador", "favorecido")
	if valor, ok := c.text(".body.valor", top["valor"], true); ok && !valorPattern.MatchString(valor) {
		c.add("pattern", ".body.valor", `must match ^\d{1,10}\.\d{2}$, as in "12.34"`)
	} else {
		p.valor = valor
	}
	if pagador, ok := c.object(".body.pagador", top["pagador"], "chave", "infoPagador"); ok {
		p.payerKey, _ = c.text(".body.pagador.chave", pagador["chave"], true)
		p.info, _ = c.text(".body.pagador.infoPagador", pagador["infoPagador"], false)
	}
	if favorecido, ok := c.object(".body.favorecido", top["favorecido"], "chave"); ok {
		p.chave, _ = c.text(".body.favorecido.chave", favorecido["chave"], true)
	}
	if c.erros != nil {
		return refuse(invalidJSON(c.erros...))
	}
	return p, nil
}

// checker notes the members at fault of a body, in the order it checks them.
type checker struct{ erros []erro }

func (c *checker) add(keyword, path, why string) { c.erros = append(c.erros, erro{keyword, path, why}) }

// unknown notes each member of the object at path that known does not list, in name order.
func (c *checker) unknown(path string, members map[string]jsontext.Value, known ...string) {
	for _, name := range slices.Sorted(maps.Keys(members)) {
		if !slices.Contains(known, name) {
			c.add("additionalProperties", path+"."+name, "unknown member: "+path+" has "+strings.Join(known, ", "))
		}
	}
}

// object returns the members of raw, the required object at path, and whether it is one. It
// notes raw if it is absent or not an object, and its unknown members.
func (c *checker) object(path string, raw jsontext.Value, known ...string) (map[string]jsontext.Value, bool) {
	switch {
	case raw == nil:
		c.add("required", path, "required")
	case raw.Kind() != '{':
		c.add("type", path, "must be an object")
	default:
		var members map[string]jsontext.Value
		json.Unmarshal(raw, &members) // an object, valid as the whole body is
		c.unknown(path, members, known...)
		return members, true
	}
	return nil, false
}

// text returns the string raw, the member at path, and whether it is one. It notes raw if it
// is absent but required, or not a string.
func (c *checker) text(path string, raw jsontext.Value, required bool) (string, bool) {
	switch {
	case raw == nil && required:
		c.add("required", path, "required")
	case raw == nil:
	case raw.Kind() != '"':
		c.add("type", path, "must be a string")
	default:
		var s string
		json.Unmarshal(raw, &s) // a string, valid as the whole body is
		return s, true
	}
	return "", false
}
