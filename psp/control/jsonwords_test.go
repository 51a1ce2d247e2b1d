package control

import (
	"reflect"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

func TestKindWords(t *testing.T) {
	tests := []struct {
		kind jsontext.Kind
		want string
	}{
		{'{', "an object"},
		{'[', "an array"},
		{'"', "a string"},
		{'0', "a number"},
		{'t', "true"},
		{'f', "false"},
		{'n', "null"},
		{jsontext.Value("").Kind(), "a value"}, // the kind of no JSON value
	}
	for _, tt := range tests {
		if got := kindWords(tt.kind); got != tt.want {
			t.Errorf("kindWords(%v) = %q, want %q", tt.kind, got, tt.want)
		}
	}
}

// TestTypeWords: every integer kind of Go, from int to uint64, takes a whole number.
func TestTypeWords(t *testing.T) {
	tests := []struct {
		t    reflect.Type
		want string
	}{
		{reflect.TypeFor[string](), "a string"},
		{reflect.TypeFor[int](), "a whole number"},
		{reflect.TypeFor[count](), "a whole number"},
		{reflect.TypeFor[uint64](), "a whole number"},
		{reflect.TypeFor[[]rawFault](), "an array"},
		{reflect.TypeFor[faultJSON](), "an object"},
	}
	for _, tt := range tests {
		if got := typeWords(tt.t); got != tt.want {
			t.Errorf("typeWords(%v) = %q, want %q", tt.t, got, tt.want)
		}
	}
}
