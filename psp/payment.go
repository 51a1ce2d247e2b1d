package psp

import (
	"cmp"
	"context"
	"log/slog"
	"net/http"
	"time"
)

// servePayment is POST /v1/pix/payments, in the order of processing docs/psp.md gives.
func (s *Server) servePayment(w http.ResponseWriter, r *http.Request) {
	f := s.nextFault()
	switch f.Kind {
	case FaultReset, FaultDown:
		s.cfg.Logger.Info("psp: payment: connection closed", "fault", f.Kind)
		hangUp(w, true)
		return
	case FaultStatus, FaultRedirect:
		s.deliver(w, faultAnswer(f, answer{}), "", f)
		return
	}
	if !s.admit() {
		s.deliver(w, s.shedAnswer(), "", f)
		return
	}
	a, rawKey := s.process(w, r, f)
	s.release()
	s.deliver(w, a, rawKey, f)
}

// nextFault consumes the fault this payment request draws: a FaultDown while a down window is
// open (nothing consumed), else the head of the queue, else the zero Fault.
func (s *Server) nextFault() Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.book.requests++
	now := time.Now()
	if now.Before(s.downUntil) {
		return Down(s.downUntil.Sub(now))
	}
	if len(s.faults) == 0 {
		return Fault{}
	}
	f := s.faults[0]
	s.faults = s.faults[1:]
	if f.Kind == FaultDown {
		s.downUntil = now.Add(f.Duration)
	}
	return f
}

// process runs the checks and the commit. It returns the answer and the Idempotency-Key as
// sent ("" until it has been found valid).
func (s *Server) process(w http.ResponseWriter, r *http.Request, f Fault) (answer, string) {
	token, err := s.bearerToken(r.Header)
	if err != nil {
		return errorAnswer(err), ""
	}
	rawKey, key, err := idempotencyKey(r.Header)
	if err != nil {
		return errorAnswer(err), ""
	}
	p, err := readPayment(w, r)
	if err != nil {
		return errorAnswer(err), rawKey
	}
	return s.settle(scope{token, key}, p, f), rawKey
}

// readPayment reads and validates the body of a payment request.
func readPayment(w http.ResponseWriter, r *http.Request) (payment, error) {
	body, err := readJSONBody(w, r)
	if err != nil {
		return payment{}, err
	}
	return decodePayment(body)
}

// settle reserves the key, waits out the service time and a slow fault, and commits. A key
// already known answers without committing: 422 for a different payment, 409 while in flight,
// else the replay. A new key when the store is full answers 503 key_store_full.
func (s *Server) settle(sc scope, p payment, f Fault) answer {
	b, e, a := s.reserve(sc, p)
	if e == nil {
		return a
	}
	time.Sleep(s.serviceTime(f)) // not cut short by the client leaving: a real PSP would not know
	s.mu.Lock()
	defer s.mu.Unlock()
	return b.commit(e, time.Now().UTC(), s.cfg.ISPB)
}

// reserve puts sc in flight for p and returns the book to commit to with the new entry, or
// the answer instead (see book.reserve).
func (s *Server) reserve(sc scope, p payment) (*book, *entry, answer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, a := s.book.reserve(sc, p, time.Now())
	return s.book, e, a
}

// deliver writes a, or distorts it for a fault that acts after processing, or holds it for a
// late fault, or hangs up instead for a drop fault.
// rawKey, when not empty, is echoed.
func (s *Server) deliver(w http.ResponseWriter, a answer, rawKey string, f Fault) {
	s.cfg.Logger.LogAttrs(context.Background(), slog.LevelInfo, "psp: payment", slog.Int("status", a.status),
		slog.String("key", rawKey), slog.Bool("replayed", a.replayed), slog.String("fault", string(cmp.Or(f.Kind, "none"))))
	if misdeliver(w, a, rawKey, f) {
		return
	}
	switch f.Kind {
	case FaultLate:
		time.Sleep(f.Duration) // not cut short by the client leaving: the answer is written late or lost
	case FaultDrop:
		hangUp(w, false)
		return
	}
	a.write(w, rawKey)
}

// hangUp closes the request's connection without an answer: with a TCP reset (RST) if reset
// is true and the connection has a SetLinger method (a *net.TCPConn has), else with a plain
// close (the client reads EOF). If the connection cannot be taken over (HTTP/2, a recorder), it
// aborts the handler, which net/http turns into a closed connection or stream.
func hangUp(w http.ResponseWriter, reset bool) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tcp, ok := conn.(lingerer); ok && reset {
		tcp.SetLinger(0) // close with RST instead of FIN
	}
	conn.Close()
}

// lingerer is a connection whose close can be made a reset, such as a *net.TCPConn.
type lingerer interface{ SetLinger(sec int) error }
