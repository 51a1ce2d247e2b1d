package main

// The PSP these tests pay: a psp.Server on loopback, speaking its own API or, behind a front
// end, Efí's or Open Finance's.

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"pixretry/psp"
	efipsp "pixretry/psp/efi"
	ofpsp "pixretry/psp/openfinance"
)

// mustPSP serves a psp.Server with the default config on loopback and returns its URL and a
// function that counts its settlements by Idempotency-Key.
func mustPSP(tb testing.TB) (string, func() map[string]int) {
	tb.Helper()
	srv, url := mustServer(tb, psp.DefaultConfig())
	return url, func() map[string]int {
		n := map[string]int{}
		for _, s := range srv.Settlements() {
			n[s.IdempotencyKey]++
		}
		return n
	}
}

// mustServer serves a psp.Server configured by cfg on loopback until the test ends, and
// returns it and its URL.
func mustServer(tb testing.TB, cfg psp.Config) (*psp.Server, string) {
	tb.Helper()
	return mustServerBehind(tb, cfg, nil)
}

// A front is the handler that serves a dialect's API in front of a psp.Server.
type front func(testing.TB, *psp.Server) http.Handler

// mustServerBehind is mustServer with the handler of front served in the Server's place, or
// the Server itself for a nil front.
func mustServerBehind(tb testing.TB, cfg psp.Config, f front) (*psp.Server, string) {
	tb.Helper()
	srv, err := psp.NewServer(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	var h http.Handler = srv
	if f != nil {
		h = f(tb, srv)
	}
	hs := httptest.NewServer(h)
	tb.Cleanup(hs.Close)
	return srv, hs.URL
}

// efiFront serves Efí's payouts (psp/efi).
func efiFront(_ testing.TB, srv *psp.Server) http.Handler { return efipsp.NewHandler(srv) }

// openFinanceFront serves Open Finance payments v4 (psp/openfinance) configured by cfg, and
// its keys at their documented paths, as cmd/psp does. It stores the front end in *sandbox,
// if not nil.
func openFinanceFront(cfg ofpsp.Config, sandbox **ofpsp.Server) front {
	return func(tb testing.TB, srv *psp.Server) http.Handler {
		of, err := ofpsp.New(srv, cfg)
		if err != nil {
			tb.Fatal(err)
		}
		if sandbox != nil {
			*sandbox = of
		}
		mux := http.NewServeMux()
		mux.Handle("/_psp/openfinance/", of.Keys())
		mux.Handle("/", of)
		return mux
	}
}

// counted is h with its requests counted by what they ask: their method and path, each
// segment of 32 characters or more, an id or a key in every dialect, read as {id}. So
// "PUT /v2/gn/pix/{id}" counts Efí's payouts.
type counted struct {
	h  http.Handler
	mu sync.Mutex
	n  map[string]int
}

func (c *counted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	segments := strings.Split(r.URL.Path, "/")
	for i, s := range segments {
		if len(s) >= 32 {
			segments[i] = "{id}"
		}
	}
	c.mu.Lock()
	c.n[r.Method+" "+strings.Join(segments, "/")]++
	c.mu.Unlock()
	c.h.ServeHTTP(w, r)
}

// counts returns the counts so far.
func (c *counted) counts() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := make(map[string]int, len(c.n))
	for k, v := range c.n {
		n[k] = v
	}
	return n
}

// counting is f with the requests counted in *c.
func counting(f front, c **counted) front {
	return func(tb testing.TB, srv *psp.Server) http.Handler {
		*c = &counted{h: f(tb, srv), n: map[string]int{}}
		return *c
	}
}
