package psp

import (
	"cmp"
	"context"
	"log/slog"
	"net/http"
	"time"
)

// servePayment is POST /v1/pix/payments, in the order of processing the OpenAPI document gives.
// It notes in x the fault it meets, the body it reads and the answer it writes.
func (s *Server) servePayment(w http.ResponseWriter, r *http.Request, x *exchange) {
	x.fault = s.nextFault(targetPayment)
	switch f := x.fault; {
	case f.Kind == kindReset || f.Kind == kindDown:
		s.cfg.Logger.Info("psp: payment: connection closed", "fault", f.Kind)
		hangUp(w, true)
	case f.Kind == kindStatus || f.Kind == kindRedirect:
		s.deliver(w, faultAnswer(f, answer{}), "", "", x)
	case !s.admit():
		s.deliver(w, s.shedAnswer(), "", "", x)
	default:
		a, rawKey, key := s.process(w, r, x)
		s.release()
		s.deliver(w, a, rawKey, key, x)
	}
}

// admit takes a processing slot for a payment request, or counts it as shed and reports false
// when Config.Capacity slots are taken.
func (s *Server) admit() bool {
	s.lock()
	defer s.unlock()
	if s.cfg.Capacity > 0 && s.inFlight >= s.cfg.Capacity {
		s.book.stats.Shed++
		return false
	}
	s.inFlight++
	s.book.stats.MaxInFlight = max(s.book.stats.MaxInFlight, s.inFlight)
	return true
}

// release gives back the slot admit took.
func (s *Server) release() {
	s.lock()
	defer s.unlock()
	s.inFlight--
}

// shedAnswer is the 503 of a request refused for lack of capacity, with Retry-After if
// Config.ShedRetryAfter is set.
func (s *Server) shedAnswer() answer {
	f := fail(codeOverloaded, "the PSP is processing %d payments, its capacity; retry later", s.cfg.Capacity)
	if s.cfg.ShedRetryAfter > 0 {
		f.header = retryAfter(s.cfg.ShedRetryAfter)
	}
	return f.answer()
}

// process runs the checks and the commit, under the fault x met, and notes the body it reads in
// x. It returns the answer, the Idempotency-Key as sent and the key it means (both "" until it
// has been found valid).
func (s *Server) process(w http.ResponseWriter, r *http.Request, x *exchange) (a answer, rawKey, key string) {
	token, f := s.bearerToken(r.Header)
	if f != nil {
		return f.answer(), "", ""
	}
	rawKey, key, f = idempotencyKey(r.Header)
	if f != nil {
		return f.answer(), "", ""
	}
	p, body, f := readPayment(w, r)
	x.payload = body
	if f != nil {
		return f.answer(), rawKey, key
	}
	return s.settle(scope{token, key}, p, givenEndToEndID(r.Context()), x.fault), rawKey, key
}

// settle reserves the key for p, with the endToEndId id its front end handed over ("" for
// none), waits out the service time and a slow fault, and commits under the fault f. A key
// already known answers without committing: 422 for a different payment, 409 while in flight,
// else the replay, with the key's first endToEndId. A new key when the store is full answers
// 503 key_store_full. A duplicate fault first reserves the key for a copy of the request,
// which commits in the background.
func (s *Server) settle(sc scope, p payment, id string, f Fault) answer {
	if f.Kind == kindDuplicate {
		if first, _ := s.reserve(sc, p, id); first != nil {
			s.copies.Go(func() { first(f.Duration, Fault{}) }) // its answer goes nowhere
		}
	}
	commit, a := s.reserve(sc, p, id)
	if commit == nil {
		return a
	}
	if f.Kind == kindSlow {
		return commit(f.Duration, f)
	}
	return commit(0, f)
}

// reserve takes sc's key for p, with the endToEndId id its front end handed over ("" for
// none), and returns the commit that ends its processing, or nil and the answer if the key is
// known or the store is full. The commit waits out the service time and extra, then accepts
// the payment, under the fault f its request met, or refuses it.
func (s *Server) reserve(sc scope, p payment, id string) (commit func(extra time.Duration, f Fault) answer, a answer) {
	now := s.lock()
	defer s.unlock()
	b := s.book // the book to commit to, even if a Reset replaces it meanwhile
	e, a := b.reserve(sc, p, now)
	if e == nil {
		return nil, a
	}
	e.p.EndToEndID = id
	return func(extra time.Duration, f Fault) answer {
		time.Sleep(s.cfg.ServiceTime + extra) // not cut short by the client leaving: a real PSP would not know
		now := s.lock()
		defer s.unlock() // then reports a settlement to Config.OnEnd
		return b.commit(e, now.UTC(), s.cfg.ISPB, f)
	}, answer{}
}

// deliver logs the payment's answer a, then sends it under the fault x met. rawKey, when not
// empty, is echoed. The record holds key, the key rawKey means, as the ledger and the journal's
// Key know it, and rawKey as key_header only if it differs, as `"abc"` does from abc.
func (s *Server) deliver(w http.ResponseWriter, a answer, rawKey, key string, x *exchange) {
	attrs := []slog.Attr{slog.Int("status", a.status), slog.String("key", key)}
	if rawKey != key {
		attrs = append(attrs, slog.String("key_header", rawKey))
	}
	attrs = append(attrs, slog.Bool("replayed", a.replayed), slog.String("fault", string(cmp.Or(x.fault.Kind, "none"))))
	s.cfg.Logger.LogAttrs(context.Background(), slog.LevelInfo, "psp: payment", attrs...)
	x.send(w, a, rawKey)
}

// send writes a, or distorts it for a fault x met that acts after processing, or holds it for a
// late fault, or hangs up instead for a drop fault, and notes in x the status it writes. rawKey,
// when not empty, is echoed.
func (x *exchange) send(w http.ResponseWriter, a answer, rawKey string) {
	f := x.fault
	if f.Kind == kindCommitStatus {
		a = faultAnswer(f, a)
	}
	if f.Kind != kindDrop { // a drop answers nothing: the status stays 0
		x.status, x.replayed = a.status, a.replayed
	}
	switch f.Kind {
	case kindBadBody:
		misdeliver(w, a, rawKey, f.Breach, f.Member)
	case kindLate:
		time.Sleep(f.Duration) // not cut short by the client leaving: the answer is written late or lost
		a.write(w, rawKey)
	case kindDrop:
		hangUp(w, false)
	default:
		a.write(w, rawKey)
	}
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
	if tcp, ok := conn.(interface{ SetLinger(sec int) error }); ok && reset {
		tcp.SetLinger(0) // close with RST instead of FIN
	}
	conn.Close()
}
