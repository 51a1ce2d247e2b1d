// Package control serves and drives the control API of a psp.Server over HTTP: faults, the
// ledger, the balance, a reset, the counters and the request journal, under /_psp/. Command
// psp and command demo share it. The HTTP contract is the OpenAPI 3.1 document openapi.json,
// which NewHandler serves at OpenAPIPath. docs/psp.md says why the double behaves as it does.
package control

import (
	"bufio"
	"cmp"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"pixretry/psp"
	"pixretry/psp/webhook"
)

// Paths of the control API.
const (
	FaultsPath      = "/_psp/faults"
	SettlementsPath = "/_psp/settlements"
	BalancePath     = "/_psp/balance"
	ResetPath       = "/_psp/reset"
	StatsPath       = "/_psp/stats"
	RequestsPath    = "/_psp/requests"
)

// CodeHostNotAllowed is the code of the 403 answered to a control request with a Host that
// Options.Hosts does not list.
const CodeHostNotAllowed = "host_not_allowed"

// MaxQueuedFaults is the most faults the queues, for payments, lookups and webhooks, may hold
// together after a POST to FaultsPath.
const MaxQueuedFaults = 10_000

// Options guard the control API.
type Options struct {
	// Token, if not empty, must come with every control request as "Authorization: Bearer
	// <Token>", or the request gets 401 unauthorized. It is visible ASCII without spaces.
	Token string
	// Hosts, if not empty, are the Host values a control request may carry, such as
	// "127.0.0.1:8080", matched without regard to case. A control request with another Host
	// gets 403 host_not_allowed, which keeps a web page that rebinds its own name to the PSP's
	// address (DNS rebinding) out. Empty means any Host.
	Hosts []string
	// Webhooks, if not nil, is the Sender of the Server's webhooks (see WebhooksPath). POST
	// FaultsPath queues its faults ("target":"webhook"), which GET and DELETE FaultsPath and
	// ResetPath read and clear with the Server's. Nil refuses those faults and answers
	// WebhooksPath 404.
	Webhooks *webhook.Sender
	// Payments, if not nil, serves every request that is not a control request, in place of
	// the Server: a front end that speaks another PSP's dialect to it, such as package
	// pixretry/psp/efi's. Nil means the Server itself.
	Payments http.Handler
	// Paths, if not nil, are more control paths, each with the handler of its GET: what a
	// front end in Payments serves to tests alone, such as the keys of package
	// pixretry/psp/openfinance. A request to one passes the checks of NewHandler first, and
	// another method than GET gets 405. A path of the control API's own is an error.
	Paths map[string]http.Handler
	// OnReset, if not nil, is called by a POST to ResetPath once the Server and the webhooks
	// are reset: it starts again what a front end in Payments holds, such as the consents and
	// keys of package pixretry/psp/openfinance. A front end that kept a key the Server forgot
	// would have its payment made anew. It must be safe for concurrent use.
	OnReset func()
}

var tokenPattern = regexp.MustCompile(`^[\x21-\x7E]+$`)

// handler serves the control API of srv and passes other requests to payments.
type handler struct {
	srv      *psp.Server
	payments http.Handler // srv, or Options.Payments
	opts     Options
	routes   map[string]map[string]http.HandlerFunc // path, method
	mu       sync.Mutex                             // makes a POST of faults check the room and queue at once
}

