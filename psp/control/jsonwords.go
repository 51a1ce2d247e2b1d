package control

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// jsonWords is why a JSON text is not what the control API wants, from err, an error of
// json.Unmarshal, in the words of the JSON: it names the member and what it should be, never a
// Go type. whole names data itself, as in "the body". For data that is not JSON, it says where
// in its structure the problem is.
func jsonWords(err error, whole string) error {
	if syntax, ok := errors.AsType[*jsontext.SyntacticError](err); ok {
		return syntaxWords(syntax)
	}
	semantic, _ := errors.AsType[*json.SemanticError](err) // the only other error of Unmarshal
	member := whole
	if semantic.JSONPointer != "" {
		member = "member " + memberWords(semantic.JSONPointer)
	}
	switch {
	case errors.Is(err, json.ErrUnknownName):
		return fmt.Errorf("unknown %s", member)
	case errors.Is(semantic.Err, strconv.ErrRange):
		return fmt.Errorf("%s is %s, out of range", member, semantic.JSONValue)
	}
	return fmt.Errorf("%s is %s, want %s", member, valueWords(semantic.JSONKind, semantic.JSONValue),
		typeWords(semantic.GoType))
}

// syntaxWords says why a text is not JSON, and where in its structure.
func syntaxWords(syntax *jsontext.SyntacticError) error {
	where := ""
	if syntax.JSONPointer != "" {
		where = memberWords(syntax.JSONPointer)
	}
	switch {
	case errors.Is(syntax.Err, jsontext.ErrDuplicateName):
		return fmt.Errorf("not valid JSON: member %s is repeated", where)
	case where != "":
		where = ", within " + where
	}
	why := syntax.Err.Error()
	if errors.Is(syntax.Err, io.ErrUnexpectedEOF) {
		why = "it ends too soon"
	}
	return errors.New("not valid JSON: " + why + where)
}

// memberWords is where pointer leads, as a JSON path such as "faults[1].status", in quotes.
func memberWords(pointer jsontext.Pointer) string {
	var path strings.Builder
	for token := range pointer.Tokens() {
		if _, err := strconv.ParseUint(token, 10, 64); err == nil { // an array index
			fmt.Fprintf(&path, "[%s]", token)
			continue
		}
		if path.Len() > 0 {
			path.WriteByte('.')
		}
		path.WriteString(token)
	}
	return strconv.Quote(path.String())
}

// valueWords is the JSON value of kind, the text of value for a number: "503.5", "a string",
// "an array". Unmarshal keeps the text of a string only for a member with the string option,
// and the control API has none.
func valueWords(kind jsontext.Kind, value jsontext.Value) string {
	if kind == '0' && value != nil {
		return string(value)
	}
	return kindWords(kind)
}

// kindWords names a JSON kind, as in "an object".
func kindWords(kind jsontext.Kind) string {
	switch kind {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't':
		return "true"
	case 'f':
		return "false"
	case 'n':
		return "null"
	}
	return "a value"
}

// typeWords names the JSON value that a member of type t takes. t is the GoType of an error
// of Unmarshal: never nil, and for a member that is a pointer, the type it points to.
func typeWords(t reflect.Type) string {
	switch {
	case t.Kind() == reflect.String:
		return "a string"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		return "a whole number"
	case t.Kind() == reflect.Slice:
		return "an array"
	}
	return "an object"
}
