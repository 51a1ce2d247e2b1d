package psp

import (
	"bytes"
	"regexp"
	"unicode/utf8"
)

// textReason is why a text member that would not read exactly is refused.
const textReason = `must be valid UTF-8, without an unpaired surrogate escape such as "\ud800"`

// surrogateEscapes finds, left to right, escaped backslashes, escaped surrogate pairs and (the
// submatch) escapes of a surrogate outside a pair. Each escaped backslash is consumed whole,
// so the "u" after it is not taken for an escape.
var surrogateEscapes = regexp.MustCompile(
	`\\\\|\\u[dD][89abAB][[:xdigit:]]{2}\\u[dD][c-fC-F][[:xdigit:]]{2}|(\\u[dD][89a-fA-F][[:xdigit:]]{2})`)

// textViolation returns why the JSON string raw cannot be read exactly, or "" if it can.
// encoding/json reads invalid UTF-8 and an unpaired surrogate escape as U+FFFD, so two
// different strings would read the same and replay each other's payment. An escape of a
// character reads exactly: "\u00e9" and "é" are the same text.
func textViolation(raw []byte) string {
	if !utf8.Valid(raw) || unpairedSurrogate(raw) {
		return textReason
	}
	return ""
}

// unpairedSurrogate reports whether the JSON string raw escapes a UTF-16 surrogate that is not
// a high half followed at once by a low half.
func unpairedSurrogate(raw []byte) bool {
	if !bytes.Contains(raw, []byte(`\u`)) { // most text escapes nothing: no need for the regexp
		return false
	}
	for _, m := range surrogateEscapes.FindAllSubmatch(raw, len(raw)) { // every match: there are fewer than bytes
		if m[1] != nil {
			return true
		}
	}
	return false
}
