package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"pixretry/psp"
)

// shutdownGrace is how long stop lets in-flight requests (a held late answer) finish.
const shutdownGrace = 2 * time.Second

// localPSP is the psp simulator served with its control API on a loopback port, reached by
// the demo exactly as an external cmd/psp would be.
type localPSP struct {
	URL    string // http://127.0.0.1:PORT
	server *http.Server
	served chan error
}

// startLocalPSP starts a PSP that accepts token, on 127.0.0.1 at a port the system picks.
// The PSP logs nothing (psp's default): the demo's output is the client's view. Stop it when
// done.
func startLocalPSP(token string) (*localPSP, error) {
	cfg := psp.DefaultConfig()
	cfg.Tokens = []string{token}
	cfg.Control = true
	srv, err := psp.NewServer(cfg)
	if err != nil {
		return nil, fmt.Errorf("demo: starting the in-process PSP: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("demo: starting the in-process PSP: %w", err)
	}
	l := &localPSP{
		URL:    "http://" + ln.Addr().String(),
		server: &http.Server{Handler: srv},
		served: make(chan error, 1),
	}
	go func() { l.served <- l.server.Serve(ln) }()
	return l, nil
}

// stop shuts the PSP down, letting in-flight requests finish for up to shutdownGrace, and
// waits until it has stopped serving.
func (l *localPSP) stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err := l.server.Shutdown(ctx)
	err = errors.Join(err, l.server.Close()) // cuts what the grace left running, if anything
	if served := <-l.served; !errors.Is(served, http.ErrServerClosed) {
		err = errors.Join(err, served)
	}
	if err != nil {
		return fmt.Errorf("demo: stopping the in-process PSP: %w", err)
	}
	return nil
}
