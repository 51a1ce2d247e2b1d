package psp

import "net/http"

// controlStatsPath answers the Server's Stats as JSON.
const controlStatsPath = "/_psp/stats"

// Stats counts what a Server has done since it was made or last Reset.
type Stats struct {
	// Requests is the number of payment requests received, whatever their answer (a request
	// refused by a fault or shed included).
	Requests int64 `json:"requests"`
	// Shed is the number of payment requests refused with 503 for lack of capacity.
	Shed int64 `json:"shed"`
	// Settled is the number of settlements in the ledger.
	Settled int `json:"settled"`
	// Dropped is the number of settlements dropped from the front of the ledger to keep it
	// within Config.MaxKeys.
	Dropped int64 `json:"dropped"`
	// Keys is the number of Idempotency-Keys stored now, in flight or committed, expired ones
	// not yet forgotten included. It is at most Config.MaxKeys.
	Keys int `json:"keys"`
	// InFlight is the number of payment requests in processing now.
	InFlight int `json:"in_flight"`
	// MaxInFlight is the most payment requests that were in processing at once. A Reset starts
	// it at InFlight.
	MaxInFlight int `json:"max_in_flight"`
}

// Stats returns the counters since the Server was made or last Reset.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{
		Requests:    s.book.requests,
		Shed:        s.book.shed,
		Settled:     len(s.book.ledger),
		Dropped:     s.book.dropped,
		Keys:        len(s.book.keys),
		InFlight:    s.inFlight,
		MaxInFlight: s.book.maxInFlight,
	}
}

func (s *Server) getStats(w http.ResponseWriter, _ *http.Request) {
	jsonAnswer(http.StatusOK, jsonContentType, s.Stats()).write(w, "")
}
