package hook

import "github.com/go-json-experiment/json/jsontext"

// KindWord names a JSON value of kind, as jsontext.Kind gives it, for a refusal's detail:
// "null", "a boolean", "a string", "a number", "an object" or "an array", and "empty" for
// any other kind, such as the zero Kind of an empty value.
func KindWord(kind jsontext.Kind) string {
	switch kind {
	case 'n':
		return "null"
	case 'f', 't':
		return "a boolean"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return "empty"
}
