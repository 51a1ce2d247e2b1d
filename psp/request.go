package psp

import (
	"cmp"
	"encoding/json"
	"unicode/utf8"
)

// maxInfoPagadorLen is the longest infoPagador, in characters (Unicode code points).
const maxInfoPagadorLen = 140

// payment is a validated payment request. It is comparable, and two requests with equal
// values are the same payment: it is the fingerprint the key store compares. The amount is
// held in cents, so "0150.00" and "150.00" are the same payment. The text is the request's,
// read exactly (see textViolation), so "caf\u00e9" and "café" are the same payment.
type payment struct {
	cents int64
	chave string
	info  string
}

// The members of a payment body, in the order their violations are reported.
var (
	valorField = stringField{"valor", true, valorViolation}
	chaveField = stringField{"chave", true, chaveViolation}
	infoField  = stringField{"infoPagador", false, infoViolation}
)

// decodePayment decodes and validates a payment body. Every violation is reported: unknown or
// repeated members as they appear, then valor, chave and infoPagador.
func decodePayment(body []byte) (payment, error) {
	members, bad := decodeObject(body, valorField.name, chaveField.name, infoField.name)
	if members == nil {
		return payment{}, invalid(codeInvalidRequest, bad...)
	}
	valor, bad := valorField.read(members, bad)
	chave, bad := chaveField.read(members, bad)
	info, bad := infoField.read(members, bad)
	if len(bad) > 0 {
		return payment{}, invalid(codeInvalidRequest, bad...)
	}
	cents, _ := parseAmount(valor) // valorViolation has accepted it
	return payment{cents: cents, chave: chave, info: info}, nil
}

// stringField is a body member whose value is a JSON string.
type stringField struct {
	name     string
	required bool
	// check returns why a value is bad, or "" for a good one.
	check func(string) string
}

// read returns the member's value ("" if absent) and bad with a violation appended if the
// member is missing but required, is not a JSON string, would not read exactly (see
// textViolation) or fails check.
func (f stringField) read(members map[string]json.RawMessage, bad []violation) (string, []violation) {
	raw, present := members[f.name]
	if !present && !f.required {
		return "", bad
	}
	if !present {
		return "", append(bad, violation{f.name, "required"})
	}
	s, isString := jsonText(raw)
	reason := "must be a JSON string"
	if isString {
		reason = cmp.Or(textViolation(raw), f.check(s))
	}
	if reason == "" {
		return s, bad
	}
	return s, append(bad, violation{f.name, reason})
}

func valorViolation(s string) string {
	cents, err := ParseBalance(s)
	if err != nil {
		return `must match ^\d{1,10}\.\d{2}$, as in "150.00"`
	}
	if cents == 0 {
		return "must be greater than zero"
	}
	return ""
}

func chaveViolation(s string) string {
	if ValidPixKey(s) {
		return ""
	}
	return "must be a Pix key: CPF (11 digits), CNPJ (14 digits), phone (+ and up to 15 digits), " +
		"e-mail (lower case, at most 77 characters) or EVP (lower-case UUID)"
}

func infoViolation(s string) string {
	if utf8.RuneCountInString(s) <= maxInfoPagadorLen {
		return ""
	}
	return "must be at most 140 characters"
}