// NewHandler returns an http.Handler that serves the control API of srv and opts.Paths, and
// passes every other request to srv, or to opts.Payments if set. Another method on a control
// path gets 405 with Allow. Every control request passes these checks, in this order: a Host of
// opts.Hosts (403 host_not_allowed), opts.Token (401 unauthorized), and, for a request that
// changes state (any method but GET), Content-Type application/json (415
// unsupported_media_type), which no HTML form or other simple cross-site request can send. A
// request that changes state without a body may leave Content-Type out, unless a browser says
// it comes from another origin (see bodyless). PagePath without Authorization is served without
// data instead of 401. OpenAPIPath passes no check. An opts.Token that is not visible ASCII is
// an error, and so is a path of opts.Paths that the control API serves itself.
func NewHandler(srv *psp.Server, opts Options) (http.Handler, error) {
	if opts.Token != "" && !tokenPattern.MatchString(opts.Token) {
		return nil, errors.New("control: the token must be visible ASCII without spaces")
	}
	h := &handler{srv: srv, payments: srv, opts: opts}
	if opts.Payments != nil {
		h.payments = opts.Payments
	}
	h.routes = map[string]map[string]http.HandlerFunc{
		FaultsPath: {
			http.MethodGet:    h.getFaults,
			http.MethodPost:   h.postFaults,
			http.MethodDelete: noContent(h.clearFaults),
		},
		SettlementsPath: {http.MethodGet: h.getSettlements},
		BalancePath:     {http.MethodGet: h.getBalance},
		ResetPath:       {http.MethodPost: noContent(h.reset)},
		StatsPath:       {http.MethodGet: h.getStats},
		RequestsPath:    {http.MethodGet: h.getRequests},
		WebhooksPath:    {http.MethodGet: h.getWebhooks},
		PagePath:        {http.MethodGet: h.getPage},
		OpenAPIPath:     {http.MethodGet: getOpenAPI},
	}
	for path, handler := range opts.Paths {
		if _, own := h.routes[path]; own {
			return nil, fmt.Errorf("control: Options.Paths: %s is a path of the control API", path)
		}
		h.routes[path] = map[string]http.HandlerFunc{http.MethodGet: handler.ServeHTTP}
	}
	return h, nil
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	methods, isControl := h.routes[r.URL.Path]
	handle, allowed := methods[r.Method]
	switch {
	case !isControl:
		h.payments.ServeHTTP(w, r)
	case !allowed:
		allow := strings.Join(slices.Sorted(maps.Keys(methods)), ", ")
		writeProblem(w, http.StatusMethodNotAllowed, "method_not_allowed",
			fmt.Sprintf("%s takes %s", r.URL.Path, allow), http.Header{"Allow": {allow}})
	default:
		if r.URL.Path == OpenAPIPath || h.guard(w, r) { // the document is for anyone
			handle(w, r)
		}
	}
}

// guard answers r with a problem and reports false if r fails a check of NewHandler.
func (h *handler) guard(w http.ResponseWriter, r *http.Request) bool {
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimLeft(token, " ")
	contentType := r.Header.Get("Content-Type")
	switch {
	case len(h.opts.Hosts) > 0 && !slices.ContainsFunc(h.opts.Hosts, func(host string) bool {
		return strings.EqualFold(host, r.Host)
	}):
		writeProblem(w, http.StatusForbidden, CodeHostNotAllowed,
			fmt.Sprintf("the control API does not answer for Host %q", r.Host), nil)
	case h.opts.Token != "" && !h.shell(r) && (!strings.EqualFold(scheme, "Bearer") ||
		subtle.ConstantTimeCompare([]byte(token), []byte(h.opts.Token)) == 0):
		writeProblem(w, http.StatusUnauthorized, "unauthorized", "the control token is required in Authorization",
			http.Header{"Www-Authenticate": {`Bearer realm="psp-control"`}})
	case r.Method != http.MethodGet && !isJSON(contentType) && (contentType != "" || !bodyless(r)):
		writeProblem(w, http.StatusUnsupportedMediaType, "unsupported_media_type",
			fmt.Sprintf("Content-Type must be application/json, got %q", contentType), nil)
	default:
		return true
	}
	return false
}

// bodyless reports whether r, a request that changes state, may leave Content-Type out: it has
// no body, and no browser sent it from another origin. A browser says so in Sec-Fetch-Site or
// Origin (http.CrossOriginProtection), so a page elsewhere cannot reset the PSP with a
// body-less POST, which is a simple cross-site request. Tools such as curl send neither.
func bodyless(r *http.Request) bool {
	var sameOrigin http.CrossOriginProtection // no trusted origin
	return r.ContentLength == 0 && sameOrigin.Check(r) == nil
}

