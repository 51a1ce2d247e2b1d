package psp

var ValidPixKey = validPixKey // the fuzz test reads the contract's rule for a chave from it

// TimerStopped reports whether the timer that ends s's pending payments is stopped, or was never
// set. It stops the timer.
func TimerStopped(s *Server) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.timer == nil || !s.timer.Stop()
}
