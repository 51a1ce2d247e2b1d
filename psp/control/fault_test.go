package control

import (
	"errors"
	"strings"
	"testing"
	"time"

	"pixretry/psp"
)

func TestFaultJSON(t *testing.T) {
	tests := []struct {
		fault psp.Fault
		json  string
	}{
		{psp.Status(503), `{"kind":"status","status":503}`},
		{psp.Status(400), `{"kind":"status","status":400}`},
		{psp.Status(599), `{"kind":"status","status":599}`},
		{psp.Fault{Kind: "status", Status: 429, RetryAfter: 2 * time.Second}, `{"kind":"status","status":429,"retry_after_s":2}`},
		{psp.Slow(1500 * time.Millisecond), `{"kind":"slow","delay_ms":1500}`},
		{psp.Slow(0), `{"kind":"slow","delay_ms":0}`},
		{psp.Late(3 * time.Second), `{"kind":"late","delay_ms":3000}`},
		{psp.Drop(), `{"kind":"drop"}`},
		{psp.ResetConn(), `{"kind":"reset"}`},
		{psp.Down(time.Minute), `{"kind":"down","duration_ms":60000}`},
		{psp.Down(psp.MaxFaultDuration), `{"kind":"down","duration_ms":3600000}`},
		{psp.Duplicate(2 * time.Second), `{"kind":"duplicate","duration_ms":2000}`},
		{psp.Duplicate(0), `{"kind":"duplicate","duration_ms":0}`},
		{psp.Duplicate(psp.MaxFaultDuration), `{"kind":"duplicate","duration_ms":3600000}`},
		{psp.Slow(psp.MaxFaultDuration), `{"kind":"slow","delay_ms":3600000}`},
		{psp.Late(psp.MaxFaultDuration), `{"kind":"late","delay_ms":3600000}`},
		{psp.Fault{Kind: "status", Status: 503, RetryAfter: psp.MaxFaultDuration}, `{"kind":"status","status":503,"retry_after_s":3600}`},
		{psp.CommitStatus(502), `{"kind":"commit_status","status":502}`},
		{psp.CommitStatus(500), `{"kind":"commit_status","status":500}`},
		{psp.CommitStatus(599), `{"kind":"commit_status","status":599}`},
		{psp.CommitStatus(200), `{"kind":"commit_status","status":200}`},
		{psp.CommitStatus(202), `{"kind":"commit_status","status":202}`},
		{psp.CommitStatus(299), `{"kind":"commit_status","status":299}`},
		{psp.Fault{Kind: "commit_status", Status: 504, RetryAfter: 2 * time.Second}, `{"kind":"commit_status","status":504,"retry_after_s":2}`},
		{psp.BadBody("not_json"), `{"kind":"bad_body","breach":"not_json"}`},
		{psp.BadBody("short"), `{"kind":"bad_body","breach":"short"}`},
		{psp.BadBody("cut"), `{"kind":"bad_body","breach":"cut"}`},
		{psp.BadBody("valor"), `{"kind":"bad_body","breach":"valor"}`},
		{psp.BadBody("chave"), `{"kind":"bad_body","breach":"chave"}`},
		{psp.BadBody("end_to_end_id"), `{"kind":"bad_body","breach":"end_to_end_id"}`},
		{psp.Fault{Kind: "bad_body", Breach: "missing", Member: "horario"}, `{"kind":"bad_body","breach":"missing","member":"horario"}`},
		{psp.Fault{Kind: "bad_body", Breach: "missing", Member: "endToEndId"}, `{"kind":"bad_body","breach":"missing","member":"endToEndId"}`},
		{psp.Redirect(307), `{"kind":"redirect","status":307}`},
		{psp.Redirect(300), `{"kind":"redirect","status":300}`},
		{psp.Redirect(399), `{"kind":"redirect","status":399}`},
		{psp.Status(503).ForLookup(), `{"kind":"status","status":503,"target":"lookup"}`},
		{psp.Fault{Kind: "status", Status: 429, RetryAfter: time.Second, Target: "lookup"},
			`{"kind":"status","status":429,"retry_after_s":1,"target":"lookup"}`},
		{psp.Redirect(307).ForLookup(), `{"kind":"redirect","status":307,"target":"lookup"}`},
		{psp.ResetConn().ForLookup(), `{"kind":"reset","target":"lookup"}`},
		{psp.Down(5 * time.Second).ForLookup(), `{"kind":"down","duration_ms":5000,"target":"lookup"}`},
		{psp.Late(1500 * time.Millisecond).ForLookup(), `{"kind":"late","delay_ms":1500,"target":"lookup"}`},
		{psp.BadBody("cut").ForLookup(), `{"kind":"bad_body","breach":"cut","target":"lookup"}`},
		{psp.Fault{Kind: "bad_body", Breach: "missing", Member: "valor", Target: "lookup"},
			`{"kind":"bad_body","breach":"missing","member":"valor","target":"lookup"}`},
		{psp.Pending(5*time.Second, "settled"), `{"kind":"pending","after_ms":5000,"then":"settled"}`},
		{psp.Pending(0, "rejected"), `{"kind":"pending","after_ms":0,"then":"rejected"}`},
		{psp.Pending(psp.MaxFaultDuration, "rejected"), `{"kind":"pending","after_ms":3600000,"then":"rejected"}`},
	}
	for _, tt := range tests {
		t.Run(tt.json, func(t *testing.T) {
			got, err := encodeFault(tt.fault)
			if err != nil || string(got) != tt.json {
				t.Errorf("encodeFault(%+v) = %s, %v; want %s", tt.fault, got, err, tt.json)
			}
			if back, err := decodeFault([]byte(tt.json)); err != nil || back != tt.fault {
				t.Errorf("decodeFault(%s) = %+v, %v; want %+v", tt.json, back, err, tt.fault)
			}
		})
	}
}