// isJSON reports whether contentType is application/json, with charset utf-8 if any.
func isJSON(contentType string) bool {
	mediaType, params, err := mime.ParseMediaType(contentType)
	charset, hasCharset := params["charset"]
	return err == nil && mediaType == "application/json" && (!hasCharset || strings.EqualFold(charset, "utf-8"))
}

// noContent is a handler that calls do and answers 204.
func noContent(do func()) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		do()
		w.WriteHeader(http.StatusNoContent)
	}
}

// postFaults queues {"faults":[...]} and answers 204, or queues none and answers 400 naming
// each bad fault ("faults[1]"), or "faults" if they would take the queues past MaxQueuedFaults.
// A webhook fault without Options.Webhooks is a bad fault.
func (h *handler) postFaults(w http.ResponseWriter, r *http.Request) {
	faults, bad, status := readFaults(w, r)
	if status == 0 && len(bad) == 0 {
		bad = h.withoutWebhooks(faults)
	}
	if len(bad) == 0 {
		h.mu.Lock()
		defer h.mu.Unlock()
		given := len(faults.Server) + len(faults.Webhooks)
		if queued := h.queuedFaults(); queued+given > MaxQueuedFaults {
			bad = []psp.Violation{{Field: "faults", Reason: fmt.Sprintf("%d queued, room for %d more, %d given",
				queued, MaxQueuedFaults-queued, given)}}
		}
	}
	switch {
	case status == http.StatusRequestEntityTooLarge:
		writeProblem(w, status, "payload_too_large",
			fmt.Sprintf("the body must be at most %d bytes", psp.MaxBodyBytes), nil)
	case len(bad) > 0:
		writeProblem(w, http.StatusBadRequest, "invalid_request",
			fmt.Sprintf("the request has %d violation(s); see violacoes", len(bad)), nil, bad...)
	default:
		h.srv.Inject(faults.Server...)
		if h.opts.Webhooks != nil {
			h.opts.Webhooks.Inject(faults.Webhooks...)
		}
		w.WriteHeader(http.StatusNoContent)
	}
}

// readFaults reads a {"faults":[...]} body of at most psp.MaxBodyBytes. It returns the faults,
// or the violations, or status 413 for a body too large.
func readFaults(w http.ResponseWriter, r *http.Request) (Faults, []psp.Violation, int) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, psp.MaxBodyBytes))
	if _, tooLarge := errors.AsType[*http.MaxBytesError](err); tooLarge {
		return Faults{}, nil, http.StatusRequestEntityTooLarge
	}
	if err != nil {
		return Faults{}, []psp.Violation{{Field: "body", Reason: "could not be read whole: " + err.Error()}}, 0
	}
	faults, bad := decodeFaults(body, true) // as DecodeAllFaults, for every bad fault
	return faults, violations(bad), 0
}

// getFaults writes {"faults":[...]}, the faults queued, each in its JSON form: a body that POST
// FaultsPath takes. The payment faults come first, then the lookup faults, then the webhook
// faults, each queue in the order its requests or deliveries will consume it.
func (h *handler) getFaults(w http.ResponseWriter, _ *http.Request) {
	faults := h.srv.Faults()
	body := struct {
		Faults []any `json:"faults"`
	}{make([]any, len(faults))} // [] rather than null for none
	for i, f := range faults {
		body.Faults[i] = wire(f) // a queued fault is valid
	}
	for _, f := range h.webhookFaults() {
		body.Faults = append(body.Faults, webhookWire(f))
	}
	writeJSON(w, http.StatusOK, "application/json", body, nil)
}

// settlementJSON is a settlement as GET SettlementsPath writes it.
type settlementJSON struct {
	EndToEndID     string `json:"endToEndId"`
	IdempotencyKey string `json:"idempotencyKey"`
	Valor          string `json:"valor"`
	Chave          string `json:"chave"`
	Horario        string `json:"horario"`
}

