package main

// Every use of package psp by these tests is in this file.

import (
	"net/http/httptest"
	"testing"

	"pixretry/psp"
)

// mustPSP serves a psp.Server with the default config on loopback and returns its URL and a
// function that counts its settlements by Idempotency-Key.
func mustPSP(tb testing.TB) (string, func() map[string]int) {
	tb.Helper()
	srv, err := psp.NewServer(psp.DefaultConfig())
	if err != nil {
		tb.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	tb.Cleanup(hs.Close)
	return hs.URL, func() map[string]int {
		n := map[string]int{}
		for _, s := range srv.Settlements() {
			n[s.IdempotencyKey]++
		}
		return n
	}
}
