package control_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
	"pixretry/psp/control"
)

// control sends a control request with body, as the control API requires: a request that
// changes state (any method but GET) says Content-Type application/json.
func ctl(h http.Handler, method, path, body string) answer {
	return serve(h, controlRequest(method, path, body))
}

// controlRequest is a control request with body; edit it before sending.
func controlRequest(method, path, body string) *http.Request {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if method != http.MethodGet {
		r.Header.Set("Content-Type", "application/json")
	}
	return r
}

func wantNoContent(tb testing.TB, a answer) {
	tb.Helper()
	if a.status != http.StatusNoContent || a.body != "" {
		tb.Errorf("answer = %d %q, want 204 and no body", a.status, a.body)
	}
}

func TestControlInjectsFaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustBank(t)
		wantNoContent(t, ctl(s, "POST", control.FaultsPath,
			`{"faults":[{"kind":"status","status":503,"retry_after_s":2},{"kind":"late","delay_ms":1500}]}`))
		a := pay(s, "k1", validBody)
		wantProblem(t, a, 503, "injected_fault")
		if got := a.header.Get("Retry-After"); got != "2" {
			t.Errorf("Retry-After = %q, want 2", got)
		}
		start := time.Now()
		wantSettled(t, pay(s, "k1", validBody))
		if got := time.Since(start); got != 1500*time.Millisecond {
			t.Errorf("the late answer took %v, want 1.5s", got)
		}
	})
}

// TestControlInjectsADuplicate: a duplicate fault queued over the control API answers the
// client 409 while its other copy settles the payment.
func TestControlInjectsADuplicate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustBank(t)
		wantNoContent(t, ctl(s, "POST", control.FaultsPath, `{"faults":[{"kind":"duplicate","duration_ms":2000}]}`))
		start := time.Now()
		wantProblem(t, pay(s, "k1", validBody), 409, "idempotency_key_in_use")
		s.Wait()
		if got, n := time.Since(start), len(s.Settlements()); got != 2*time.Second || n != 1 {
			t.Errorf("the copy committed after %v with %d settlements, want 2s and 1", got, n)
		}
	})
}

// TestControlInjectsLookupFaults: a fault with "target":"lookup" waits for the next lookup, and
// a payment's fault for the next payment.
func TestControlInjectsLookupFaults(t *testing.T) {
	s := mustBank(t)
	wantNoContent(t, ctl(s, "POST", control.FaultsPath,
		`{"faults":[{"kind":"status","status":502,"target":"lookup"},{"kind":"status","status":503}]}`))
	wantProblem(t, lookUp(s, "k1"), 502, "injected_fault")
	wantProblem(t, pay(s, "k1", validBody), 503, "injected_fault")
	wantSettled(t, pay(s, "k1", validBody))
	if a := lookUp(s, "k1"); a.status != 200 {
		t.Errorf("lookup = %d %s, want 200", a.status, a.body)
	}
}

func TestControlEmptyFaultListQueuesNothing(t *testing.T) {
	s := mustBank(t)
	wantNoContent(t, ctl(s, "POST", control.FaultsPath, `{"faults":[]}`))
	wantSettled(t, pay(s, "k1", validBody))
}

func TestControlRejectsBadFaults(t *testing.T) {
	tests := []struct {
		name, body string
		fields     []string // the violacoes' campo
	}{
		{"unknown kind", `{"faults":[{"kind":"drop"},{"kind":"boom"}]}`, []string{"faults[1]"}},
		{"bad field", `{"faults":[{"kind":"status","status":"503"}]}`, []string{"faults[0]"}},
		{"field of another kind", `{"faults":[{"kind":"drop","delay_ms":5}]}`, []string{"faults[0]"}},
		{"unknown target", `{"faults":[{"kind":"drop"},{"kind":"reset","target":"refund"}]}`, []string{"faults[1]"}},
		{"a kind a lookup cannot take", `{"faults":[{"kind":"slow","delay_ms":5,"target":"lookup"}]}`, []string{"faults[0]"}},
		{"each bad fault", `{"faults":[{"kind":"x"},{"kind":"drop"},{"kind":"slow"}]}`, []string{"faults[0]", "faults[2]"}},
		{"no faults", `{}`, []string{"faults"}},
		{"faults null", `{"faults":null}`, []string{"faults"}},
		{"faults not a list", `{"faults":{"kind":"drop"}}`, []string{"body"}},
		{"unknown member", `{"faults":[],"other":1}`, []string{"body"}},
		{"not JSON", `faults: drop`, []string{"body"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustBank(t)
			p := wantProblem(t, ctl(s, "POST", control.FaultsPath, tt.body), 400, "invalid_request")
			var fields []string
			for _, v := range p.Violations {
				fields = append(fields, v.Field)
				if v.Reason == "" {
					t.Errorf("violation of %s has no reason", v.Field)
				}
			}
			if diff := cmp.Diff(tt.fields, fields); diff != "" {
				t.Errorf("violacoes fields mismatch (-want +got):\n%s", diff)
			}
			wantSettled(t, pay(s, "k1", validBody)) // nothing was queued
		})
	}
}

