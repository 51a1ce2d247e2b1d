package openapitest

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"
)

// tiny is a small OpenAPI document: a component response with a header of its own and one by
// reference, and an operation with a response of its own and one by reference.
const tiny = `{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
 "components": {
  "headers": {"Count": {"schema": {"type": "integer"}}},
  "responses": {"Gone.Away": {"description": "d",
   "headers": {"Count": {"$ref": "#/components/headers/Count"}, "X-Mine": {"schema": {"type": "string"}}},
   "content": {"application/problem+json": {"schema": {"type": "object"}}}}}},
 "paths": {"/a~b": {"get": {"responses": {
  "200": {"description": "d", "content": {"text/plain": {"schema": {"type": "string"}}}},
  "410": {"$ref": "#/components/responses/Gone.Away"}}}}}}`

// TestMustLoadCompilesEverySchema: each header field's and each body's schema is compiled once,
// under its JSON pointer, the referenced ones under the reference.
func TestMustLoadCompilesEverySchema(t *testing.T) {
	d := mustLoad([]byte(tiny))
	want := []string{
		"#/components/headers/Count/schema",
		"#/components/responses/Gone.Away/content/application~1problem+json/schema",
		"#/components/responses/Gone.Away/headers/X-Mine/schema",
		"#/paths/~1a~0b/get/responses/200/content/text~1plain/schema",
	}
	if diff := cmp.Diff(want, slices.Sorted(maps.Keys(d.schemas))); diff != "" {
		t.Errorf("schemas mismatch (-want +got):\n%s", diff)
	}
}

// TestMustLoadPanicsOnABrokenDocument: a document that is not JSON, not OpenAPI, or whose
// schemas do not compile is a programming error.
func TestMustLoadPanicsOnABrokenDocument(t *testing.T) {
	tests := map[string]struct{ doc, want string }{
		"not JSON":     {"{", "unexpected end of JSON input"},
		"not OpenAPI":  {`{"openapi": "3.1.0"}`, "invalid info: must be an object"},
		"YAML":         {"openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\n", "invalid character 'o'"},
		"not a schema": {strings.Replace(tiny, `"text/plain": {"schema": {"type": "string"}}`, `"text/plain": {}`, 1), "/paths/~1a~0b/get/responses/200/content/text~1plain/schema"},
		"a bad schema": {strings.Replace(tiny, `"type": "integer"`, `"type": "integer", "minimum": "one"`, 1), "minimum"},
		"a bad example of a schema": {strings.Replace(tiny, `"schema": {"type": "integer"}`,
			`"schema": {"type": "integer", "examples": [3, "three"]}`, 1), "an example of #/components/headers/Count/schema"},
		"a bad schema with examples": {strings.Replace(tiny, `"schema": {"type": "integer"}`,
			`"schema": {"type": "integer", "pattern": "(", "examples": [3]}`, 1),
			"an example of #/components/headers/Count/schema: \"file:///openapi.json#/components/headers/Count/schema\" " +
				"is not valid against metaschema"},
		"a bad example of a media type": {strings.Replace(tiny, `"text/plain": {"schema": {"type": "string"}}`,
			`"text/plain": {"schema": {"type": "string"}, "example": 3}`, 1), "invalid example"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			defer func() {
				got := fmt.Sprint(recover())
				if !strings.HasPrefix(got, "openapitest: the OpenAPI document: ") || !strings.Contains(got, tt.want) {
					t.Errorf("mustLoad() panicked with %q, want the OpenAPI document's fault, with %q", got, tt.want)
				}
			}()
			mustLoad([]byte(tt.doc))
		})
	}
}

// TestExamplesUnder: the examples of a schema are checked against it, and those of a media type
// or a parameter, its example and the values of its examples, against its schema. Those in an
// array are found under their index.
func TestExamplesUnder(t *testing.T) {
	var raw any
	doc := `{"components": {"schemas": {"N": {"type": "integer", "examples": [1, 2]}}},
 "paths": {"/a": {"post": {"requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/N"},
  "example": 3, "examples": {"four": {"value": 4}, "elsewhere": {"externalValue": "https://example.com/5"}}}}},
  "parameters": [{"name": "p", "in": "query", "schema": {"type": "integer"}},
   {"name": "q", "in": "query", "schema": {"type": "integer"}, "example": 6}]}}}}`
	if err := json.Unmarshal([]byte(doc), &raw); err != nil {
		t.Fatal(err)
	}
	media := "#/paths/~1a/post/requestBody/content/application~1json/schema"
	want := []example{{"#/components/schemas/N", 1.0}, {"#/components/schemas/N", 2.0},
		{"#/paths/~1a/post/parameters/1/schema", 6.0}, {media, 3.0}, {media, 4.0}}
	if diff := cmp.Diff(want, examplesUnder(raw, "#"), cmp.AllowUnexported(example{})); diff != "" {
		t.Errorf("examplesUnder() mismatch (-want +got):\n%s", diff)
	}
}

func TestEscape(t *testing.T) {
	if got, want := escape("~/a~1/"), "~0~1a~01~1"; got != want {
		t.Errorf("escape() = %q, want %q", got, want)
	}
}

// TestHeaderValue: a header field's text is a number only where its schema is an integer's and
// the text is one; digits under a string's schema stay text, which a string schema accepts.
func TestHeaderValue(t *testing.T) {
	integer := &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeInteger}}
	text := &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeString}}
	tests := []struct {
		text   string
		schema *openapi3.Schema
		want   any
	}{
		{"30", integer, json.Number("30")},
		{"soon", integer, "soon"},
		{"30", text, "30"},
		{"soon", text, "soon"},
	}
	for _, tt := range tests {
		if got := headerValue(tt.text, tt.schema); got != tt.want {
			t.Errorf("headerValue(%q, %v) = %#v, want %#v", tt.text, tt.schema.Type, got, tt.want)
		}
	}
}
