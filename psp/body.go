package psp

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
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
	mediaType, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if charset, ok := params["charset"]; err != nil || mediaType != jsonContentType ||
		ok && !strings.EqualFold(charset, "utf-8") {
		return fail(codeUnsupportedMediaType, "Content-Type must be application/json, got %q", h.Get("Content-Type"))
	}
	return nil
}

// decodeObject decodes body strictly as one JSON object whose members are all named in known,
// each at most once, with nothing after it. It returns the members undecoded, with a
// violation for each unknown or repeated member; syntax errors are reported as a violation of
// the "body" field.
func decodeObject(body []byte, known ...string) (map[string]json.RawMessage, []violation) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, []violation{{"body", "must be a JSON object"}}
	}
	members := map[string]json.RawMessage{}
	var bad []violation
	for dec.More() {
		name, value, err := nextMember(dec)
		if err != nil {
			return nil, []violation{{"body", "is not valid JSON: " + err.Error()}}
		}
		_, repeated := members[name]
		switch {
		case !slices.Contains(known, name):
			bad = append(bad, violation{cmp.Or(name, `""`), "unknown field"}) // "" shows an empty name
		case repeated:
			bad = append(bad, violation{name, "appears more than once"})
		}
		members[name] = value
	}
	if _, err := dec.Token(); err != nil {
		return nil, []violation{{"body", "is not valid JSON: " + err.Error()}}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, []violation{{"body", "must hold one JSON object and nothing after it"}}
	}
	return members, bad
}

// nextMember reads one "name": value pair of the object dec is in.
func nextMember(dec *json.Decoder) (string, json.RawMessage, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", nil, err
	}
	var value json.RawMessage
	if err := dec.Decode(&value); err != nil {
		return "", nil, fmt.Errorf("member %v: %w", tok, err)
	}
	return tok.(string), value, nil
}
