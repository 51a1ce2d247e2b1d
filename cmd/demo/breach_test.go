package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
)

// answering returns h with the route method path answered by answer instead.
func answering(h http.Handler, method, path string, answer http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == method && r.URL.Path == path {
			answer(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// doubledLedger answers GET /_psp/settlements with every settlement of h's ledger listed
// twice.
func doubledLedger(h http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		var l struct {
			Count       int          `json:"count"`
			Settlements []settlement `json:"settlements"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &l); err != nil {
			panic(err)
		}
		l.Settlements = append(l.Settlements, l.Settlements...)
		l.Count = len(l.Settlements)
		json.NewEncoder(w).Encode(l)
	}
}

// forgetfulKeys is h behind a proxy that gives every payment request a key of its own, as a
// PSP without idempotency would treat it: a resend pays again.
func forgetfulKeys(h http.Handler) http.Handler {
	var n atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == paymentPath {
			r.Header.Set("Idempotency-Key", fmt.Sprintf("forgotten-%d", n.Add(1)))
		}
		h.ServeHTTP(w, r)
	})
}

// unmarkedReplays is h with the Idempotent-Replayed header taken off every answer.
func unmarkedReplays(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(unmarked{w}, r)
	})
}

// unmarked drops Idempotent-Replayed before the header goes out. Unwrap lets the PSP still
// hijack the connection (the down fault) through http.ResponseController.
type unmarked struct{ http.ResponseWriter }

func (u unmarked) WriteHeader(code int) {
	u.Header().Del("Idempotent-Replayed")
	u.ResponseWriter.WriteHeader(code)
}

func (u unmarked) Unwrap() http.ResponseWriter { return u.ResponseWriter }

// A PSP whose ledger or behaviour disagrees with what the scenarios must produce fails the
// demo: the error names each scenario that broke (0: the ledger as a whole), and the closing
// line is not printed.
func TestDemoReportsABrokenExpectation(t *testing.T) {
	tests := []struct {
		name string
		psp  func(h http.Handler) http.Handler
		want []int // scenarios named, in order; 0 for the ledger as a whole
	}{
		{
			name: "the ledger hides the settlements",
			psp: func(h http.Handler) http.Handler {
				return answering(h, http.MethodGet, "/_psp/settlements", func(w http.ResponseWriter, _ *http.Request) {
					fmt.Fprint(w, `{"count":0,"settlements":[]}`)
				})
			},
			want: []int{1, 2, 3, 0},
		},
		{
			name: "the ledger lists every settlement twice",
			psp: func(h http.Handler) http.Handler {
				return answering(h, http.MethodGet, "/_psp/settlements", doubledLedger(h))
			},
			want: []int{1, 2, 3, 0},
		},
		{
			name: "the balance never moves",
			psp: func(h http.Handler) http.Handler {
				return answering(h, http.MethodGet, "/_psp/balance", func(w http.ResponseWriter, _ *http.Request) {
					fmt.Fprint(w, `{"balance":"1000.00"}`)
				})
			},
			want: []int{1, 2, 3, 0},
		},
		{
			name: "faults are ignored",
			psp: func(h http.Handler) http.Handler {
				return answering(h, http.MethodPost, "/_psp/faults", func(w http.ResponseWriter, _ *http.Request) {
					w.WriteHeader(http.StatusNoContent)
				})
			},
			want: []int{2, 3, 5},
		},
		{
			name: "replays are not marked",
			psp:  unmarkedReplays,
			want: []int{3},
		},
		{
			name: "keys are forgotten, so a resend pays twice",
			psp:  forgetfulKeys,
			want: []int{1, 2, 3, 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				out, err := runDemo(t, tt.psp(mustPSP(t)), 1, false)
				if got, want := exitCode(err), 1; got != want {
					t.Fatalf("exitCode(demo()) = %d (error %v), want %d\noutput:\n%s", got, err, want, out)
				}
				var named []int
				for _, e := range joined(err) {
					x, ok := errors.AsType[*expectationError](e)
					if !ok {
						t.Fatalf("demo() error %v, want only *expectationError", e)
					}
					if !slices.Contains(named, x.Scenario) {
						named = append(named, x.Scenario)
					}
				}
				if diff := cmp.Diff(tt.want, named); diff != "" {
					t.Errorf("scenarios named mismatch (-want +got):\n%s\nerror:\n%v", diff, err)
				}
				if strings.Contains(out, "PSP recorded") {
					t.Errorf("output holds the closing line, want none after a failure:\n%s", out)
				}
			})
		})
	}
}
