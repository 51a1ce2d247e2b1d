package control_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
	"pixretry/psp/control"
)

func TestDecodeFaults(t *testing.T) {
	in := `{"faults": [
  {"kind": "status", "status": 503, "retry_after_s": 2},
  {"kind": "down", "duration_ms": 5000, "target": "lookup"},
  {"kind": "drop"},
  {"kind": "pending", "after_ms": 1500, "then": "rejected"}
]}`
	got, err := control.DecodeFaults([]byte(in))
	want := []psp.Fault{{Kind: "status", Status: 503, RetryAfter: 2 * time.Second},
		psp.Down(5 * time.Second).ForLookup(), psp.Drop(), psp.Pending(1500*time.Millisecond, "rejected")}
	if diff := cmp.Diff(want, got); err != nil || diff != "" {
		t.Errorf("DecodeFaults() error = %v, faults mismatch (-want +got):\n%s", err, diff)
	}
}

func TestDecodeFaultsTakesNoneAndTheMost(t *testing.T) {
	if got, err := control.DecodeFaults([]byte(`{"faults": []}`)); err != nil || len(got) != 0 {
		t.Errorf("DecodeFaults(no faults) = %v, %v; want none, nil", got, err)
	}
	most := manyDrops(control.MaxQueuedFaults)
	if got, err := control.DecodeFaults([]byte(most)); err != nil || len(got) != control.MaxQueuedFaults {
		t.Errorf("DecodeFaults(%d faults) = %d faults, %v; want them all", control.MaxQueuedFaults, len(got), err)
	}
}

// kinds ends the problem of an unknown kind.
const kinds = "the kinds are bad_body, commit_status, down, drop, duplicate, late, pending, redirect, reset, slow and status"

// manyDrops is a body of n drop faults, one a line from line 2, indented by 2 spaces.
func manyDrops(n int) string {
	return "{\"faults\": [\n" + strings.Repeat("  {\"kind\": \"drop\"},\n", n-1) + "  {\"kind\": \"drop\"}\n]}"
}

// TestDecodeFaultsSaysWhereAndWhy: each problem is found at the byte where it starts, counted
// in lines and columns from 1, and no fault comes back with it.
func TestDecodeFaultsSaysWhereAndWhy(t *testing.T) {
	tests := []struct {
		name, in     string
		line, column int
		field, why   string
	}{
		{"not JSON", `faults: drop`, 1, 3, "body",
			"not valid JSON: invalid character 'u' in literal false (expecting 'l')"},
		{"a syntax error on line 3", "{\"faults\": [\n  {\"kind\": \"drop\"},\n  {\"kind\": \"reset\"} {\"kind\": \"drop\"}\n]}",
			3, 21, "body", `not valid JSON: invalid character '{' after array element (expecting ',' or ']'), within "faults"`},
		{"empty", ``, 1, 1, "body", `empty, want an object such as {"faults":[{"kind":"drop"}]}`},
		{"blank", "\n  ", 2, 3, "body", `empty, want an object such as {"faults":[{"kind":"drop"}]}`},
		{"cut short", "{\"faults\": [\n  {\"kind\": \"drop\"},", 2, 20, "body",
			`not valid JSON: it ends too soon, within "faults"`},
		{"a value after the object", "{\"faults\": []}\n[]", 2, 1, "body",
			"not valid JSON: invalid character '[' after top-level value"},
		{"faults twice", "{\"faults\": [],\n \"faults\": []}", 2, 2, "body",
			`not valid JSON: member "faults" is repeated`},
		{"a member of a fault twice", "{\"faults\": [\n  {\"kind\": \"drop\"},\n  {\"kind\": \"drop\", \"kind\": \"reset\"}\n]}", 3, 20, "body",
			`not valid JSON: member "faults[1].kind" is repeated`},
		{"invalid UTF-8", "{\"faults\": [\n  \"\xff\"]}", 2, 4, "body",
			`not valid JSON: invalid UTF-8, within "faults[0]"`},
		{"an unknown member", "{\n  \"faults\": [],\n  \"delay\": 5\n}", 3, 3, "body",
			`unknown member "delay": the body takes "faults" alone, as in {"faults":[{"kind":"drop"}]}`},
		{"faults not an array", "{\n  \"faults\": {\"kind\": \"drop\"}\n}", 2, 13, "body",
			`member "faults" is an object, want an array, as in {"faults":[{"kind":"drop"}]}`},
		{"not an object", `[{"kind": "drop"}]`, 1, 1, "body", `the body is an array, want an object, as in {"faults":[{"kind":"drop"}]}`},
		{"no faults", `{}`, 1, 1, "faults", "required: a JSON array of faults"},
		{"no faults after blank lines", "\n\n  {}", 3, 3, "faults", "required: a JSON array of faults"},
		{"faults null", `{"faults": null}`, 1, 1, "faults", "required: a JSON array of faults"},
		{"null", `null`, 1, 1, "faults", "required: a JSON array of faults"},
		{"a bad fault, then another", "{\"faults\": [\n  {\"kind\": \"drop\"},\n  {\"kind\": \"reset\", \"target\": \"lookup\"},\n" +
			"  {\"kind\": \"boom\"},\n  {\"kind\": \"slow\"}\n]}", 4, 3, "faults[2]", `psp: invalid fault: unknown kind "boom": ` + kinds},
		{"a null fault", `{"faults": [{"kind": "drop"}, null]}`, 1, 31, "faults[1]",
			`psp: invalid fault: the fault is null, want an object such as {"kind":"drop"}`},
		{"a misspelled member", "{\"faults\": [\n  {\"kind\": \"status\", \"status\": 503, \"retry_after\": 2}\n]}", 2, 3, "faults[0]",
			`psp: invalid fault: unknown member "retry_after": kind "status" takes "status" (400 to 599), ` +
				`optionally "retry_after_s" (whole seconds, 1 to 3600), and optionally "target":"lookup"`},
		{"a member of the wrong type", `{"faults": [{"kind": "status", "status": "503"}]}`, 1, 13, "faults[0]",
			`psp: invalid fault: member "status" is a string, want a whole number`},
		{"a fault out of range", "{\"faults\": [\n\t{\"kind\": \"late\", \"delay_ms\": 3600001}]}", 2, 2, "faults[0]",
			"psp: invalid fault: delay_ms 3600001 exceeds the maximum 3600000"},
		{"too many faults", manyDrops(control.MaxQueuedFaults + 1), control.MaxQueuedFaults + 2, 3, "faults",
			fmt.Sprintf("%d given, at most %d may be queued", control.MaxQueuedFaults+1, control.MaxQueuedFaults)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			faults, err := control.DecodeFaults([]byte(tt.in))
			bad, ok := errors.AsType[*control.FaultsError](err)
			if !ok || faults != nil {
				t.Fatalf("DecodeFaults() = %v, %v; want no faults and a *FaultsError", faults, err)
			}
			got := fmt.Sprintf("%d:%d %s: %v", bad.Line, bad.Column, bad.Field, bad.Err)
			if want := fmt.Sprintf("%d:%d %s: %s", tt.line, tt.column, tt.field, tt.why); got != want {
				t.Errorf("DecodeFaults() error at %s, want %s", got, want)
			}
			wantJSONWords(t, err)
		})
	}
}

