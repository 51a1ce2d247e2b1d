package psp

import (
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// PaymentsPath is where payments are posted.
const PaymentsPath = "/v1/pix/payments"

// Server is the simulated PSP: an http.Handler serving PaymentsPath (and, with
// Config.Control, the /_psp/ control surface). Serve it in process (httptest, a recorder, an
// in-memory pipe) or on a real listener with http.Server. Make one with NewServer; it is safe
// for concurrent use.
type Server struct {
	cfg    Config
	tokens map[string]bool
	routes map[string]map[string]http.HandlerFunc // path, method

	mu        sync.Mutex
	book      *book
	faults    []Fault
	downUntil time.Time
}

// NewServer returns a Server configured by cfg. An invalid cfg is an error wrapping
// ErrInvalidConfig.
func NewServer(cfg Config) (*Server, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, tokens: map[string]bool{}, book: newBook(cfg.BalanceCents)}
	for _, t := range cfg.Tokens {
		s.tokens[t] = true
	}
	s.routes = map[string]map[string]http.HandlerFunc{
		PaymentsPath: {http.MethodPost: s.servePayment},
	}
	if cfg.Control {
		maps.Copy(s.routes, s.controlRoutes())
	}
	return s, nil
}

// ServeHTTP routes r: an unknown path gets 404, a known path with another method 405 with
// Allow, both as problem+json.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	methods, ok := s.routes[r.URL.Path]
	if !ok {
		errorAnswer(fail(CodeNotFound, "no resource at %s", r.URL.Path)).write(w, "")
		return
	}
	handle, ok := methods[r.Method]
	if !ok {
		allow := strings.Join(slices.Sorted(maps.Keys(methods)), ", ")
		f := fail(CodeMethodNotAllowed, "%s takes %s", r.URL.Path, allow)
		f.header = http.Header{"Allow": {allow}}
		errorAnswer(f).write(w, "")
		return
	}
	handle(w, r)
}

// Inject queues faults. Each payment request consumes the next one, in arrival order; other
// requests consume none. Inject panics with an error wrapping ErrInvalidFault if a fault is
// invalid (a programming error, like a bad regexp for regexp.MustCompile); none is queued then.
func (s *Server) Inject(faults ...Fault) {
	for _, f := range faults {
		if err := f.validate(); err != nil {
			panic(err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, faults...)
}

// ClearFaults empties the fault queue and ends a down window, if one is open: the PSP
// behaves from the next request on.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
	s.downUntil = time.Time{}
}

// Settlements returns a copy of the ledger, in settlement order.
func (s *Server) Settlements() []Settlement {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.book.ledger)
}

// BalanceCents returns the payer's balance, in cents.
func (s *Server) BalanceCents() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.book.balance
}

// Reset forgets every key, empties the ledger and the fault queue, closes any down window and
// restores the starting balance. It does not wait for requests in flight: they finish against
// the state Reset discarded, so their settlements never appear in the new ledger. endToEndIds
// stay unique across Resets.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.book = newBook(s.cfg.BalanceCents)
	s.faults = nil
	s.downUntil = time.Time{}
}
