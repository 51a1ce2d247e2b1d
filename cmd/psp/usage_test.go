package main

import (
	"bytes"
	"context"
	encjson "encoding/json" // json is exposure_test.go's media type
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUsageNamesTheEndpointsAndTheDocs: psp -h lists, after its flags, every operation of the
// OpenAPI document, of every dialect, and no other, and says where the docs are.
func TestUsageNamesTheEndpointsAndTheDocs(t *testing.T) {
	var stderr bytes.Buffer
	run(context.Background(), []string{"-h"}, &bytes.Buffer{}, &stderr)
	usage := stderr.String()
	var listed []string
	for _, m := range regexp.MustCompile(`(?m)^  (GET|PUT|POST|DELETE) +(/[^ ?]*)`).FindAllStringSubmatch(usage, -1) {
		listed = append(listed, m[1]+" "+m[2])
	}
	if diff := cmp.Diff(documentedOperations(t), slices.Sorted(slices.Values(listed))); diff != "" {
		t.Errorf("psp -h lists the operations (-documented +listed):\n%s", diff)
	}
	for _, want := range []string{"Usage of psp:\n  -addr string", "docs/psp.md", "GET    /openapi.json", "psp/scenarios",
		"-dialect dialect", "With -dialect efi", "pagador@pixretry.example", "With -dialect openfinance",
		"-openfinance-signing-key-file file", "-openfinance-client-keys-file file", "-openfinance-org-id string",
		"-openfinance-client-org-id string", "-openfinance-key-ttl duration",
		"-openfinance-consent-ttl duration"} {
		if !strings.Contains(usage, want) {
			t.Errorf("psp -h does not say %q:\n%s", want, usage)
		}
	}
}

// documentedOperations are the operations of the OpenAPI document, as "METHOD /path", sorted.
func documentedOperations(tb testing.TB) []string {
	tb.Helper()
	data, err := os.ReadFile("../../psp/control/openapi.json")
	if err != nil {
		tb.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]encjson.RawMessage `json:"paths"`
	}
	if err := encjson.Unmarshal(data, &doc); err != nil {
		tb.Fatal(err)
	}
	var operations []string
	for path, item := range doc.Paths {
		for method := range maps.Keys(item) {
			operations = append(operations, strings.ToUpper(method)+" "+path)
		}
	}
	return slices.Sorted(slices.Values(operations))
}