// TestFaultErrorsSayWhichMemberAndWhat: a fault refused for its JSON form names the member at fault
// and what is wanted instead, in the words of the JSON form.
func TestFaultErrorsSayWhichMemberAndWhat(t *testing.T) {
	const status = `kind "status" takes "status" (400 to 599), optionally "retry_after_s" (whole seconds, 1 to 3600), ` +
		`and optionally "target":"lookup"`
	const pending = `kind "pending" takes "after_ms" (milliseconds, 0 to 3600000) and "then" (settled or rejected), ` +
		`and no "target" (payments only)`
	tests := map[string]string{
		`{"kind":"status","status":503,"retry_after":2}`: `unknown member "retry_after": ` + status,
		`{"kind":"boom","retry_after":2}`: `unknown member "retry_after": the members are kind, status, ` +
			`retry_after_s, delay_ms, duration_ms, breach, member, after_ms, then and target`,
		`{"kind":5}`:                                      `member "kind" is a number, want a string`,
		`{"kind":"status","status":"503"}`:                `member "status" is a string, want a whole number`,
		`{"kind":"status","status":503.5}`:                `member "status" is 503.5, want a whole number`,
		`{"kind":"status","status":true}`:                 `member "status" is true, want a whole number`,
		`{"kind":"status","status":[503]}`:                `member "status" is an array, want a whole number`,
		`{"kind":"late","delay_ms":{"ms":1}}`:             `member "delay_ms" is an object, want a whole number`,
		`{"kind":"bad_body","breach":false}`:              `member "breach" is false, want a string`,
		`{"kind":"status","status":1e40}`:                 `member "status" is 1e40, want a whole number`,
		`{"kind":"late","delay_ms":99999999999999999999}`: `member "delay_ms" is 99999999999999999999, out of range`,
		`[{"kind":"drop"}]`:                               `the fault is an array, want an object such as {"kind":"drop"}`,
		`"drop"`:                                          `the fault is a string, want an object such as {"kind":"drop"}`,
		`503`:                                             `the fault is a number, want an object such as {"kind":"drop"}`,
		`null`:                                            `the fault is null, want an object such as {"kind":"drop"}`,
		`true`:                                            `the fault is true, want an object such as {"kind":"drop"}`,
		`{"status":503}`: `member "kind" is missing or empty: the kinds are bad_body, commit_status, down, drop, ` +
			`duplicate, late, pending, redirect, reset, slow and status`,
		`{"kind":"Status","status":503}`: `unknown kind "Status": the kinds are bad_body, commit_status, down, drop, ` +
			`duplicate, late, pending, redirect, reset, slow and status`,
		`{"kind":"status","status":503,"target":"payments"}`: `unknown target "payments": "lookup" aims a fault at ` +
			`lookups, "webhook" at webhooks, and no target at payments`,
		`{"kind":"pending","after_ms":1000}`:                                 pending,
		`{"kind":"pending","after_ms":1000,"then":"refunded"}`:               pending,
		`{"kind":"pending","then":"settled"}`:                                pending,
		`{"kind":"pending","after_ms":-5,"then":"settled"}`:                  `after_ms -5 is negative`,
		`{"kind":"pending","after_ms":"5","then":"settled"}`:                 `member "after_ms" is a string, want a whole number`,
		`{"kind":"pending","after_ms":5,"then":1}`:                           `member "then" is a number, want a string`,
		`{"kind":"pending","after_ms":5,"then":"settled","target":"lookup"}`: pending,
	}
	for in, want := range tests {
		_, err := control.DecodeFaults([]byte(`{"faults": [` + in + `]}`))
		bad, ok := errors.AsType[*control.FaultsError](err)
		if want = "psp: invalid fault: " + want; !ok || bad.Field != "faults[0]" || bad.Err.Error() != want ||
			!errors.Is(err, psp.ErrInvalidFault) {
			t.Errorf("DecodeFaults(%s) error = %v,\nwant faults[0]: %s", in, err, want)
		}
		wantJSONWords(t, err)
	}
}

