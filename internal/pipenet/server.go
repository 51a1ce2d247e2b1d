package pipenet

import (
	"errors"
	"net/http"
)

// Server is a real net/http server listening on a pipenet Listener, with a client whose
// transport dials that Listener. It is the in-memory counterpart of httptest.Server.
type Server struct {
	// URL is the base URL the Client reaches the handler at ("http://pipe").
	URL string

	listener  *Listener
	server    *http.Server
	transport *http.Transport
	served    chan struct{}
}

// NewServer starts serving h and returns the Server. Close it when done.
func NewServer(h http.Handler) *Server {
	l := Listen()
	s := &Server{
		URL:       "http://pipe",
		listener:  l,
		server:    &http.Server{Handler: h},
		transport: &http.Transport{DialContext: l.Dial},
		served:    make(chan struct{}),
	}
	go func() {
		defer close(s.served)
		if err := s.server.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			panic("pipenet: serve: " + err.Error())
		}
	}()
	return s
}

// Client returns an http.Client whose requests reach the handler. Each call returns a new
// client sharing one transport (and so one pool of connections).
func (s *Server) Client() *http.Client {
	return &http.Client{Transport: s.transport}
}

// Transport returns the transport behind Client, for callers that build their own client.
func (s *Server) Transport() *http.Transport { return s.transport }

// Close stops the server, closes its connections and the client's idle ones, and waits until
// the serving goroutine has returned. Handlers still running (a handler that holds its answer,
// say) are not waited for: they end on their own.
func (s *Server) Close() {
	s.server.Close()
	s.transport.CloseIdleConnections()
	<-s.served
}
