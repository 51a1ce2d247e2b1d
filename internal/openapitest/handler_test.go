package openapitest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"pixretry/psp"
	"pixretry/psp/control"
)

// TestTheDoublesAnswersPass walks the double's answers, of payments, lookups and the control
// API, through Handler: none fails.
func TestTheDoublesAnswersPass(t *testing.T) {
	s, h := mustDouble(t, func(c *psp.Config) { c.BalanceCents = 20000 })
	var f failures
	checked := Handler(&f, h, s)
	lookup := psp.PaymentsPath + "?" + psp.LookupParam + "="
	tests := []struct {
		r    *http.Request
		want int
	}{
		{request("POST", psp.PaymentsPath, "k1", payment), 201},
		{request("POST", psp.PaymentsPath, "k1", payment), 201},
		{request("POST", psp.PaymentsPath, "k2", payment), 422},
		{request("POST", psp.PaymentsPath, "", payment), 400},
		{request("POST", psp.PaymentsPath, "k3", `{"valor":1}`), 400},
		{request("GET", lookup+"k1", "", ""), 200},
		{request("GET", lookup+"k9", "", ""), 404},
		{request("PUT", psp.PaymentsPath, "", ""), 405},
		{request("GET", "/nope", "", ""), 404},
		{request("GET", control.BalancePath, "", ""), 200},
		{request("GET", control.SettlementsPath, "", ""), 200},
		{request("GET", control.StatsPath, "", ""), 200},
		{request("GET", control.RequestsPath, "", ""), 200},
		{request("GET", control.RequestsPath+"?status=9", "", ""), 400},
		{request("POST", control.FaultsPath, "", `{"faults":[{"kind":"status","status":503,"retry_after_s":2}]}`), 204},
		{request("POST", psp.PaymentsPath, "k4", payment), 503},
		{request("POST", control.FaultsPath, "", `{"faults":[{"kind":"nope"}]}`), 400},
		{request("DELETE", control.FaultsPath, "", ""), 204},
		{request("PUT", control.BalancePath, "", ""), 405},
		{request("GET", control.PagePath, "", ""), 200},
		{request("GET", control.OpenAPIPath, "", ""), 200},
		{request("POST", control.ResetPath, "", ""), 204},
	}
	for _, tt := range tests {
		if got := serve(checked, tt.r); got != tt.want {
			t.Errorf("%s %s = %d, want %d", tt.r.Method, tt.r.URL, got, tt.want)
		}
	}
	if len(f.msgs) > 0 {
		t.Errorf("Handler failed the double's answers:\n%s", strings.Join(f.msgs, "\n"))
	}
}

// problemOf is the body of a problem of status and code.
func problemOf(status int, code string) string {
	return fmt.Sprintf(`{"type":"urn:pixretry:psp:problem:%s","title":%q,"status":%d,"detail":"d","code":%q}`,
		code, http.StatusText(status), status, code)
}

