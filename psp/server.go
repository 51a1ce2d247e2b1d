// Package psp simulates a Pix PSP (payment service provider) for tests. It is a test double, not
// a payment system.
//
// A [Server] is an http.Handler that accepts payments at POST /v1/pix/payments. It keeps real state
// in memory: the answers stored by Idempotency-Key, a ledger of settlements and the payer's
// balance in cents. A completed key replays its stored answer byte for byte. A key still in flight
// answers 409, and a key reused for a different payment answers 422. Keys are scoped per bearer
// token and forgotten Config.KeyTTL after they complete. At most Config.MaxKeys are stored.
//
// A payment may be accepted first and end later, as real PSPs do: Config.CompleteAfter, a
// rejected range of valor, or a pending fault leave it pending (202 EM_PROCESSAMENTO, its valor
// held) until it is settled (REALIZADO) or rejected (NAO_REALIZADO, its valor released).
// Config.OnEnd hears of every payment's end.
//
// A status lookup, GET /v1/pix/payments?idempotency_key=KEY, tells what became of a key however
// long ago it was forgotten. It answers the receipt of the settlement made under the key, or 404
// when none was made. That 404 closes the key: no payment is ever made under it. The ledger
// keeps the latest Config.MaxSettlements settlements. Once it has dropped one, a lookup that
// finds nothing cannot prove that nothing was paid, and answers 410.
//
// A [Fault] is one misbehaviour, such as a 503 or a lost answer. [Server.Inject] queues faults.
// Each payment request consumes the next payment fault, and each lookup the next lookup fault.
//
// Every error answer, of the Server and of its control API, has a [Problem] body, made by
// [NewProblem].
//
// The Server keeps a journal of the latest requests it received, so that a test can ask what its
// client sent: [Server.Requests].
//
// Package pixretry/psp/control serves the same Server's faults, ledger and balance over HTTP,
// and command psp serves both on a real address. The HTTP contract is the OpenAPI document
// psp/control/openapi.json; docs/psp.md says why the double behaves as it does.
package psp

import (
	"net/http"
	"sync"
	"time"
)

// PaymentsPath is where payments are posted and looked up.
const PaymentsPath = "/v1/pix/payments"

// Server is the simulated PSP, an http.Handler serving PaymentsPath. Serve it in process
// (httptest, a recorder, an in-memory pipe) or on a real listener with http.Server. Make one
// with NewServer. It is safe for concurrent use.
type Server struct {
	cfg Config

	mu       sync.Mutex
	book     *book
	payments queue // the faults for payment requests (queue.go)
	lookups  queue // the faults for lookups
	inFlight int   // payment requests in processing (see admit)

	copies  sync.WaitGroup // the first copies of duplicated requests, until they commit
	journal *journal       // the latest requests received, under a mutex of its own (journal.go)

	closed    bool           // Close was called: nothing more ends or is reported
	reporting sync.WaitGroup // the calls of Config.OnEnd in progress (see unlock)
	timer     *time.Timer    // calls tick at the next pending payment's end (see arm); nil until one is
	wake      time.Time      // when timer is set to fire; zero for never
}

// NewServer returns a Server configured by cfg, or an error if cfg is invalid.
func NewServer(cfg Config) (*Server, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Server{cfg: cfg, book: newBook(cfg), journal: newJournal(cfg)}, nil
}

// ServeHTTP serves a payment request (POST) or a status lookup (GET). Another path gets 404,
// and another method 405 with Allow. The journal records every request (see Requests).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e := s.journal.open(s.arrival(r))
	var x exchange
	defer s.journal.close(e, &x) // also when a hang-up aborts the handler
	switch {
	case r.URL.Path != PaymentsPath:
		x.send(w, fail(codeNotFound, "no resource at %s", r.URL.Path).answer(), "")
	case r.Method == http.MethodPost:
		s.servePayment(w, r, &x)
	case r.Method == http.MethodGet:
		s.serveLookup(w, r, &x)
	default:
		f := fail(codeMethodNotAllowed, "%s takes GET and POST", PaymentsPath)
		f.header = http.Header{"Allow": {"GET, POST"}}
		x.send(w, f.answer(), "")
	}
}

