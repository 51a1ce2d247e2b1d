package psp

import "slices"

// Faults returns a copy of the faults queued now, each queue in the order its requests will
// consume them: the payment faults first, then the lookup faults.
func (s *Server) Faults() []Fault {
	s.lock()
	defer s.unlock()
	return slices.Concat(s.payments.faults, s.lookups.faults)
}

// LatestSettlements returns a copy of the latest n settlements of the ledger, or of all of them
// if it holds fewer, in settlement order. Unlike Settlements, it copies no more than n,
// however large the ledger. n <= 0 returns none.
func (s *Server) LatestSettlements(n int) []Settlement {
	s.lock()
	defer s.unlock()
	tail := s.book.ledger[len(s.book.ledger)-min(max(n, 0), len(s.book.ledger)):]
	latest := make([]Settlement, len(tail))
	for i, st := range tail {
		latest[i] = *st
	}
	return latest
}