func TestFaultJSONRounds(t *testing.T) {
	tests := []struct {
		fault psp.Fault
		json  string
	}{
		{psp.Fault{Kind: "status", Status: 503, RetryAfter: 1500 * time.Millisecond}, `{"kind":"status","status":503,"retry_after_s":2}`},
		{psp.Fault{Kind: "status", Status: 503, RetryAfter: time.Nanosecond}, `{"kind":"status","status":503,"retry_after_s":1}`},
		{psp.Fault{Kind: "status", Status: 503, RetryAfter: 0}, `{"kind":"status","status":503}`},
		{psp.Slow(1999 * time.Microsecond), `{"kind":"slow","delay_ms":1}`},
	}
	for _, tt := range tests {
		if got, err := encodeFault(tt.fault); err != nil || string(got) != tt.json {
			t.Errorf("encodeFault(%+v) = %s, %v; want %s", tt.fault, got, err, tt.json)
		}
	}
}

func TestFaultUnmarshalRejects(t *testing.T) {
	tests := map[string]string{
		"unknown kind":                    `{"kind":"boom"}`,
		"no kind":                         `{"status":503}`,
		"kind not a string":               `{"kind":5}`,
		"status 399":                      `{"kind":"status","status":399}`,
		"status 600":                      `{"kind":"status","status":600}`,
		"status missing":                  `{"kind":"status"}`,
		"status a string":                 `{"kind":"status","status":"503"}`,
		"status a fraction":               `{"kind":"status","status":503.5}`,
		"retry_after_s zero":              `{"kind":"status","status":503,"retry_after_s":0}`,
		"retry_after_s negative":          `{"kind":"status","status":503,"retry_after_s":-1}`,
		"retry_after_s too big":           `{"kind":"status","status":503,"retry_after_s":9223372037}`,
		"slow without delay":              `{"kind":"slow"}`,
		"slow with status":                `{"kind":"slow","delay_ms":1,"status":503}`,
		"slow with duration_ms":           `{"kind":"slow","duration_ms":1}`,
		"late with both":                  `{"kind":"late","delay_ms":1,"duration_ms":1}`,
		"negative delay":                  `{"kind":"late","delay_ms":-1}`,
		"delay too big":                   `{"kind":"late","delay_ms":9223372036855}`,
		"drop with delay":                 `{"kind":"drop","delay_ms":0}`,
		"reset with status":               `{"kind":"reset","status":503}`,
		"down with delay_ms":              `{"kind":"down","delay_ms":1000}`,
		"down without duration":           `{"kind":"down"}`,
		"duplicate without duration":      `{"kind":"duplicate"}`,
		"duplicate with delay_ms":         `{"kind":"duplicate","delay_ms":1000}`,
		"duplicate with both":             `{"kind":"duplicate","delay_ms":1,"duration_ms":1}`,
		"duplicate with status":           `{"kind":"duplicate","duration_ms":1,"status":409}`,
		"duplicate with a fraction":       `{"kind":"duplicate","duration_ms":1.5}`,
		"unknown member":                  `{"kind":"drop","why":"x"}`,
		"repeated member":                 `{"kind":"drop","kind":"drop"}`,
		"null":                            `null`,
		"array":                           `[{"kind":"drop"}]`,
		"bad_body without breach":         `{"kind":"bad_body"}`,
		"bad_body missing without member": `{"kind":"bad_body","breach":"missing"}`,
		"bad_body valor with member":      `{"kind":"bad_body","breach":"valor","member":"valor"}`,
		"breach a number":                 `{"kind":"bad_body","breach":5}`,
		"redirect without status":         `{"kind":"redirect"}`,
		"redirect with retry_after_s":     `{"kind":"redirect","status":307,"retry_after_s":1}`,
		"commit_status 201":               `{"kind":"commit_status","status":201}`,
		"drop with member":                `{"kind":"drop","member":"valor"}`,
		"target payment spelled out":      `{"kind":"drop","target":"payment"}`,
		"empty target":                    `{"kind":"drop","target":""}`,
		"unknown target":                  `{"kind":"status","status":503,"target":"refund"}`,
		"target in another case":          `{"kind":"status","status":503,"target":"Lookup"}`,
		"target a number":                 `{"kind":"status","status":503,"target":1}`,
		"repeated target":                 `{"kind":"reset","target":"lookup","target":"lookup"}`,
		"slow for lookups":                `{"kind":"slow","delay_ms":1,"target":"lookup"}`,
		"drop for lookups":                `{"kind":"drop","target":"lookup"}`,
		"duplicate for lookups":           `{"kind":"duplicate","duration_ms":1,"target":"lookup"}`,
		"commit_status for lookups":       `{"kind":"commit_status","status":502,"target":"lookup"}`,
		"lookup status 302":               `{"kind":"status","status":302,"target":"lookup"}`,
		"lookup down without duration":    `{"kind":"down","target":"lookup"}`,
		"pending without then":            `{"kind":"pending","after_ms":1000}`,
		"pending without after_ms":        `{"kind":"pending","then":"settled"}`,
		"pending then unknown":            `{"kind":"pending","after_ms":1000,"then":"refunded"}`,
		"pending then empty":              `{"kind":"pending","after_ms":1000,"then":""}`,
		"pending then a boolean":          `{"kind":"pending","after_ms":1000,"then":true}`,
		"pending after_ms a string":       `{"kind":"pending","after_ms":"1000","then":"settled"}`,
		"pending after_ms a fraction":     `{"kind":"pending","after_ms":1.5,"then":"settled"}`,
		"pending after_ms negative":       `{"kind":"pending","after_ms":-1,"then":"settled"}`,
		"pending after_ms too big":        `{"kind":"pending","after_ms":3600001,"then":"settled"}`,
		"pending with delay_ms":           `{"kind":"pending","delay_ms":1000,"then":"settled"}`,
		"pending with a status":           `{"kind":"pending","after_ms":1000,"then":"settled","status":503}`,
		"pending for lookups":             `{"kind":"pending","after_ms":1000,"then":"settled","target":"lookup"}`,
		"then on another kind":            `{"kind":"slow","delay_ms":1000,"then":"settled"}`,
		"after_ms on another kind":        `{"kind":"late","after_ms":1000}`,
	}
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			if f, err := decodeFault([]byte(in)); !errors.Is(err, psp.ErrInvalidFault) || f != (psp.Fault{}) {
				t.Errorf("decodeFault(%s) = %+v, %v; want no fault, %v", in, f, err, psp.ErrInvalidFault)
			}
		})
	}
}

