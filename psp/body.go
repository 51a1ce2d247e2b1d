package psp

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
)

// maxBodyBytes is the largest request body accepted, in bytes (64 KiB).
const maxBodyBytes = 65536

// readJSONBody checks that r carries JSON (Content-Type application/json, charset utf-8 if
// any) of at most maxBodyBytes and returns the body.
func readJSONBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if err := checkJSON(r.Header); err != nil {
		return nil, err
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if tooLarge := new(http.MaxBytesError); errors.As(err, &tooLarge) {
		return nil, fail(codePayloadTooLarge, "the body must be at most %d bytes", maxBodyBytes)
	}
	if err != nil {
		return nil, invalid(codeInvalidRequest, violation{"body", "could not be read: " + err.Error()})
	}
	return body, nil
}

// checkJSON refuses a Content-Type other than application/json (charset utf-8 if any) with 415
// unsupported_media_type.
func checkJSON(h http.Header) error {
	contentType := h.Get("Content-Type")
	if contentType == jsonContentType { // what nearly every client sends: no need to parse it
		return nil
	}
	mediaType, params, err := mime.ParseMediaType(contentType)
	if charset, ok := params["charset"]; err != nil || mediaType != jsonContentType ||
		ok && !strings.EqualFold(charset, "utf-8") {
		return fail(codeUnsupportedMediaType, "Content-Type must be application/json, got %q", contentType)
	}
	return nil
}

// decodeObject decodes body strictly as one JSON object whose members are all named in known,
// each at most once, with nothing after it. It returns the members undecoded, by name, with a
// violation for each unknown or repeated member; a body that is not one JSON object is a
// violation of the "body" field, and no members.
func decodeObject(body []byte, known ...string) (map[string]json.RawMessage, []violation) {
	if !json.Valid(body) {
		err := json.Unmarshal(body, new(json.RawMessage)) // says why, checking only the syntax
		return nil, []violation{{"body", "is not valid JSON: " + err.Error()}}
	}
	rest := bytes.TrimLeft(body, jsonSpace)
	if rest[0] != '{' {
		return nil, []violation{{"body", "must be a JSON object"}}
	}
	members := make(map[string]json.RawMessage, len(known))
	var bad []violation
	for rest = rest[1:]; ; {
		// In a valid object, the only bytes between a value and the next name or the closing
		// brace are spaces and at most one comma.
		rest = bytes.TrimLeft(rest, jsonSpace+",")
		if rest[0] == '}' {
			return members, bad
		}
		name, value, next := nextMember(rest)
		rest = next
		_, repeated := members[name]
		switch {
		case !slices.Contains(known, name):
			bad = append(bad, violation{cmp.Or(name, `""`), "unknown field"}) // "" shows an empty name
		case repeated:
			bad = append(bad, violation{name, "appears more than once"})
		}
		members[name] = value
	}
}

// jsonSpace is the white space JSON allows between tokens.
const jsonSpace = " \t\r\n"

// nextMember splits one "name": value pair off the front of object, the rest of a valid JSON
// object from a member's name on. It returns the name, the value undecoded and what follows it.
func nextMember(object []byte) (name string, value, rest []byte) {
	end := valueLen(object)
	name, _ = jsonText(object[:end])
	value = bytes.TrimLeft(object[end:], jsonSpace+":") // only spaces and the colon precede a value
	end = valueLen(value)
	return name, value[:end], value[end:]
}

// valueLen is the length of the JSON value that v begins with, v being valid JSON from there
// on, as inside an object: the value ends at the first space, colon, comma or closing bracket
// outside the strings, arrays and objects it holds. (An if-chain, not a switch: gremlins counts
// a case's condition as never run.)
func valueLen(v []byte) int {
	depth := 0 // of the arrays and objects open
	inString, escaped := false, false
	for i, c := range v {
		if escaped {
			escaped = false
		} else if inString {
			inString, escaped = c != '"', c == '\\'
		} else if c == '"' {
			inString = true
		} else if c == '{' || c == '[' {
			depth++
		} else if depth > 0 && (c == '}' || c == ']') {
			depth--
		} else if depth == 0 && strings.IndexByte(jsonSpace+":,}]", c) >= 0 {
			return i
		}
	}
	return len(v) // not reached: a valid object closes after its values
}

// jsonText returns the text of raw, a valid JSON value, and whether it is a string. A string
// that escapes nothing is its bytes, as they are.
func jsonText(raw []byte) (string, bool) {
	if raw[0] != '"' {
		return "", false
	}
	if !bytes.Contains(raw, []byte{'\\'}) {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	_ = json.Unmarshal(raw, &s) // a valid JSON string
	return s, true
}