func TestFaultsErrorSaysWhereAndWraps(t *testing.T) {
	_, err := control.DecodeFaults([]byte("{\"faults\": [\n  {\"kind\": \"drop\"},\n  {\"kind\": \"x\"}\n]}"))
	if want := `control: line 3, column 3: faults[1]: psp: invalid fault: unknown kind "x": ` + kinds; err == nil || err.Error() != want {
		t.Errorf("DecodeFaults() error = %v, want %s", err, want)
	}
	if !errors.Is(err, psp.ErrInvalidFault) {
		t.Errorf("DecodeFaults() error = %v, want it to wrap %v", err, psp.ErrInvalidFault)
	}
}

// TestControlAndDecodeFaultsAgree: the control API's 400 names the problem DecodeFaults finds
// first, with the same field and reason, and then each other bad fault.
func TestControlAndDecodeFaultsAgree(t *testing.T) {
	tests := map[string]struct {
		body  string
		after []string // the fields named after the first
	}{
		"not JSON":            {`faults: drop`, nil},
		"an unknown member":   {`{"faults": [], "delay": 5}`, nil},
		"faults not an array": {`{"faults": 5}`, nil},
		"no faults":           {`{}`, nil},
		"bad faults":          {`{"faults": [{"kind": "drop"}, {"kind": "boom"}, {"kind": "slow"}]}`, []string{"faults[2]"}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := control.DecodeFaults([]byte(tt.body))
			bad, ok := errors.AsType[*control.FaultsError](err)
			if !ok {
				t.Fatalf("DecodeFaults() error = %v, want a *FaultsError", err)
			}
			p := wantProblem(t, ctl(mustBank(t), "POST", control.FaultsPath, tt.body), 400, "invalid_request")
			if len(p.Violations) != 1+len(tt.after) {
				t.Fatalf("violacoes = %+v, want %d", p.Violations, 1+len(tt.after))
			}
			if got, want := p.Violations[0], (psp.Violation{Field: bad.Field, Reason: bad.Err.Error()}); got != want {
				t.Errorf("the first violation = %+v, want DecodeFaults's %+v", got, want)
			}
			for i, field := range tt.after {
				if got := p.Violations[1+i].Field; got != field {
					t.Errorf("violation %d names %s, want %s", 1+i, got, field)
				}
			}
		})
	}
}

// A body that breaks off while it is read is refused, even when what came before it is valid.
func TestControlRefusesABodyThatBreaksOff(t *testing.T) {
	s := mustBank(t)
	r := controlRequest("POST", control.FaultsPath, "")
	r.Body = io.NopCloser(io.MultiReader(strings.NewReader(`{"faults": [{"kind": "drop"}]}`), iotest.ErrReader(errors.New("cut"))))
	p := wantProblem(t, serve(s, r), 400, "invalid_request")
	wantViolations(t, p.Violations, []psp.Violation{{Field: "body", Reason: "could not be read whole: cut"}})
	wantSettled(t, pay(s, "k1", validBody)) // nothing was queued
}

func ExampleDecodeFaults() {
	faults, err := control.DecodeFaults([]byte(`{"faults": [{"kind": "status", "status": 503}, {"kind": "drop"}]}`))
	fmt.Println(faults, err)
	_, err = control.DecodeFaults([]byte("{\"faults\": [\n  {\"kind\": \"status\", \"status\": 200}\n]}"))
	fmt.Println(err)
	// Output:
	// [{status  503 0s 0s   } {drop  0 0s 0s   }] <nil>
	// control: line 2, column 3: faults[0]: psp: invalid fault: kind "status" takes "status" (400 to 599), optionally "retry_after_s" (whole seconds, 1 to 3600), and optionally "target":"lookup"
}