// TestHandlerFailsWhatTheDocumentDoesNotDescribe: each answer breaks the document in one way,
// and Handler fails the test once, naming the operation, the status and the fault. It counts
// the answer against the response it matched, or its status.
func TestHandlerFailsWhatTheDocumentDoesNotDescribe(t *testing.T) {
	const json, problem = "application/json", "application/problem+json"
	tests := []struct {
		name     string
		r        *http.Request
		answer   http.Handler
		response string   // counted
		want     []string // in the failure, in order
	}{
		{"an undocumented status", request("POST", psp.PaymentsPath, "k1", payment),
			answering(203, receipt, "Content-Type", json, "Idempotency-Key", "k1"), "203",
			[]string{"POST /v1/pix/payments answered 203", "status 203 is not documented"}},
		{"a required member missing", request("POST", psp.PaymentsPath, "k1", payment),
			answering(201, strings.Replace(receipt, `,"horario":"2024-01-02T15:04:05.5Z"`, "", 1), "Content-Type", json,
				"Idempotency-Key", "k1"), "201",
			[]string{"POST /v1/pix/payments answered 201", "the body", "/paths/~1v1~1pix~1payments/post/responses/201", "horario"}},
		{"a member of the wrong type", request("GET", control.BalancePath, "", ""),
			answering(200, `{"balance":50}`, "Content-Type", json), "200",
			[]string{"GET /_psp/balance answered 200", "balance", "string"}},
		{"a member too many", request("GET", control.BalancePath, "", ""),
			answering(200, `{"balance":"50.00","currency":"BRL"}`, "Content-Type", json), "200",
			[]string{"GET /_psp/balance answered 200", "currency"}},
		{"no answer written", request("GET", control.BalancePath, "", ""),
			http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}), "200",
			[]string{"GET /_psp/balance answered 200", "the Content-Type \"\" is not documented"}},
		{"a required header missing", request("POST", psp.PaymentsPath, "k1", payment),
			answering(201, receipt, "Content-Type", json), "201",
			[]string{"POST /v1/pix/payments answered 201", `header "Idempotency-Key" missing`}},
		{"a header sent twice", request("POST", psp.PaymentsPath, "k1", payment),
			http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header()["Idempotency-Key"] = []string{"k1", "k1"}
				answering(201, receipt, "Content-Type", json).ServeHTTP(w, nil)
			}), "201",
			[]string{"POST /v1/pix/payments answered 201", `header "Idempotency-Key" sent 2 times`}},
		{"a header malformed", request("POST", psp.PaymentsPath, "k1", payment),
			answering(503, problemOf(503, "overloaded"), "Content-Type", problem, "Retry-After", "soon"), "503",
			[]string{"POST /v1/pix/payments answered 503", `header "Retry-After"`, "want integer"}},
		{"a code its status does not have", request("GET", psp.PaymentsPath+"?idempotency_key=k1", "", ""),
			answering(404, problemOf(404, "not_found"), "Content-Type", problem), "404",
			[]string{"GET /v1/pix/payments answered 404", "/paths/~1v1~1pix~1payments/get/responses/404", "payment_not_found"}},
		{"an undocumented Content-Type", request("GET", control.StatsPath, "", ""),
			answering(200, `{}`, "Content-Type", "text/plain"), "200",
			[]string{"GET /_psp/stats answered 200", `the Content-Type "text/plain" is not documented`}},
		{"a Content-Type and no body", request("GET", control.StatsPath, "", ""),
			answering(200, "", "Content-Type", json), "200",
			[]string{"GET /_psp/stats answered 200", "the body is not JSON"}},
		{"a body that is not JSON", request("GET", control.StatsPath, "", ""),
			answering(200, `{`, "Content-Type", json), "200",
			[]string{"GET /_psp/stats answered 200", "the body is not JSON"}},
		{"a body where none is documented", request("POST", control.ResetPath, "", ""),
			answering(204, "done"), "204",
			[]string{"POST /_psp/reset answered 204", "a body the document does not describe"}},
		{"a 405 without Allow", request("PUT", psp.PaymentsPath, "", ""),
			answering(405, problemOf(405, "method_not_allowed"), "Content-Type", problem), "MethodNotAllowed",
			[]string{"PUT /v1/pix/payments answered 405", `header "Allow" is "", want "GET, POST"`}},
		{"a 405 for a path not listed", request("PUT", "/nope", "", ""),
			answering(405, "", "Allow", "GET"), "405",
			[]string{"PUT (a path not listed) answered 405", "status 405 is not documented"}},
		{"a 404 for a path not listed that is no problem", request("GET", "/nope", "", ""),
			answering(404, "404 page not found", "Content-Type", "text/plain"), "NotFound",
			[]string{"GET (a path not listed) answered 404", `the Content-Type "text/plain" is not documented`}},
		{"a 500 for a path not listed", request("GET", "/nope", "", ""),
			answering(500, problemOf(500, "injected_fault"), "Content-Type", problem), "500",
			[]string{"GET (a path not listed) answered 500", "status 500 is not documented"}},
		{"a control 401 without its challenge", request("GET", control.StatsPath, "", ""),
			answering(401, problemOf(401, "unauthorized"), "Content-Type", problem), "401",
			[]string{"GET /_psp/stats answered 401", `header "WWW-Authenticate" missing`}},
		{"net/http's 431 with a body of JSON", request("GET", control.StatsPath, "", ""),
			answering(431, "{}", "Content-Type", json), "431",
			[]string{"GET /_psp/stats answered 431", "status 431 is not documented"}},
		{"net/http's 417 with a body", request("GET", control.StatsPath, "", ""),
			answering(417, "no"), "ExpectationFailed",
			[]string{"GET /_psp/stats answered 417", "a body the document does not describe"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f failures
			counted := row{Operation: tt.want[0][:strings.Index(tt.want[0], " answered ")], Response: tt.response,
				Status: serve(tt.answer, tt.r.Clone(tt.r.Context()))}
			before := countOf(counted)
			serve(Handler(&f, tt.answer, nil), tt.r)
			if len(f.msgs) != 1 {
				t.Fatalf("Handler failed %d times, want once: %q", len(f.msgs), f.msgs)
			}
			rest := f.msgs[0]
			for _, want := range tt.want {
				i := strings.Index(rest, want)
				if i < 0 {
					t.Fatalf("the failure %q lacks %q, or has it too early", f.msgs[0], want)
				}
				rest = rest[i+len(want):]
			}
			if got := countOf(counted) - before; got != 1 {
				t.Errorf("%d answers counted in %+v, want 1", got, counted)
			}
		})
	}
}