func TestFaultNumbersOutOfRangeSayWhy(t *testing.T) {
	tests := map[string]string{
		`{"kind":"late","delay_ms":9223372036855}`:                "delay_ms 9223372036855 exceeds the maximum 3600000",
		`{"kind":"slow","delay_ms":3600001}`:                      "delay_ms 3600001 exceeds the maximum 3600000",
		`{"kind":"down","duration_ms":3600001}`:                   "duration_ms 3600001 exceeds the maximum 3600000",
		`{"kind":"status","status":503,"retry_after_s":3601}`:     "retry_after_s 3601 exceeds the maximum 3600",
		`{"kind":"slow","delay_ms":-1}`:                           "delay_ms -1 is negative",
		`{"kind":"late","delay_ms":-18446744073709}`:              "delay_ms -18446744073709 is negative", // times 1e6 wraps to +0.55 ms
		`{"kind":"down","duration_ms":-1}`:                        "duration_ms -1 is negative",
		`{"kind":"duplicate","duration_ms":3600001}`:              "duration_ms 3600001 exceeds the maximum 3600000",
		`{"kind":"duplicate","duration_ms":-1}`:                   "duration_ms -1 is negative",
		`{"kind":"status","status":503,"retry_after_s":-1}`:       "retry_after_s -1 is negative",
		`{"kind":"pending","after_ms":-1,"then":"settled"}`:       "after_ms -1 is negative",
		`{"kind":"pending","after_ms":3600001,"then":"rejected"}`: "after_ms 3600001 exceeds the maximum 3600000",
	}
	for in, want := range tests {
		_, err := decodeFault([]byte(in))
		if !errors.Is(err, psp.ErrInvalidFault) || !strings.Contains(err.Error(), want) {
			t.Errorf("decodeFault(%s) error = %v, want %v saying %q", in, err, psp.ErrInvalidFault, want)
		}
	}
}

