package webhook

import (
	"slices"
	"time"
)

// The states of a delivery, its Delivery.State.
const (
	Queued    = "queued"    // waiting for a try, or in one
	Delivered = "delivered" // a try was answered 2xx
	Refused   = "refused"   // a try was answered with a status that is not retried: a 4xx but 429, or a 3xx
	GivenUp   = "given_up"  // its last try failed: no answer, a 5xx or a 429
	Dropped   = "dropped"   // the queue was full, and it was the oldest delivery waiting
)

// recordMax is the most deliveries the record keeps: the latest queued.
const recordMax = 1000

// Delivery is one delivery as the Sender's record keeps it. A duplicated delivery is recorded
// once per copy, both with its ID.
type Delivery struct {
	ID             string // "wh_" and 20 base-36 digits, the body's id
	EndToEndID     string
	IdempotencyKey string
	Status         string // the payment's: REALIZADO or NAO_REALIZADO
	State          string // Queued, Delivered, Refused, GivenUp or Dropped
	Attempts       []Attempt
}

// Attempt is one try of a delivery.
type Attempt struct {
	At      time.Time     // when it started
	Status  int           // the status of the answer; 0 for none
	Error   string        // why it got no answer; "" if it got one
	Elapsed time.Duration // from At to the end of the answer, or to the failure
}

// Stats counts what a Sender did since it was made or last Reset, and holds what it holds now.
// Each delivery, each copy of a duplicate counted apart, ends at most once: delivered (Sent),
// refused, given up or dropped.
type Stats struct {
	Sent       int64 // deliveries answered 2xx
	Retried    int64 // tries after a delivery's first
	Duplicated int64 // deliveries sent twice by a duplicate fault
	GivenUp    int64 // deliveries whose last try failed
	Refused    int64 // deliveries answered with a status that is not retried
	Dropped    int64 // deliveries dropped from a full queue
	Queued     int   // deliveries under way now, waiting or in a try
	Faults     int   // faults queued now
}

// Deliveries returns a copy of the record: the latest 1000 deliveries queued, oldest first,
// each with its tries so far.
func (s *Sender) Deliveries() []Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	record := make([]Delivery, len(s.record))
	for i, d := range s.record {
		record[i] = d.Delivery
		record[i].Attempts = slices.Clone(d.Attempts)
	}
	return record
}

// Stats returns the Sender's counts, taken at one instant.
func (s *Sender) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Queued, st.Faults = len(s.queued), len(s.faults)
	return st
}

// remember adds d to the record, and forgets the oldest beyond recordMax.
func (s *Sender) remember(d *delivery) {
	if len(s.record) == recordMax {
		s.record[0] = nil
		s.record = s.record[1:]
	}
	s.record = append(s.record, d)
}
