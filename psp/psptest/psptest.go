// Package psptest joins the PSP double and a payment client in one process, with no socket
// between them: a psp.Server served by a real net/http server over in-memory pipes
// (net.Pipe), and pix.Clients whose real net/http transports dial those pipes. It is to this
// module what net/http/httptest is to a handler.
//
// Loopback sockets are not durably blocking inside a testing/synctest bubble, so a client and a
// server talking over 127.0.0.1 make a bubble hang; pipes let virtual time advance. Make the
// Server inside the bubble that uses it, and Close it before the bubble ends: Close waits for
// every answer the double still holds (a slow or late fault), which in virtual time costs
// nothing. A Server works outside a bubble too, in real time.
//
// A Gateway in front of the double answers some requests itself, as a proxy would.
//
// The property suite, the herd report, the demo's tests and pix's tests build their runs on it.
package psptest

import (
	"errors"
	"net/http"
	"sync"

	"pixretry/internal/pipenet"
	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

// ErrClosed is the error of a request that reaches a Server being closed. Its handler answers
// 503 without passing the request on.
var ErrClosed = errors.New("psptest: server closed")

// Server is a psp.Server served over in-memory pipes, optionally behind a handler of the
// caller's (a recorder, a Gateway, the control API). Its methods are safe for concurrent use.
type Server struct {
	// Server is the double: Inject faults, read Stats and Settlements through it.
	*psp.Server
	// URL is the base URL at which Client and HTTPClient reach the double.
	URL string
	// Token is the double's first configured token, the one Client uses.
	Token string

	pipe *pipenet.Server

	mu         sync.Mutex
	closed     bool
	handlers   sync.WaitGroup    // every handler still running
	transports []*http.Transport // the pix.Clients' own, made by Client
}

// NewServer starts the double configured by cfg (psp.DefaultConfig is a start) and serves it.
// It fails as psp.NewServer does, or if cfg has no token.
func NewServer(cfg psp.Config) (*Server, error) {
	return NewServerBehind(cfg, nil)
}

// NewServerBehind is NewServer with front(double) served in the double's place: the handler
// every request reaches first, which passes on to the double what it chooses. A nil front
// serves the double itself.
func NewServerBehind(cfg psp.Config, front func(*psp.Server) http.Handler) (*Server, error) {
	if len(cfg.Tokens) == 0 {
		return nil, errors.New("psptest: the double needs a token (psp.Config.Tokens)")
	}
	double, err := psp.NewServer(cfg)
	if err != nil {
		return nil, err
	}
	var h http.Handler = double
	if front != nil {
		h = front(double)
	}
	s := &Server{Server: double, Token: cfg.Tokens[0]}
	s.pipe = pipenet.NewServer(s.counted(h))
	s.URL = s.pipe.URL
	return s, nil
}

// counted is h with every call counted in s.handlers, so that Close can wait for them.
func (s *Server) counted(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			http.Error(w, ErrClosed.Error(), http.StatusServiceUnavailable)
			return
		}
		s.handlers.Add(1)
		s.mu.Unlock()
		defer s.handlers.Done()
		h.ServeHTTP(w, r)
	})
}

// Transport returns the transport of HTTPClient: every client made by HTTPClient shares its
// pool of connections. Clone it for a pool of one's own, or to dial through a dialer of one's
// own that wraps its DialContext.
func (s *Server) Transport() *http.Transport { return s.pipe.Transport() }

// HTTPClient returns an http.Client that reaches the double. Clients made by HTTPClient share
// one pool of connections.
func (s *Server) HTTPClient() *http.Client { return s.pipe.Client() }

// Client returns a pix.Client of the double: its BaseURL, its first token, policy p, and an
// http.Client with a pool of connections of its own, closed by Close. Set any other field
// before the first call.
func (s *Server) Client(p retry.Policy) *pix.Client {
	t := s.pipe.Transport().Clone()
	s.mu.Lock()
	s.transports = append(s.transports, t)
	s.mu.Unlock()
	return &pix.Client{BaseURL: s.URL, Token: s.Token, Policy: p, HTTPClient: &http.Client{Transport: t}}
}

// Close stops serving and closes the pipes, then waits until every handler has returned (a
// slow or late fault holds its answer past its client) and every duplicated request's first
// copy has committed (psp.Server.Wait), and closes the double: its pending payments end no
// more (psp.Server.Close). Requests that arrive meanwhile get 503 (ErrClosed).
// Inside a bubble the wait is virtual. It closes the idle connections of every client it made,
// so that no goroutine of theirs is left behind. Closing twice is harmless.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	transports := s.transports
	s.mu.Unlock()
	s.pipe.Close()
	for _, t := range transports {
		t.CloseIdleConnections()
	}
	s.handlers.Wait()
	s.Server.Wait()
	s.Server.Close()
}