func TestControlSaysADelayExceedsTheMaximum(t *testing.T) {
	s := mustBank(t)
	p := wantProblem(t, ctl(s, "POST", control.FaultsPath, `{"faults":[{"kind":"late","delay_ms":9223372036855}]}`),
		400, "invalid_request")
	wantViolations(t, p.Violations, []psp.Violation{{Field: "faults[0]",
		Reason: "psp: invalid fault: delay_ms 9223372036855 exceeds the maximum 3600000"}})
	wantSettled(t, pay(s, "k1", validBody))
}

func TestControlRefusesFaultsBeyondTheQueue(t *testing.T) {
	s := mustBank(t)
	s.Inject(drops(control.MaxQueuedFaults - 1)...)
	two := `{"faults":[{"kind":"reset"},{"kind":"reset"}]}`
	p := wantProblem(t, ctl(s, "POST", control.FaultsPath, two), 400, "invalid_request")
	wantViolations(t, p.Violations, []psp.Violation{{Field: "faults",
		Reason: "9999 queued, room for 1 more, 2 given"}})
	wantNoContent(t, ctl(s, "POST", control.FaultsPath, `{"faults":[{"kind":"reset"}]}`)) // none was queued
	wantProblem(t, ctl(s, "POST", control.FaultsPath, `{"faults":[{"kind":"reset"}]}`), 400, "invalid_request")
}

func TestControlFaultsNeedJSON(t *testing.T) {
	s := mustBank(t)
	r := httptest.NewRequest("POST", control.FaultsPath, strings.NewReader(`{"faults":[{"kind":"drop"}]}`))
	r.Header.Set("Content-Type", "text/plain")
	wantProblem(t, serve(s, r), 415, "unsupported_media_type")
	wantSettled(t, pay(s, "k1", validBody))
}

func TestControlClearsFaults(t *testing.T) {
	s := mustBank(t)
	s.Inject(psp.Status(503), psp.Status(503), psp.Status(503).ForLookup())
	wantNoContent(t, ctl(s, "DELETE", control.FaultsPath, ""))
	wantSettled(t, pay(s, "k1", validBody))
	if a := lookUp(s, "k1"); a.status != 200 {
		t.Errorf("lookup = %d %s, want 200", a.status, a.body)
	}
}

// TestControlCountsBothQueuesAgainstTheLimit: MaxQueuedFaults bounds payment and lookup faults
// together.
func TestControlCountsBothQueuesAgainstTheLimit(t *testing.T) {
	s := mustBank(t)
	s.Inject(drops(control.MaxQueuedFaults - 1)...)
	wantNoContent(t, ctl(s, "POST", control.FaultsPath, `{"faults":[{"kind":"reset","target":"lookup"}]}`))
	wantProblem(t, ctl(s, "POST", control.FaultsPath, `{"faults":[{"kind":"reset","target":"lookup"}]}`),
		400, "invalid_request")
}

func TestControlReadsLedgerAndBalance(t *testing.T) {
	s := mustBank(t)
	wantJSON(t, ctl(s, "GET", control.SettlementsPath, ""), `{"count":0,"settlements":[]}`)
	wantJSON(t, ctl(s, "GET", control.BalancePath, ""), `{"balance":"1000.00"}`)

	pay(s, `"k1"`, validBody)
	pay(s, "k2", `{"valor":"0.05","chave":"12345678901"}`)
	ledger := s.Settlements()
	want := `{"count":2,"settlements":[` +
		`{"endToEndId":"` + ledger[0].EndToEndID + `","idempotencyKey":"k1","valor":"150.00","chave":"pix@example.com","horario":"` + ledger[0].SettledAt.Format(time.RFC3339Nano) + `"},` +
		`{"endToEndId":"` + ledger[1].EndToEndID + `","idempotencyKey":"k2","valor":"0.05","chave":"12345678901","horario":"` + ledger[1].SettledAt.Format(time.RFC3339Nano) + `"}]}`
	wantJSON(t, ctl(s, "GET", control.SettlementsPath, ""), want)
	wantJSON(t, ctl(s, "GET", control.BalancePath, ""), `{"balance":"849.95"}`)
}

// wantJSON checks a 200 application/json answer whose body is want (and a newline).
func wantJSON(tb testing.TB, a answer, want string) {
	tb.Helper()
	if a.status != 200 || a.header.Get("Content-Type") != "application/json" || a.body != want+"\n" {
		tb.Errorf("answer = %d %s %s, want 200 application/json %s", a.status, a.header.Get("Content-Type"), a.body, want)
	}
}