// getSettlements writes {"count":N,"settlements":[...]}, one settlement at a time.
func (h *handler) getSettlements(w http.ResponseWriter, _ *http.Request) {
	ledger := h.srv.Settlements()
	w.Header().Set("Content-Type", "application/json")
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `{"count":%d,"settlements":[`, len(ledger))
	for i, st := range ledger {
		if i > 0 {
			bw.WriteByte(',')
		}
		json.MarshalWrite(bw, settlementJSON{
			EndToEndID:     st.EndToEndID,
			IdempotencyKey: st.IdempotencyKey,
			Valor:          psp.FormatAmount(st.AmountCents),
			Chave:          st.PixKey,
			Horario:        st.SettledAt.Format(time.RFC3339Nano),
		})
	}
	bw.WriteString("]}\n")
	bw.Flush() // a failed write means the client has gone: nothing left to tell it
}

type balanceJSON struct {
	Balance string `json:"balance"`
}

func (h *handler) getBalance(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, "application/json", balanceJSON{psp.FormatAmount(h.srv.Stats().BalanceCents)}, nil)
}

// statsJSON is psp.Stats as GET StatsPath writes it.
type statsJSON struct {
	Requests    int64 `json:"requests"`
	Shed        int64 `json:"shed"`
	Settled     int   `json:"settled"`
	Dropped     int64 `json:"dropped"`
	Keys        int   `json:"keys"`
	InFlight    int   `json:"in_flight"`
	MaxInFlight int   `json:"max_in_flight"`
	Lookups     int64 `json:"lookups"`
	ClosedKeys  int   `json:"closed_keys"`
	Pending     int   `json:"pending"`
	Rejected    int64 `json:"rejected"`
}

func (h *handler) getStats(w http.ResponseWriter, _ *http.Request) {
	s := h.srv.Stats()
	body := statsJSON{s.Requests, s.Shed, s.Settled, s.Dropped, s.Keys, s.InFlight, s.MaxInFlight, s.Lookups, s.ClosedKeys,
		s.Pending, s.Rejected}
	writeJSON(w, http.StatusOK, "application/json", body, nil)
}

// requestJSON is a psp.Request as GET RequestsPath writes it. Its members are camelCase, as a
// settlement's: the key is idempotencyKey in both, in the one form the ledger knows.
type requestJSON struct {
	Seq                  uint64         `json:"seq"`
	Arrived              string         `json:"arrived"` // RFC 3339, in UTC, to the nanosecond
	Method               string         `json:"method"`
	Path                 string         `json:"path"`
	IdempotencyKey       string         `json:"idempotencyKey"`       // psp.Request.Key
	IdempotencyKeyHeader string         `json:"idempotencyKeyHeader"` // psp.Request.KeyHeader
	Token                int            `json:"token"`
	Traceparent          string         `json:"traceparent"`
	Payload              jsontext.Value `json:"payload"` // see payloadJSON
	InFlight             bool           `json:"inFlight"`
	Fault                string         `json:"fault"`
	Status               int            `json:"status"`
	Replayed             bool           `json:"replayed"`
	ElapsedMS            float64        `json:"elapsedMs"`
}

// getRequests writes {"count":N,"dropped":D,"requests":[...]}, the requests the query selects
// one at a time, or answers 400 naming each bad parameter.
func (h *handler) getRequests(w http.ResponseWriter, r *http.Request) {
	filter, bad := readFilter(r.URL.RawQuery)
	if len(bad) > 0 {
		writeProblem(w, http.StatusBadRequest, "invalid_request",
			fmt.Sprintf("the request has %d violation(s); see violacoes", len(bad)), nil, bad...)
		return
	}
	requests, dropped := h.srv.Requests(filter)
	w.Header().Set("Content-Type", "application/json")
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `{"count":%d,"dropped":%d,"requests":[`, len(requests), dropped)
	for i, rq := range requests {
		if i > 0 {
			bw.WriteByte(',')
		}
		json.MarshalWrite(bw, requestWire(rq), jsontext.AllowInvalidUTF8(true), jsontext.PreserveRawStrings(true))
	}
	bw.WriteString("]}\n")
	bw.Flush() // a failed write means the client has gone: nothing left to tell it
}

