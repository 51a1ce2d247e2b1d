package control_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
	"pixretry/psp/control"
)

// guardedRequest is a control request that passes every guard of withControlToken: Host
// psp.test, the token ctl and, for a request that changes state, Content-Type application/json.
func guardedRequest(method, path, body string) *http.Request {
	r := controlRequest(method, path, body)
	r.Host = "psp.test"
	r.Header.Set("Authorization", "Bearer ctl")
	return r
}

// TestControlRefusalsAnswer pins each refusal of the control API byte for byte: its status, the
// headers it must carry and its problem+json body. A refused request changes nothing.
func TestControlRefusalsAnswer(t *testing.T) {
	const dropped = `{"faults":[{"kind":"drop"}]}`
	tests := []struct {
		name               string
		method, path, body string
		edit               func(*http.Request)
		status             int
		header             map[string]string // fields besides Content-Type application/problem+json
		answer             string            // the body, without its final newline
	}{
		{"a Host not listed", "POST", control.ResetPath, "", func(r *http.Request) { r.Host = "evil.example:8080" },
			403, nil, `{"type":"urn:pixretry:psp:problem:host_not_allowed","title":"Forbidden","status":403,` +
				`"detail":"the control API does not answer for Host \"evil.example:8080\"","code":"host_not_allowed"}`},
		{"no token", "GET", control.StatsPath, "", func(r *http.Request) { r.Header.Del("Authorization") },
			401, map[string]string{"WWW-Authenticate": `Bearer realm="psp-control"`},
			`{"type":"urn:pixretry:psp:problem:unauthorized","title":"Unauthorized","status":401,` +
				`"detail":"the control token is required in Authorization","code":"unauthorized"}`},
		{"a body of text", "POST", control.FaultsPath, dropped, func(r *http.Request) { r.Header.Set("Content-Type", "text/plain") },
			415, nil, `{"type":"urn:pixretry:psp:problem:unsupported_media_type","title":"Unsupported Media Type","status":415,` +
				`"detail":"Content-Type must be application/json, got \"text/plain\"","code":"unsupported_media_type"}`},
		{"another method", "PUT", control.FaultsPath, dropped, nil,
			405, map[string]string{"Allow": "DELETE, GET, POST"},
			`{"type":"urn:pixretry:psp:problem:method_not_allowed","title":"Method Not Allowed","status":405,` +
				`"detail":"/_psp/faults takes DELETE, GET, POST","code":"method_not_allowed"}`},
		{"a body over 64 KiB", "POST", control.FaultsPath, `{"faults":[` + strings.Repeat(" ", psp.MaxBodyBytes) + `]}`, nil,
			413, nil, `{"type":"urn:pixretry:psp:problem:payload_too_large","title":"Request Entity Too Large","status":413,` +
				`"detail":"the body must be at most 65536 bytes","code":"payload_too_large"}`},
		{"bad faults", "POST", control.FaultsPath, `{"faults":[{"kind":"boom"},{"kind":"drop"},{"kind":"redirect"}]}`, nil,
			400, nil, `{"type":"urn:pixretry:psp:problem:invalid_request","title":"Bad Request","status":400,` +
				`"detail":"the request has 2 violation(s); see violacoes","code":"invalid_request","violacoes":[` +
				`{"campo":"faults[0]","motivo":"psp: invalid fault: unknown kind \"boom\": ` + kinds + `"},` +
				`{"campo":"faults[2]","motivo":"psp: invalid fault: kind \"redirect\" takes \"status\" (300 to 399), and optionally \"target\":\"lookup\""}]}`},
		{"a bad filter", "GET", control.RequestsPath + "?status=600", "", nil,
			400, nil, `{"type":"urn:pixretry:psp:problem:invalid_request","title":"Bad Request","status":400,` +
				`"detail":"the request has 1 violation(s); see violacoes","code":"invalid_request",` +
				`"violacoes":[{"campo":"status","motivo":"must be a status from 100 to 599"}]}`},
		{"a body cut short", "POST", control.FaultsPath, "", func(r *http.Request) {
			r.Body = io.NopCloser(io.MultiReader(strings.NewReader(dropped), iotest.ErrReader(io.ErrUnexpectedEOF)))
		}, 400, nil, `{"type":"urn:pixretry:psp:problem:invalid_request","title":"Bad Request","status":400,` +
			`"detail":"the request has 1 violation(s); see violacoes","code":"invalid_request",` +
			`"violacoes":[{"campo":"body","motivo":"could not be read whole: unexpected EOF"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustGuarded(t, withControlToken)
			r := guardedRequest(tt.method, tt.path, tt.body)
			if tt.edit != nil {
				tt.edit(r)
			}
			a := serve(s, r)
			want := map[string]string{"Content-Type": "application/problem+json"}
			for name, value := range tt.header {
				want[name] = value
			}
			got := map[string]string{}
			for name := range want {
				got[name] = a.header.Get(name)
			}
			if a.status != tt.status || a.body != tt.answer+"\n" || !cmp.Equal(got, want) {
				t.Errorf("%s %s = %d %v %s, want %d %v %s", tt.method, tt.path, a.status, got, a.body, tt.status, want, tt.answer)
			}
			if n, queued := len(s.Settlements()), s.Stats().Faults; n != 1 || queued != 1 {
				t.Errorf("after the refusal the Server holds %d settlements and %d faults, want 1 and 1", n, queued)
			}
		})
	}
}

// TestControlAcceptsWhatTheContractAllows: each variant of a request that the guards and the
// body limit let through queues its fault.
func TestControlAcceptsWhatTheContractAllows(t *testing.T) {
	const dropped = `{"faults":[{"kind":"drop"}]}`
	tests := []struct {
		name string
		body string
		edit func(*http.Request)
	}{
		{"charset utf-8", dropped, func(r *http.Request) { r.Header.Set("Content-Type", "application/json; charset=utf-8") }},
		{"charset UTF-8", dropped, func(r *http.Request) { r.Header.Set("Content-Type", "application/json; charset=UTF-8") }},
		{"spaces before the token", dropped, func(r *http.Request) { r.Header.Set("Authorization", "Bearer   ctl") }},
		{"the scheme in lower case", dropped, func(r *http.Request) { r.Header.Set("Authorization", "bearer ctl") }},
		{"the Host in upper case", dropped, func(r *http.Request) { r.Host = "PSP.TEST" }},
		{"a body of exactly 64 KiB", dropped[:len(dropped)-1] + strings.Repeat(" ", psp.MaxBodyBytes-len(dropped)) + "}", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustGuarded(t, withControlToken)
			r := guardedRequest("POST", control.FaultsPath, tt.body)
			if tt.edit != nil {
				tt.edit(r)
			}
			wantNoContent(t, serve(s, r))
			if got := s.Stats().Faults; got != 2 {
				t.Errorf("%d faults queued, want 2", got)
			}
		})
	}
}

// TestControlSaysWhatEachFaultKindTakes: a 400 names each malformed fault with what its kind
// takes, in the JSON form.
func TestControlSaysWhatEachFaultKindTakes(t *testing.T) {
	const (
		invalid    = "psp: invalid fault: kind "
		forLookups = `, and optionally "target":"lookup"`
		noTarget   = `, and no "target" (payments only)`
	)
	faults := []string{
		`{"kind":"status"}`,
		`{"kind":"slow"}`,
		`{"kind":"late"}`,
		`{"kind":"drop","status":503}`,
		`{"kind":"reset","delay_ms":1}`,
		`{"kind":"down"}`,
		`{"kind":"duplicate"}`,
		`{"kind":"commit_status","status":201}`,
		`{"kind":"bad_body","breach":"missing"}`,
		`{"kind":"redirect","status":200}`,
		`{"kind":"pending","after_ms":1000}`,
	}
	want := []psp.Violation{
		{Field: "faults[0]", Reason: invalid + `"status" takes "status" (400 to 599), optionally "retry_after_s" (whole seconds, 1 to 3600)` + forLookups},
		{Field: "faults[1]", Reason: invalid + `"slow" takes "delay_ms" (milliseconds, 0 to 3600000)` + noTarget},
		{Field: "faults[2]", Reason: invalid + `"late" takes "delay_ms" (milliseconds, 0 to 3600000)` + forLookups},
		{Field: "faults[3]", Reason: invalid + `"drop" takes no parameters` + noTarget},
		{Field: "faults[4]", Reason: invalid + `"reset" takes no parameters` + forLookups},
		{Field: "faults[5]", Reason: invalid + `"down" takes "duration_ms" (milliseconds, 0 to 3600000)` + forLookups},
		{Field: "faults[6]", Reason: invalid + `"duplicate" takes "duration_ms" (milliseconds, 0 to 3600000)` + noTarget},
		{Field: "faults[7]", Reason: invalid + `"commit_status" takes "status" (200 to 299 but 201, 204 and 205, or 500 to 599), ` +
			`optionally "retry_after_s" (whole seconds, 1 to 3600)` + noTarget},
		{Field: "faults[8]", Reason: invalid + `"bad_body" takes "breach" (not_json, short, cut, missing, valor, chave or end_to_end_id), ` +
			`"member" (endToEndId, valor, chave, status or horario) with missing only` + forLookups},
		{Field: "faults[9]", Reason: invalid + `"redirect" takes "status" (300 to 399)` + forLookups},
		{Field: "faults[10]", Reason: invalid + `"pending" takes "after_ms" (milliseconds, 0 to 3600000) and "then" ` +
			`(settled or rejected)` + noTarget},
	}
	s := mustBank(t)
	a := ctl(s, "POST", control.FaultsPath, `{"faults":[`+strings.Join(faults, ",")+`]}`)
	wantViolations(t, wantProblem(t, a, 400, "invalid_request").Violations, want)
	wantSettled(t, pay(s, "k1", validBody)) // nothing was queued
}

// TestControlNamesBadFaultsBeforeTheRoom: when the queues are nearly full, a request with a bad
// fault is told about the bad fault, not about the room.
func TestControlNamesBadFaultsBeforeTheRoom(t *testing.T) {
	s := mustBank(t)
	s.Inject(drops(control.MaxQueuedFaults - 1)...)
	p := wantProblem(t, ctl(s, "POST", control.FaultsPath, `{"faults":[{"kind":"reset"},{"kind":"boom"}]}`),
		400, "invalid_request")
	wantViolations(t, p.Violations, []psp.Violation{{Field: "faults[1]", Reason: `psp: invalid fault: unknown kind "boom": ` + kinds}})
	if got, want := s.Stats().Faults, control.MaxQueuedFaults-1; got != want {
		t.Errorf("%d faults queued, want %d", got, want)
	}
}

func TestNewHandlerRefusesATokenThatIsNotVisibleASCII(t *testing.T) {
	for _, tok := range []string{"ctl secret", " ctl", "ctl\t", "ctl\n", "ctl\x7f", "clé", "ctl\x00"} {
		h, err := control.NewHandler(mustServer(t), control.Options{Token: tok})
		if want := "control: the token must be visible ASCII without spaces"; h != nil || err == nil || err.Error() != want {
			t.Errorf("NewHandler(Token %q) = %v, %v; want nil, %q", tok, h, err, want)
		}
	}
	for _, tok := range []string{"", "!", "~", psp.DefaultToken, "a!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~z"} {
		if _, err := control.NewHandler(mustServer(t), control.Options{Token: tok}); err != nil {
			t.Errorf("NewHandler(Token %q) error = %v, want nil", tok, err)
		}
	}
}
