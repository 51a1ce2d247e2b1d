package scenarios

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"pixretry/psp"
)

// TestABadFileSaysWhereAndWhy: a scenario file the control API would refuse is an error that
// names the file, the line, the column and the member at fault, in the words of the JSON.
func TestABadFileSaysWhereAndWhy(t *testing.T) {
	fsys := fstest.MapFS{
		"typo.json":     {Data: []byte("{\"faults\": [\n  {\"kind\": \"drop\"},\n  {\"kind\": \"status\", \"status\": 503, \"retry_after\": 1}\n]}")},
		"wrong.json":    {Data: []byte(`{"faults": [{"kind": "late", "delay_ms": "600"}]}`)},
		"not-json.json": {Data: []byte("{\"faults\": [\n  {\"kind\": \"drop\"}\n  {\"kind\": \"reset\"}\n]}")},
		"shape.json":    {Data: []byte(`[{"kind": "drop"}]`)},
	}
	tests := []struct {
		name, want string
		invalid    bool // wraps psp.ErrInvalidFault
	}{
		{"typo", `scenarios: typo.json:3:3: faults[1]: psp: invalid fault: unknown member "retry_after": kind "status" ` +
			`takes "status" (400 to 599), optionally "retry_after_s" (whole seconds, 1 to 3600), and optionally "target":"lookup"`, true},
		{"wrong", `scenarios: wrong.json:1:13: faults[0]: psp: invalid fault: member "delay_ms" is a string, want a whole number`, true},
		{"not-json", `scenarios: not-json.json:3:3: body: not valid JSON: invalid character '{' after array element ` +
			`(expecting ',' or ']'), within "faults"`, false},
		{"shape", `scenarios: shape.json:1:1: body: the body is an array, want an object, as in {"faults":[{"kind":"drop"}]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			faults, err := read(fsys, tt.name)
			if err == nil || err.Error() != tt.want || faults != nil || errors.Is(err, psp.ErrInvalidFault) != tt.invalid {
				t.Errorf("read(%s) = %v, %v;\nwant no faults, %s (wrapping %v: %t)", tt.name, faults, err, tt.want,
					psp.ErrInvalidFault, tt.invalid)
			}
			for _, goWord := range []string{"Go ", "control.", "struct", "jsontext", "json: cannot"} {
				if err != nil && strings.Contains(err.Error(), goWord) {
					t.Errorf("read(%s) error names %q, want only the words of the JSON", tt.name, goWord)
				}
			}
		})
	}
}