// The error of a fault aimed at lookups says what is wrong with its target.
func TestFaultTargetErrorsSayWhy(t *testing.T) {
	tests := map[string]string{
		`{"kind":"drop","target":"payment"}`: `psp: invalid fault: unknown target "payment": "lookup" aims a fault ` +
			`at lookups, "webhook" at webhooks, and no target at payments`,
		`{"kind":"slow","delay_ms":1,"target":"lookup"}`: `psp: invalid fault: kind "slow" takes "delay_ms" ` +
			`(milliseconds, 0 to 3600000), and no "target" (payments only)`,
		`{"kind":"reset","target":""}`: `psp: invalid fault: kind "reset" takes no parameters, and optionally "target":"lookup"`,
		`{"kind":"late","target":"lookup"}`: `psp: invalid fault: kind "late" takes "delay_ms" ` +
			`(milliseconds, 0 to 3600000), and optionally "target":"lookup"`,
		`{"kind":"pending","after_ms":1,"then":"settled","target":"lookup"}`: `psp: invalid fault: kind "pending" ` +
			`takes "after_ms" (milliseconds, 0 to 3600000) and "then" (settled or rejected), and no "target" (payments only)`,
	}
	for in, want := range tests {
		if _, err := decodeFault([]byte(in)); !errors.Is(err, psp.ErrInvalidFault) || err.Error() != want {
			t.Errorf("decodeFault(%s) error = %v, want %q", in, err, want)
		}
	}
}

// TestFaultUsageSaysWhichKindsTakeALookupTarget holds faultUsage to psp's rule: a valid fault
// of each kind, aimed at lookups, is valid exactly when its usage says so.
func TestFaultUsageSaysWhichKindsTakeALookupTarget(t *testing.T) {
	valid := []psp.Fault{psp.Status(503), psp.Slow(0), psp.Late(0), psp.Drop(), psp.ResetConn(), psp.Down(0),
		psp.Redirect(307), psp.CommitStatus(502), psp.BadBody("cut"), psp.Duplicate(0), psp.Pending(0, "settled")}
	if len(valid) != len(faultUsage) {
		t.Fatalf("%d kinds tried, want the %d of faultUsage", len(valid), len(faultUsage))
	}
	for _, f := range valid {
		usage := faultUsage[f.Kind]
		takes := f.ForLookup().Validate() == nil
		if says := strings.HasSuffix(usage, forLookups); says != takes || !says && !strings.HasSuffix(usage, noTarget) {
			t.Errorf("faultUsage[%s] = %q, but a lookup fault of that kind is valid: %t", f.Kind, usage, takes)
		}
	}
}

func TestAnd(t *testing.T) {
	tests := []struct {
		names []string
		want  string
	}{
		{nil, ""},
		{[]string{"drop"}, "drop"},
		{[]string{"drop", "reset"}, "drop and reset"},
		{[]string{"drop", "reset", "slow"}, "drop, reset and slow"},
	}
	for _, tt := range tests {
		if got := and(tt.names); got != tt.want {
			t.Errorf("and(%q) = %q, want %q", tt.names, got, tt.want)
		}
	}
}

func TestEncodeFaultRefusesAnInvalidFault(t *testing.T) {
	for _, f := range []psp.Fault{{}, psp.Status(200), psp.Slow(-time.Second), psp.Duplicate(-time.Second),
		{Kind: "drop", Status: 503}, psp.Drop().ForLookup(), {Kind: "drop", Target: "payment"}} {
		if got, err := encodeFault(f); !errors.Is(err, psp.ErrInvalidFault) || got != nil {
			t.Errorf("encodeFault(%+v) = %s, %v; want nothing, %v", f, got, err, psp.ErrInvalidFault)
		}
	}
}
