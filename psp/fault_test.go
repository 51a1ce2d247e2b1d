package psp_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

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
		{psp.StatusRetryAfter(429, 2*time.Second), `{"kind":"status","status":429,"retry_after_s":2}`},
		{psp.Slow(1500 * time.Millisecond), `{"kind":"slow","delay_ms":1500}`},
		{psp.Slow(0), `{"kind":"slow","delay_ms":0}`},
		{psp.Late(3 * time.Second), `{"kind":"late","delay_ms":3000}`},
		{psp.Drop(), `{"kind":"drop"}`},
		{psp.ResetConn(), `{"kind":"reset"}`},
		{psp.Down(time.Minute), `{"kind":"down","duration_ms":60000}`},
		{psp.Down(psp.MaxFaultDuration), `{"kind":"down","duration_ms":3600000}`},
		{psp.Slow(psp.MaxFaultDuration), `{"kind":"slow","delay_ms":3600000}`},
		{psp.Late(psp.MaxFaultDuration), `{"kind":"late","delay_ms":3600000}`},
		{psp.StatusRetryAfter(503, psp.MaxFaultDuration), `{"kind":"status","status":503,"retry_after_s":3600}`},
		{psp.CommitStatus(502), `{"kind":"commit_status","status":502}`},
		{psp.CommitStatus(500), `{"kind":"commit_status","status":500}`},
		{psp.CommitStatus(599), `{"kind":"commit_status","status":599}`},
		{psp.CommitStatus(200), `{"kind":"commit_status","status":200}`},
		{psp.CommitStatus(202), `{"kind":"commit_status","status":202}`},
		{psp.CommitStatus(299), `{"kind":"commit_status","status":299}`},
		{psp.CommitStatusRetryAfter(504, 2*time.Second), `{"kind":"commit_status","status":504,"retry_after_s":2}`},
		{psp.BadBody(psp.BreachNotJSON), `{"kind":"bad_body","breach":"not_json"}`},
		{psp.BadBody(psp.BreachShort), `{"kind":"bad_body","breach":"short"}`},
		{psp.BadBody(psp.BreachCut), `{"kind":"bad_body","breach":"cut"}`},
		{psp.BadBody(psp.BreachAmount), `{"kind":"bad_body","breach":"valor"}`},
		{psp.BadBody(psp.BreachPixKey), `{"kind":"bad_body","breach":"chave"}`},
		{psp.BadBody(psp.BreachEndToEndID), `{"kind":"bad_body","breach":"end_to_end_id"}`},
		{psp.BadBodyWithout("horario"), `{"kind":"bad_body","breach":"missing","member":"horario"}`},
		{psp.BadBodyWithout("endToEndId"), `{"kind":"bad_body","breach":"missing","member":"endToEndId"}`},
		{psp.Redirect(307), `{"kind":"redirect","status":307}`},
		{psp.Redirect(300), `{"kind":"redirect","status":300}`},
		{psp.Redirect(399), `{"kind":"redirect","status":399}`},
	}
	for _, tt := range tests {
		t.Run(tt.json, func(t *testing.T) {
			got, err := json.Marshal(tt.fault)
			if err != nil || string(got) != tt.json {
				t.Errorf("json.Marshal(%+v) = %s, %v; want %s", tt.fault, got, err, tt.json)
			}
			var back psp.Fault
			if err := json.Unmarshal([]byte(tt.json), &back); err != nil || back != tt.fault {
				t.Errorf("json.Unmarshal(%s) = %+v, %v; want %+v", tt.json, back, err, tt.fault)
			}
		})
	}
}

func TestFaultJSONRounds(t *testing.T) {
	tests := []struct {
		fault psp.Fault
		json  string
	}{
		{psp.StatusRetryAfter(503, 1500*time.Millisecond), `{"kind":"status","status":503,"retry_after_s":2}`},
		{psp.StatusRetryAfter(503, time.Nanosecond), `{"kind":"status","status":503,"retry_after_s":1}`},
		{psp.StatusRetryAfter(503, 0), `{"kind":"status","status":503}`},
		{psp.Slow(1999 * time.Microsecond), `{"kind":"slow","delay_ms":1}`},
	}
	for _, tt := range tests {
		if got, err := json.Marshal(tt.fault); err != nil || string(got) != tt.json {
			t.Errorf("json.Marshal(%+v) = %s, %v; want %s", tt.fault, got, err, tt.json)
		}
	}
}