// requestWire is rq as GET RequestsPath writes it.
func requestWire(rq psp.Request) requestJSON {
	return requestJSON{
		Seq:                  rq.Seq,
		Arrived:              rq.Arrived.UTC().Format(time.RFC3339Nano),
		Method:               rq.Method,
		Path:                 rq.Path,
		IdempotencyKey:       rq.Key,
		IdempotencyKeyHeader: rq.KeyHeader,
		Token:                rq.Token,
		Traceparent:          rq.Traceparent,
		Payload:              payloadJSON(rq.Payload),
		InFlight:             rq.InFlight,
		Fault:                rq.Fault,
		Status:               rq.Status,
		Replayed:             rq.Replayed,
		ElapsedMS:            float64(rq.Elapsed) / float64(time.Millisecond),
	}
}

// payloadJSON is body as a JSON value: the body itself, its whitespace left out, if it is valid
// JSON other than a string; else a JSON string of its bytes, with U+FFFD for invalid UTF-8.
// A JSON string in the answer is thus always the text of a body.
func payloadJSON(body []byte) jsontext.Value {
	if v := jsontext.Value(body); v.IsValid() && v.Kind() != '"' {
		return v
	}
	s, _ := json.Marshal(string(body), jsontext.AllowInvalidUTF8(true)) // a string
	return s
}

// The query parameters of GET RequestsPath.
const (
	keyParam    = "key"
	statusParam = "status"
	afterParam  = "after"
)

// readFilter reads the query of GET RequestsPath: key, status (100 to 599) and after (a Seq),
// each at most once, all optional. The key is read as an Idempotency-Key is read, so `"abc"`
// and abc both select abc (see psp.RequestFilter). It returns the filter, or a violation for
// each bad parameter, or for "query" if it does not parse.
func readFilter(rawQuery string) (psp.RequestFilter, []psp.Violation) {
	query, err := url.ParseQuery(rawQuery)
	if err != nil {
		return psp.RequestFilter{}, []psp.Violation{{Field: "query", Reason: "could not be parsed: " + err.Error()}}
	}
	var f psp.RequestFilter
	var bad []psp.Violation
	for _, name := range slices.Sorted(maps.Keys(query)) {
		if reason := setFilter(&f, name, query[name]); reason != "" {
			bad = append(bad, psp.Violation{Field: cmp.Or(name, `""`), Reason: reason}) // "" shows an empty name
		}
	}
	return f, bad
}

// setFilter sets the member of f that the parameter name gives, from its values, or returns why
// it cannot.
func setFilter(f *psp.RequestFilter, name string, values []string) (reason string) {
	var err error
	switch name {
	case keyParam:
		if f.Key = values[0]; f.Key == "" {
			reason = "must not be empty"
		}
	case statusParam:
		if f.Status, err = strconv.Atoi(values[0]); err != nil || f.Status < 100 || f.Status > 599 {
			reason = "must be a status from 100 to 599"
		}
	case afterParam:
		if f.After, err = strconv.ParseUint(values[0], 10, 64); err != nil {
			reason = "must be a Seq, a whole number from 0"
		}
	default:
		return "unknown parameter: the parameters are key, status and after"
	}
	if len(values) > 1 {
		reason = "must be given at most once"
	}
	return reason
}

// writeProblem is the one helper that answers a control request with a problem.
func writeProblem(w http.ResponseWriter, status int, code, detail string, header http.Header, bad ...psp.Violation) {
	writeJSON(w, status, "application/problem+json", psp.NewProblem(status, code, detail, bad...), header)
}

// writeJSON answers status with v as a JSON body of contentType, and header's fields.
func writeJSON(w http.ResponseWriter, status int, contentType string, v any, header http.Header) {
	body, _ := json.Marshal(v, jsontext.AllowInvalidUTF8(true)) // plain structs of strings and numbers
	for name, values := range header {
		w.Header()[name] = values
	}
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	w.Write(append(body, '\n')) // a failed write means the client has gone: nothing left to tell it
}
