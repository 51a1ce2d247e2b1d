package main

// The PSP these tests pay: a psp.Server on loopback.

import (
	"net/http/httptest"
	"testing"

	"pixretry/psp"
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
	srv, err := psp.NewServer(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	tb.Cleanup(hs.Close)
	return srv, hs.URL
}