// invalidFaults cannot be injected or encoded.
var invalidFaults = map[string]psp.Fault{
	"zero":                           {},
	"unknown kind":                   {Kind: "boom"},
	"status 399":                     psp.Status(399),
	"status 600":                     psp.Status(600),
	"status 0":                       {Kind: psp.FaultStatus},
	"negative retry after":           psp.StatusRetryAfter(503, -time.Second),
	"negative delay":                 psp.Slow(-time.Nanosecond),
	"negative down":                  psp.Down(-time.Second),
	"status with a duration":         {Kind: psp.FaultStatus, Status: 503, Duration: time.Second},
	"slow with a status":             {Kind: psp.FaultSlow, Status: 503},
	"late with retry after":          {Kind: psp.FaultLate, RetryAfter: time.Second},
	"drop with a duration":           {Kind: psp.FaultDrop, Duration: time.Second},
	"reset with a status":            {Kind: psp.FaultReset, Status: 503},
	"commit_status 199":              psp.CommitStatus(199),
	"commit_status 201":              psp.CommitStatus(201),
	"commit_status 204":              psp.CommitStatus(204),
	"commit_status 205":              psp.CommitStatus(205),
	"commit_status 300":              psp.CommitStatus(300),
	"commit_status 422":              psp.CommitStatus(422),
	"commit_status 499":              psp.CommitStatus(499),
	"commit_status 600":              psp.CommitStatus(600),
	"commit_status with a duration":  {Kind: psp.FaultCommitStatus, Status: 503, Duration: time.Second},
	"redirect 299":                   psp.Redirect(299),
	"redirect 400":                   psp.Redirect(400),
	"redirect with retry after":      {Kind: psp.FaultRedirect, Status: 307, RetryAfter: time.Second},
	"bad_body without a breach":      {Kind: psp.FaultBadBody},
	"bad_body unknown breach":        psp.BadBody("gzip"),
	"bad_body missing, no member":    psp.BadBody(psp.BreachMissing),
	"bad_body missing infoPagador":   psp.BadBodyWithout("infoPagador"),
	"bad_body valor with a member":   {Kind: psp.FaultBadBody, Breach: psp.BreachAmount, Member: "valor"},
	"bad_body with a status":         {Kind: psp.FaultBadBody, Breach: psp.BreachCut, Status: 503},
	"status with a breach":           {Kind: psp.FaultStatus, Status: 503, Breach: psp.BreachCut},
	"drop with a member":             {Kind: psp.FaultDrop, Member: "valor"},
	"status 302 (that is redirect)":  psp.Status(302),
	"commit_status negative retry":   psp.CommitStatusRetryAfter(503, -time.Second),
	"redirect without a status code": {Kind: psp.FaultRedirect},
	"slow beyond the maximum":        psp.Slow(psp.MaxFaultDuration + time.Nanosecond),
	"late beyond the maximum":        psp.Late(psp.MaxFaultDuration + time.Nanosecond),
	"down beyond the maximum":        psp.Down(psp.MaxFaultDuration + time.Nanosecond),
	"retry after beyond the maximum": psp.StatusRetryAfter(503, psp.MaxFaultDuration+time.Nanosecond),
	"commit_status retry too long":   psp.CommitStatusRetryAfter(503, psp.MaxFaultDuration+time.Second),
}

func TestInvalidFaults(t *testing.T) {
	for name, f := range invalidFaults {
		t.Run(name, func(t *testing.T) {
			if _, err := json.Marshal(f); !errors.Is(err, psp.ErrInvalidFault) {
				t.Errorf("json.Marshal(%+v) error = %v, want %v", f, err, psp.ErrInvalidFault)
			}
			s := mustServer(t)
			func() {
				defer func() {
					err, _ := recover().(error)
					if !errors.Is(err, psp.ErrInvalidFault) {
						t.Errorf("Inject(%+v) panicked with %v, want %v", f, err, psp.ErrInvalidFault)
					}
				}()
				s.Inject(psp.Status(503), f) // all or nothing
			}()
			wantSettled(t, pay(s, "k", validBody))
		})
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
	}
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			f := psp.Drop()
			if err := f.UnmarshalJSON([]byte(in)); !errors.Is(err, psp.ErrInvalidFault) {
				t.Errorf("UnmarshalJSON(%s) error = %v, want %v", in, err, psp.ErrInvalidFault)
			}
			if f != psp.Drop() {
				t.Errorf("UnmarshalJSON(%s) changed the fault to %+v", in, f)
			}
		})
	}
}

