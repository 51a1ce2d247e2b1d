package psp

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// checkCapacity reports a negative ServiceTime, Capacity or ShedRetryAfter.
func (c Config) checkCapacity() error {
	if c.ServiceTime < 0 {
		return fmt.Errorf("%w: negative service time %v", ErrInvalidConfig, c.ServiceTime)
	}
	if c.Capacity < 0 {
		return fmt.Errorf("%w: negative capacity %d", ErrInvalidConfig, c.Capacity)
	}
	if c.ShedRetryAfter < 0 {
		return fmt.Errorf("%w: negative shed Retry-After %v", ErrInvalidConfig, c.ShedRetryAfter)
	}
	return nil
}

// admit takes a processing slot for a payment request, or counts it as shed and reports false
// when Config.Capacity slots are taken.
func (s *Server) admit() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg.Capacity > 0 && s.inFlight >= s.cfg.Capacity {
		s.book.shed++
		return false
	}
	s.inFlight++
	s.book.maxInFlight = max(s.book.maxInFlight, s.inFlight)
	return true
}

// release gives back the slot admit took.
func (s *Server) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inFlight--
}

// shedAnswer is the 503 of a request refused for lack of capacity, with Retry-After if
// Config.ShedRetryAfter is set.
func (s *Server) shedAnswer() answer {
	f := fail(codeOverloaded, "the PSP is processing %d payments, its capacity; retry later", s.cfg.Capacity)
	if s.cfg.ShedRetryAfter > 0 {
		f.header = http.Header{"Retry-After": {strconv.FormatInt(wholeSeconds(s.cfg.ShedRetryAfter), 10)}}
	}
	return errorAnswer(f)
}

// serviceTime is how long a payment waits before its commit: Config.ServiceTime, plus the
// delay of a slow fault.
func (s *Server) serviceTime(f Fault) time.Duration {
	d := s.cfg.ServiceTime
	if f.Kind == FaultSlow {
		d += f.Duration
	}
	return d
}
