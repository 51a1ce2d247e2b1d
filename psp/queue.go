package psp

import "time"

// queue holds the faults waiting for one Target, and the down window the last down fault
// consumed from it opened.
type queue struct {
	faults    []Fault
	downUntil time.Time // the end of the down window; zero or past when none is open
}

// next consumes the head of q at now, or returns the zero Fault if q is empty. A down fault
// opens q's down window.
func (q *queue) next(now time.Time) Fault {
	if len(q.faults) == 0 {
		return Fault{}
	}
	f := q.faults[0]
	q.faults = q.faults[1:]
	if f.Kind == kindDown {
		q.downUntil = now.Add(f.Duration)
	}
	return f
}

// queue is the queue of target's faults.
func (s *Server) queue(target string) *queue {
	if target == targetLookup {
		return &s.lookups
	}
	return &s.payments
}

// nextFault counts a request aimed at target in Stats and consumes the fault it draws: a
// down fault while a down window that closes it is open (nothing consumed), else the head of
// its queue, else the zero Fault. A payment fault's down window closes payments and lookups,
// a lookup fault's lookups only.
func (s *Server) nextFault(target string) Fault {
	now := s.lock()
	defer s.unlock()
	downUntil := s.payments.downUntil
	if target == targetLookup {
		s.book.stats.Lookups++
		downUntil = later(downUntil, s.lookups.downUntil)
	} else {
		s.book.stats.Requests++
	}
	if now.Before(downUntil) {
		return Down(downUntil.Sub(now))
	}
	return s.queue(target).next(now)
}

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