func TestFaultNumbersOutOfRangeSayWhy(t *testing.T) {
	tests := map[string]string{
		`{"kind":"late","delay_ms":9223372036855}`:            "delay_ms 9223372036855 exceeds the maximum 3600000",
		`{"kind":"slow","delay_ms":3600001}`:                  "delay_ms 3600001 exceeds the maximum 3600000",
		`{"kind":"down","duration_ms":3600001}`:               "duration_ms 3600001 exceeds the maximum 3600000",
		`{"kind":"status","status":503,"retry_after_s":3601}`: "retry_after_s 3601 exceeds the maximum 3600",
		`{"kind":"slow","delay_ms":-1}`:                       "delay_ms -1 is negative",
		`{"kind":"late","delay_ms":-18446744073709}`:          "delay_ms -18446744073709 is negative", // times 1e6 wraps to +0.55 ms
		`{"kind":"down","duration_ms":-1}`:                    "duration_ms -1 is negative",
		`{"kind":"status","status":503,"retry_after_s":-1}`:   "retry_after_s -1 is negative",
	}
	for in, want := range tests {
		var f psp.Fault
		err := json.Unmarshal([]byte(in), &f)
		if !errors.Is(err, psp.ErrInvalidFault) || !strings.Contains(err.Error(), want) {
			t.Errorf("json.Unmarshal(%s) error = %v, want %v saying %q", in, err, psp.ErrInvalidFault, want)
		}
	}
}

func TestInjectBeyondTheQueuePanicsAndQueuesNone(t *testing.T) {
	s := mustServer(t)
	s.Inject(drops(psp.MaxQueuedFaults - 1)...)
	wantInjectPanics(t, s, psp.ResetConn(), psp.ResetConn())
	s.Inject(psp.ResetConn()) // room for exactly one: the refused call queued none
	wantInjectPanics(t, s, psp.ResetConn())
}

// drops is n drop faults.
func drops(n int) []psp.Fault {
	faults := make([]psp.Fault, n)
	for i := range faults {
		faults[i] = psp.Drop()
	}
	return faults
}

// wantInjectPanics checks that s.Inject(faults...) panics with ErrTooManyFaults.
func wantInjectPanics(tb testing.TB, s *psp.Server, faults ...psp.Fault) {
	tb.Helper()
	defer func() {
		if err, _ := recover().(error); !errors.Is(err, psp.ErrTooManyFaults) {
			tb.Errorf("Inject(%d faults) panicked with %v, want %v", len(faults), err, psp.ErrTooManyFaults)
		}
	}()
	s.Inject(faults...)
}

func TestFaultConstructors(t *testing.T) {
	got := []psp.Fault{
		psp.Status(503), psp.StatusRetryAfter(429, time.Second), psp.Slow(time.Second),
		psp.Late(2 * time.Second), psp.Drop(), psp.ResetConn(), psp.Down(3 * time.Second),
		psp.CommitStatus(503), psp.CommitStatusRetryAfter(504, time.Second), psp.BadBody(psp.BreachAmount),
		psp.BadBodyWithout("valor"), psp.Redirect(302),
	}
	want := []psp.Fault{
		{Kind: psp.FaultStatus, Status: 503},
		{Kind: psp.FaultStatus, Status: 429, RetryAfter: time.Second},
		{Kind: psp.FaultSlow, Duration: time.Second},
		{Kind: psp.FaultLate, Duration: 2 * time.Second},
		{Kind: psp.FaultDrop},
		{Kind: psp.FaultReset},
		{Kind: psp.FaultDown, Duration: 3 * time.Second},
		{Kind: psp.FaultCommitStatus, Status: 503},
		{Kind: psp.FaultCommitStatus, Status: 504, RetryAfter: time.Second},
		{Kind: psp.FaultBadBody, Breach: psp.BreachAmount},
		{Kind: psp.FaultBadBody, Breach: psp.BreachMissing, Member: "valor"},
		{Kind: psp.FaultRedirect, Status: 302},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("constructors mismatch (-want +got):\n%s", diff)
	}
}
