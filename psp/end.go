package psp

import "time"

// The statuses of a payment, the status member of its answers.
const (
	statusSettled  = "REALIZADO"     // settled: the ledger holds it
	statusRejected = "NAO_REALIZADO" // accepted, then rejected: nothing was paid
)

// Ended is a payment that has reached its terminal status, as Config.OnEnd receives it.
type Ended struct {
	Token          string    // the bearer token that paid
	IdempotencyKey string    // the key, unquoted
	EndToEndID     string    // the endToEndId of every answer about the payment
	AmountCents    int64     // valor, in cents
	PixKey         string    // chave
	Description    string    // infoPagador; "" if absent
	Status         string    // "REALIZADO" (settled) or "NAO_REALIZADO" (rejected: nothing was paid)
	At             time.Time // when it ended, in UTC: the horario of its answers from then on
	// Reason is why a payment NAO_REALIZADO was rejected, the motivo of its lookup's answer,
	// such as "rejected by a pending fault". It is "" for a payment REALIZADO.
	Reason string
}

// end records that p has ended with status at its SettledAt, for Config.OnEnd, if anyone
// listens. A rejected payment was accepted pending, and a pending key's entry stays in the
// store until it ends: its course says why.
func (b *book) end(p *Settlement, status string) {
	if !b.reports {
		return
	}
	ended := Ended{Token: p.Token, IdempotencyKey: p.IdempotencyKey, EndToEndID: p.EndToEndID,
		AmountCents: p.AmountCents, PixKey: p.PixKey, Description: p.Description, Status: status, At: p.SettledAt}
	if status == statusRejected {
		ended.Reason = b.keys[p.scope()].end.motivo
	}
	b.ended = append(b.ended, ended)
}

// unlock sets the timer for the next pending payment's end (arm), unlocks the Server, then
// reports to Config.OnEnd the payments of its book that ended while it was locked, unless it
// is closed. A book that a Reset discarded reports nothing.
func (s *Server) unlock() {
	s.arm()
	ended := s.book.ended
	s.book.ended = nil
	if len(ended) > 0 && !s.closed {
		s.reporting.Add(1) // under the lock, before Close can wait
		defer s.reporting.Done()
	} else {
		ended = nil
	}
	s.mu.Unlock()
	for _, e := range ended {
		s.cfg.OnEnd(e)
	}
}

// Close stops the timer that ends pending payments, and the reports: once it returns, no
// payment ends and Config.OnEnd is not called again. It waits for the calls in progress, so
// OnEnd must not call it. The Server still answers requests, a pending payment's with 202.
// Call it from the testing/synctest bubble that made the Server's first pending payment, if
// any: the timer belongs to it. Closing twice is harmless.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	s.unlock() // stops the timer
	s.reporting.Wait()
}