// TestHandlerTakesNetHTTPsOwnAnswers: whatever the request, net/http's own answers, in
// text/plain or with no body, are the document's components.
func TestHandlerTakesNetHTTPsOwnAnswers(t *testing.T) {
	const plain = "text/plain; charset=utf-8"
	tests := []struct {
		status   int
		answer   http.Handler
		response string
	}{
		{400, answering(400, "400 Bad Request: malformed Host header", "Content-Type", plain), "BadRequestOfNetHTTP"},
		{417, answering(417, ""), "ExpectationFailed"},
		{431, answering(431, "431 Request Header Fields Too Large", "Content-Type", plain), "HeaderTooLarge"},
		{501, answering(501, "Unsupported transfer encoding", "Content-Type", plain), "NotImplemented"},
		{505, answering(505, "505 HTTP Version Not Supported: unsupported protocol version", "Content-Type", plain),
			"VersionNotSupported"},
	}
	for _, tt := range tests {
		for _, r := range []*http.Request{request("POST", psp.PaymentsPath, "k1", payment), request("GET", "/nope", "", "")} {
			var f failures
			counted := row{Operation: r.Method + " " + r.URL.Path, Response: tt.response, Status: tt.status}
			if r.URL.Path == "/nope" {
				counted.Operation = "GET (a path not listed)"
			}
			before := countOf(counted)
			serve(Handler(&f, tt.answer, nil), r)
			if got := countOf(counted) - before; got != 1 || len(f.msgs) > 0 {
				t.Errorf("%s %s answered %d: %d counted in %s, failures %q; want 1 and none", r.Method, r.URL, tt.status,
					got, tt.response, f.msgs)
			}
		}
	}
}

// TestHandlerChecksTheFirstStatus: the client gets the first status a handler writes, and the
// header fields as they were then, and so does the check. The first Write writes a 200.
func TestHandlerChecksTheFirstStatus(t *testing.T) {
	var f failures
	twice := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Idempotency-Key", "k1")
		w.WriteHeader(201)
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(500)
		w.Write([]byte(receipt))
		w.Write([]byte("\n"))
	})
	if got := serve(Handler(&f, twice, nil), request("POST", psp.PaymentsPath, "k1", payment)); got != 201 || len(f.msgs) > 0 {
		t.Errorf("POST = %d, failures %q; want 201 and none", got, f.msgs)
	}
	late := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"balance":"1.00"}`))
		w.Header().Set("Content-Type", "text/plain") // too late: the 200 has gone
	})
	if got := serve(Handler(&f, late, nil), request("GET", control.BalancePath, "", "")); got != 200 || len(f.msgs) > 0 {
		t.Errorf("GET = %d, failures %q; want 200 and none", got, f.msgs)
	}
}

// TestHandlerPassesTheConnectionThrough: over a real connection, a handler that takes the
// connection over leaves no answer to check, and a receipt cut on purpose reaches the client
// half-written, flushed before the connection closes.
func TestHandlerPassesTheConnectionThrough(t *testing.T) {
	var f failures
	done := make(chan bool)
	served := func(h http.Handler) *httptest.Server { // Handler's ServeHTTP returns, then done
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(w, r)
			done <- true
		}))
	}
	hangUp := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Errorf("Hijack() error = %v", err)
			return
		}
		conn.Close()
	})
	srv := served(Handler(&f, hangUp, nil))
	defer srv.Close()
	if resp, err := srv.Client().Get(srv.URL + control.BalancePath); err == nil {
		resp.Body.Close()
		t.Errorf("GET = %d, want the connection closed", resp.StatusCode)
	}
	if <-done; len(f.msgs) > 0 {
		t.Errorf("Handler failed %q, want no answer to check", f.msgs)
	}

	s, h := mustDouble(t)
	s.Inject(psp.BadBody("cut"))
	cut := served(Handler(&f, h, s))
	defer cut.Close()
	r := request("POST", cut.URL+psp.PaymentsPath, "k1", payment)
	r.RequestURI = ""
	resp, err := cut.Client().Do(r)
	if err != nil {
		t.Fatalf("POST error = %v, want the cut receipt", err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if <-done; resp.StatusCode != 201 || err == nil || !strings.HasPrefix(string(body), `{"endToEndId":`) || len(f.msgs) > 0 {
		t.Errorf("POST = %d %q, %v, failures %q; want 201, half a receipt, an error and no failure",
			resp.StatusCode, body, err, f.msgs)
	}
}
