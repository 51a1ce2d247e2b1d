package psp

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// PaymentsPath is where payments are posted.
const PaymentsPath = "/v1/pix/payments"

// Server is the simulated PSP, an http.Handler serving PaymentsPath. With Config.Control it
// also serves the control API under /_psp/. Serve it in process (httptest, a recorder, an
// in-memory pipe) or on a real listener with http.Server. Make one with NewServer. It is safe
// for concurrent use.
type Server struct {
	cfg    Config
	tokens map[string]string                      // each accepted token to itself, the one copy that stored keys hold
	routes map[string]map[string]http.HandlerFunc // path, method

	mu        sync.Mutex
	book      *book
	faults    []Fault
	downUntil time.Time
	inFlight  int // payment requests in processing (see admit)
}

// NewServer returns a Server configured by cfg. An invalid cfg is an error wrapping
// ErrInvalidConfig.
func NewServer(cfg Config) (*Server, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, tokens: map[string]string{}, book: newBook(cfg.BalanceCents, cfg.MaxKeys, cfg.KeyTTL)}
	for _, t := range cfg.Tokens {
		s.tokens[t] = t
	}
	s.routes = map[string]map[string]http.HandlerFunc{
		PaymentsPath: {http.MethodPost: s.servePayment},
	}
	if cfg.Control {
		for path, methods := range s.controlRoutes() {
			for method, handle := range methods {
				methods[method] = s.guard(handle)
			}
			s.routes[path] = methods
		}
	}
	return s, nil
}

// ServeHTTP serves r. An unknown path gets 404, and another method on a known path gets 405
// with Allow.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	methods, ok := s.routes[r.URL.Path]
	if !ok {
		errorAnswer(fail(codeNotFound, "no resource at %s", r.URL.Path)).write(w, "")
		return
	}
	handle, ok := methods[r.Method]
	if !ok {
		allow := strings.Join(slices.Sorted(maps.Keys(methods)), ", ")
		f := fail(codeMethodNotAllowed, "%s takes %s", r.URL.Path, allow)
		f.header = http.Header{"Allow": {allow}}
		errorAnswer(f).write(w, "")
		return
	}
	handle(w, r)
}

// Inject queues faults. Each payment request consumes the next one, in arrival order. Other
// requests consume none. The queue holds at most MaxQueuedFaults. An invalid fault, or more
// faults than the queue has room for, is a programming error, like a bad regexp for
// regexp.MustCompile. Inject then panics with an error wrapping ErrInvalidFault or
// ErrTooManyFaults and queues none.
func (s *Server) Inject(faults ...Fault) {
	for _, f := range faults {
		if err := f.validate(); err != nil {
			panic(err)
		}
	}
	if err := s.queue(faults); err != nil {
		panic(err)
	}
}

// queue appends valid faults to the queue, or none if they do not all fit.
func (s *Server) queue(faults []Fault) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if room := MaxQueuedFaults - len(s.faults); len(faults) > room {
		return fmt.Errorf("%w: %d queued, room for %d more, %d given", ErrTooManyFaults,
			len(s.faults), room, len(faults))
	}
	s.faults = append(s.faults, faults...)
	return nil
}

// ClearFaults empties the fault queue and ends any down window. The next request meets no
// fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
	s.downUntil = time.Time{}
}

// Settlements returns a copy of the ledger, in settlement order. The ledger keeps the latest
// Config.MaxKeys settlements (see Config.MaxKeys).
func (s *Server) Settlements() []Settlement {
	s.mu.Lock()
	defer s.mu.Unlock()
	ledger := make([]Settlement, len(s.book.ledger))
	for i, st := range s.book.ledger {
		ledger[i] = *st
	}
	return ledger
}

// BalanceCents returns the payer's balance, in cents.
func (s *Server) BalanceCents() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.book.balance
}

// Reset forgets every key, empties the ledger and the fault queue, closes any down window and
// restores the starting balance. It does not wait for requests in flight. They finish against
// the state Reset discarded, so their settlements never appear in the new ledger. endToEndIds
// stay unique across Resets.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.book = newBook(s.cfg.BalanceCents, s.cfg.MaxKeys, s.cfg.KeyTTL)
	s.book.maxInFlight = s.inFlight
	s.faults = nil
	s.downUntil = time.Time{}
}
