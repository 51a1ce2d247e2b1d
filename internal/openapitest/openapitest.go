// Package openapitest holds the answers of the PSP double, package psp behind its control API,
// to the OpenAPI document that GET control.OpenAPIPath serves (psp/control/openapi.json).
// Handler checks the answers a handler writes, Transport the answers a client reads. Each fails
// its test once per answer the document does not describe, naming the operation, the status and
// what is wrong: a status not documented, a header missing or malformed, a Content-Type or a body
// that does not match.
//
// The document is read, checked and compiled once per test binary. kin-openapi reads and checks
// it, and gives the response of each operation and status. The JSON Schema 2020-12 validator
// that kin-openapi uses for OpenAPI 3.1 checks the header fields and the bodies, each schema
// compiled once: kin-openapi's own check of an answer would compile them anew for every answer.
//
// Some faults break the answers they meet on purpose: bad_body, redirect, a commit_status of
// 200 to 299, and drop, reset and down, which leave no answer. Handler skips an answer that the
// double's journal says met one of them. Main counts what a test binary checked and skipped.
package openapitest

import (
	"bufio"
	"bytes"
	"cmp"
	"io"
	"net"
	"net/http"
	"sync"

	"pixretry/psp"
)

// TB is what Handler and Transport fail: a *testing.T, a *testing.B or a *rapid.T. Errorf must
// be safe to call from a handler's goroutine, as theirs is.
type TB interface {
	Errorf(format string, args ...any)
}

// Handler returns h with every answer it writes checked against the document: tb fails for
// each answer the document does not describe. double, if not nil, is the Server that h passes
// payments and lookups to, behind the control API or not. An answer to a payment or a lookup
// that double's journal says may have met a fault that breaks answers is skipped, and so is one
// the journal lost (see breaks). A request whose handler panics or takes over the connection has
// no answer to check. The returned handler is safe for concurrent use.
func Handler(tb TB, h http.Handler, double *psp.Server) http.Handler {
	return &handler{tb: tb, next: h, double: double}
}

type handler struct {
	tb     TB
	next   http.Handler
	double *psp.Server

	mu   sync.Mutex
	seen uint64 // the greatest Seq read from double's journal
}

func (c *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	meets := c.double != nil && r.URL.Path == psp.PaymentsPath &&
		(r.Method == http.MethodPost || r.Method == http.MethodGet) // a request that consumes a fault
	var before uint64
	if meets {
		before = c.latest()
		defer c.latest() // this request's Seq is the greatest read, even if a Reset comes next
	}
	rec := &recorder{ResponseWriter: w}
	c.next.ServeHTTP(rec, r) // a panic, http.ErrAbortHandler, passes through: no answer
	if rec.hijacked {
		return
	}
	a, skip := rec.answer(), ""
	if meets {
		skip = c.breaker(before, a.status)
	}
	checkAnswer(c.tb, r, a, skip)
}

// latest is the Seq of the latest request in the double's journal, or the greatest read before
// if the journal now holds none later.
func (c *handler) latest() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if requests, _ := c.double.Requests(psp.RequestFilter{After: c.seen}); len(requests) > 0 {
		c.seen = requests[len(requests)-1].Seq
	}
	return c.seen
}

// breaker says why the answer of status to a request that arrived after the journal's Seq
// before is not checked, or "" if it is. The journal's requests past before are that request
// and those that arrived while it was served, numbered one by one, unless the journal has
// dropped the oldest of them or a Reset has forgotten them. The request is one of those answered
// with status. If one of them met a fault that breaks answers, the answer may be that one's.
func (c *handler) breaker(before uint64, status int) string {
	requests, _ := c.double.Requests(psp.RequestFilter{After: before})
	if len(requests) == 0 || requests[0].Seq != before+1 {
		return "not in the journal"
	}
	mine := 0
	var broken []string
	for _, e := range requests {
		if e.Status == status {
			mine++
			if breaks(e) {
				broken = append(broken, e.Fault)
			}
		}
	}
	switch {
	case len(broken) == 0:
		return ""
	case mine == 1:
		return "fault " + string(broken[0])
	}
	return "a request served alongside met fault " + string(broken[0])
}

// breaks reports whether e met a fault that breaks its answer on purpose: bad_body, redirect, or
// a commit_status of 200 to 299 (its status, unlike the fault's, is in the journal). Drop, reset
// and down break answers too, but leave none: the journal's status of their requests is 0.
func breaks(e psp.Request) bool {
	return e.Fault == "bad_body" || e.Fault == "redirect" ||
		e.Fault == "commit_status" && e.Status/100 == 2
}

// recorder copies what a handler writes. Flush and Hijack reach the writer it wraps.
type recorder struct {
	http.ResponseWriter
	status   int
	header   http.Header // as at WriteHeader
	body     bytes.Buffer
	hijacked bool
}

func (w *recorder) WriteHeader(status int) {
	if w.status == 0 {
		w.status, w.header = status, w.Header().Clone()
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *recorder) Write(b []byte) (int, error) {
	if w.status == 0 { // net/http writes a 200 first
		w.status, w.header = http.StatusOK, w.Header().Clone()
	}
	w.body.Write(b)
	return w.ResponseWriter.Write(b)
}

func (w *recorder) Flush() { http.NewResponseController(w.ResponseWriter).Flush() }

func (w *recorder) Hijack() (conn net.Conn, rw *bufio.ReadWriter, err error) {
	w.hijacked = true
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// answer is what the handler wrote, or net/http's empty 200 if it wrote nothing.
func (w *recorder) answer() answer {
	if w.status == 0 {
		w.status, w.header = http.StatusOK, w.Header().Clone()
	}
	return answer{status: w.status, header: w.header, body: w.body.Bytes()}
}

// Transport returns next with every answer read through it checked against the document, as
// Handler checks a handler's: tb fails for each answer the document does not describe. It knows
// no journal, so it is for a client whose requests meet no fault that breaks answers. It reads
// each answer's body whole before it returns the answer. Of an answer whose body cannot be read
// whole (net/http's 431 is cut by a reset), the status and the header fields are checked. Nil
// next means http.DefaultTransport.
func Transport(tb TB, next http.RoundTripper) http.RoundTripper {
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		resp, err := cmp.Or(next, http.DefaultTransport).RoundTrip(r)
		if err != nil {
			return resp, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
		checkAnswer(tb, r, answer{status: resp.StatusCode, header: resp.Header, body: body, cut: err != nil}, "")
		return resp, nil
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// errReader reads nothing and returns err, or io.EOF if err is nil.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, cmp.Or(e.err, io.EOF) }

// checkAnswer checks r's answer a against the document, unless skip says why not, counts it,
// and fails tb if the document does not describe it.
func checkAnswer(tb TB, r *http.Request, a answer, skip string) {
	if skip != "" {
		count(found{operation: r.Method + " " + r.URL.Path}, a.status, skip)
		return
	}
	at, err := theDocument().check(r, a)
	count(at, a.status, "")
	if err != nil {
		tb.Errorf("openapitest: %s answered %d, which the OpenAPI document does not describe: %v", at.operation,
			a.status, err)
	}
}