func TestControlReset(t *testing.T) {
	s := mustBank(t)
	pay(s, "k1", validBody)
	s.Inject(psp.Status(503))
	wantNoContent(t, ctl(s, "POST", control.ResetPath, ""))
	if n, b := len(s.Settlements()), s.Stats().BalanceCents; n != 0 || b != 100000 {
		t.Errorf("after reset: %d settlements, balance %d; want 0, 100000", n, b)
	}
	wantSettled(t, pay(s, "k1", validBody)) // the key is forgotten and the fault gone
}

// TestControlReadsTheFaultsAsPOSTTakesThem: GET FaultsPath answers the faults queued in the
// body POST FaultsPath takes, the payment faults first, so that POSTing it back after a DELETE
// queues the same faults again.
func TestControlReadsTheFaultsAsPOSTTakesThem(t *testing.T) {
	s := mustBank(t)
	if a := ctl(s, "GET", control.FaultsPath, ""); a.status != 200 || a.body != `{"faults":[]}`+"\n" {
		t.Errorf("GET %s with none queued = %d %s, want 200 and no faults", control.FaultsPath, a.status, a.body)
	}
	wantNoContent(t, ctl(s, "POST", control.FaultsPath, `{"faults": [
  {"kind": "status", "status": 503, "retry_after_s": 1, "target": "lookup"},
  {"kind": "late", "delay_ms": 600},
  {"kind": "bad_body", "breach": "missing", "member": "horario"},
  {"kind": "reset", "target": "lookup"}
]}`))
	want := `{"faults":[{"kind":"late","delay_ms":600},{"kind":"bad_body","breach":"missing","member":"horario"},` +
		`{"kind":"status","status":503,"retry_after_s":1,"target":"lookup"},{"kind":"reset","target":"lookup"}]}` + "\n"
	a := ctl(s, "GET", control.FaultsPath, "")
	if a.status != 200 || a.header.Get("Content-Type") != "application/json" || a.body != want {
		t.Fatalf("GET %s = %d %s %s, want 200 application/json %s", control.FaultsPath, a.status, a.header, a.body, want)
	}
	queued := s.Faults()
	wantNoContent(t, ctl(s, "DELETE", control.FaultsPath, ""))
	wantNoContent(t, ctl(s, "POST", control.FaultsPath, a.body))
	if diff := cmp.Diff(queued, s.Faults()); diff != "" {
		t.Errorf("the faults POSTed back mismatch (-queued +again):\n%s", diff)
	}
}

func TestControlMethods(t *testing.T) {
	s := mustBank(t)
	tests := []struct{ method, path, allow string }{
		{"PUT", control.FaultsPath, "DELETE, GET, POST"},
		{"POST", control.SettlementsPath, "GET"},
		{"DELETE", control.BalancePath, "GET"},
		{"GET", control.ResetPath, "POST"},
		{"POST", control.RequestsPath, "GET"},
		{"DELETE", control.RequestsPath, "GET"},
	}
	for _, tt := range tests {
		a := ctl(s, tt.method, tt.path, "")
		wantProblem(t, a, 405, "method_not_allowed")
		if got := a.header.Get("Allow"); got != tt.allow {
			t.Errorf("%s %s: Allow = %q, want %q", tt.method, tt.path, got, tt.allow)
		}
	}
}

func TestStatsOverTheControlSurface(t *testing.T) {
	s := mustBank(t)
	wantSettled(t, pay(s, "k1", validBody))
	lookUp(s, "k1")
	wantProblem(t, lookUp(s, "k2"), 404, "payment_not_found")
	got := ctl(s, http.MethodGet, control.StatsPath, "")
	want := `{"requests":1,"shed":0,"settled":1,"dropped":0,"keys":1,"in_flight":0,"max_in_flight":1,` +
		`"lookups":2,"closed_keys":1,"pending":0,"rejected":0}` + "\n"
	if got.status != 200 || got.body != want || got.header.Get("Content-Type") != "application/json" {
		t.Errorf("GET %s = %d %q %v, want 200 %q as application/json", control.StatsPath, got.status, got.body, got.header, want)
	}
	ctl(s, http.MethodPost, control.ResetPath, "")
	got = ctl(s, http.MethodGet, control.StatsPath, "")
	want = `{"requests":0,"shed":0,"settled":0,"dropped":0,"keys":0,"in_flight":0,"max_in_flight":0,` +
		`"lookups":0,"closed_keys":0,"pending":0,"rejected":0}` + "\n"
	if got.body != want {
		t.Errorf("GET %s after a reset = %q, want %q", control.StatsPath, got.body, want)
	}
}
