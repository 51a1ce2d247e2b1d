package openapitest

import (
	"fmt"
	"maps"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"pixretry/psp/control"
)

// checkExamples checks every example of the document, raw as the JSON Schema validator reads
// it, against its schema with that validator: each of a schema's examples (the JSON Schema
// keyword, an array), and the example or examples of each media type, against the media type's
// schema. kin-openapi checks a media type's example with a validator of its own, and a schema's
// examples not at all. It returns the first example its schema refuses.
func checkExamples(compiler *jsonschema.Compiler, raw any) error {
	for _, e := range examplesUnder(raw, "#") {
		schema, err := compiler.Compile(control.OpenAPIPath + e.schema)
		if err == nil {
			err = schema.Validate(e.value)
		}
		if err != nil {
			return fmt.Errorf("an example of %s: %w", e.schema, err)
		}
	}
	return nil
}

// example is an example of the document and the JSON pointer of the schema it illustrates.
type example struct {
	schema string
	value  any
}

// examplesUnder are the examples under node, which is at pointer in the document, in the
// order of the document's members sorted by name.
func examplesUnder(node any, pointer string) []example {
	var found []example
	switch node := node.(type) {
	case []any:
		for i, item := range node {
			found = append(found, examplesUnder(item, fmt.Sprintf("%s/%d", pointer, i))...)
		}
	case map[string]any:
		found = examplesOf(node, pointer)
		for _, name := range slices.Sorted(maps.Keys(node)) {
			found = append(found, examplesUnder(node[name], pointer+"/"+escape(name))...)
		}
	}
	return found
}

// examplesOf are the examples node, at pointer, gives itself: a media type's example and the
// values of its examples, against its schema, or a schema's examples, against it.
func examplesOf(node map[string]any, pointer string) []example {
	if _, isMediaType := node["schema"]; !isMediaType {
		values, _ := node["examples"].([]any) // a schema's
		found := make([]example, len(values))
		for i, value := range values {
			found[i] = example{pointer, value}
		}
		return found
	}
	var found []example
	if value, ok := node["example"]; ok {
		found = append(found, example{pointer + "/schema", value})
	}
	named, _ := node["examples"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(named)) {
		if object, ok := named[name].(map[string]any); ok && object["value"] != nil {
			found = append(found, example{pointer + "/schema", object["value"]})
		}
	}
	return found
}