// Inject queues faults, each in the queue of its Target. Each payment request consumes the
// next payment fault, and each lookup the next lookup fault, in arrival order. Other requests
// consume none. An invalid fault is a programming error, like a bad regexp for
// regexp.MustCompile: Inject then panics with the error of Fault.Validate and queues none.
func (s *Server) Inject(faults ...Fault) {
	for _, f := range faults {
		if err := f.Validate(); err != nil {
			panic(err)
		}
	}
	s.lock()
	defer s.unlock()
	for _, f := range faults {
		q := s.queue(f.Target)
		q.faults = append(q.faults, f)
	}
}

// ClearFaults empties both fault queues and ends every down window. The next request meets no
// fault.
func (s *Server) ClearFaults() {
	s.lock()
	defer s.unlock()
	s.payments, s.lookups = queue{}, queue{}
}

// Settlements returns a copy of the ledger, in settlement order. The ledger keeps the latest
// Config.MaxSettlements settlements.
func (s *Server) Settlements() []Settlement {
	s.lock()
	defer s.unlock()
	ledger := make([]Settlement, len(s.book.ledger))
	for i, st := range s.book.ledger {
		ledger[i] = *st
	}
	return ledger
}

// Wait returns once the first copy of every duplicated request (a duplicate fault) has committed.
// Those copies run in the background, with no handler to wait for. Call Wait after the last
// request's handler has returned.
func (s *Server) Wait() { s.copies.Wait() }

// Reset forgets every key and closed key, drops the pending payments (none ends or is
// reported), empties the ledger and both fault queues, ends every down window, restores the
// starting balance and starts Stats afresh. It empties the journal and its dropped count, but
// Seq goes on counting. It does not wait for requests in flight or duplicated copies. They
// finish against the state Reset discarded, so their settlements never appear in the new
// ledger, nor they in the new journal, nor are they reported. endToEndIds stay unique across
// Resets.
func (s *Server) Reset() {
	s.journal.reset()
	s.lock()
	defer s.unlock()
	ended := s.book.ended // payments that ended before the Reset are still reported
	s.book = newBook(s.cfg)
	s.book.ended = ended
	s.book.stats.MaxInFlight = s.inFlight
	s.payments, s.lookups = queue{}, queue{}
}

// Stats is a snapshot of a Server: the payer's balance and what the Server holds now, and what
// it has done since it was made or last Reset.
type Stats struct {
	BalanceCents int64 // the payer's balance now, in cents
	Requests     int64 // payment requests received, whatever their answer
	Lookups      int64 // status lookups received, whatever their answer
	Shed         int64 // payment requests refused with 503 overloaded
	Settled      int   // settlements in the ledger
	Dropped      int64 // settlements dropped from the front of the ledger (see Config.MaxSettlements)
	Keys         int   // Idempotency-Keys stored now, expired ones not yet forgotten included
	ClosedKeys   int   // closed keys held now: a lookup found no payment under them
	InFlight     int   // payment requests in processing now
	MaxInFlight  int   // the most payment requests in processing at once; a Reset starts it at InFlight
	Faults       int   // faults queued now, for payments and lookups
	Pending      int   // payments pending now: accepted, not yet ended
	Rejected     int64 // payments accepted, then rejected
}

// Stats returns a snapshot of the Server, taken at one instant.
func (s *Server) Stats() Stats {
	s.lock()
	defer s.unlock()
	st := s.book.stats
	st.BalanceCents = s.book.balance
	st.Settled, st.Keys, st.ClosedKeys = len(s.book.ledger), len(s.book.keys), len(s.book.closed)
	st.InFlight, st.Faults = s.inFlight, len(s.payments.faults)+len(s.lookups.faults)
	st.Pending = len(s.book.pending)
	return st
}
