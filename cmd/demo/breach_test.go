package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
)

// answering is h with the route method path answered by answer instead.
func answering(h http.Handler, method, path, answer string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != method || r.URL.Path != path {
			h.ServeHTTP(w, r)
			return
		}
		if answer == "" {
			w.WriteHeader(http.StatusNoContent)
		}
		fmt.Fprint(w, answer)
	})
}

// forgetfulKeys is h behind a proxy that gives every payment request a key of its own, as a PSP
// without idempotency would treat it: a resend pays again.
func forgetfulKeys(h http.Handler) http.Handler {
	var n atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == psp.PaymentsPath {
			r.Header.Set("Idempotency-Key", fmt.Sprintf("forgotten-%d", n.Add(1)))
		}
		h.ServeHTTP(w, r)
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

// A PSP whose ledger or behaviour disagrees with what the scenarios must produce fails the demo.
// The error names each scenario that broke, or the ledger, and the closing line is not printed.
func TestDemoReportsABrokenPSP(t *testing.T) {
	tests := []struct {
		name string
		psp  func(h http.Handler) http.Handler
		want []string // what the error names, in order
	}{
		{"the ledger hides the settlements", func(h http.Handler) http.Handler {
			return answering(h, http.MethodGet, "/_psp/settlements", `{"count":0,"settlements":[]}`)
		}, []string{"scenario 1", "scenario 2", "scenario 3", "ledger"}},
		{"the balance never moves", func(h http.Handler) http.Handler {
			return answering(h, http.MethodGet, "/_psp/balance", `{"balance":"1000.00"}`)
		}, []string{"scenario 1", "scenario 2", "scenario 3", "ledger"}},
		{"faults are ignored", func(h http.Handler) http.Handler {
			return answering(h, http.MethodPost, "/_psp/faults", "")
		}, []string{"scenario 2", "scenario 3", "scenario 5"}},
		{"replays are not marked", func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(unmarked{w}, r) })
		}, []string{"scenario 3"}},
		{"keys are forgotten, so a resend pays twice", forgetfulKeys, []string{"scenario 1", "scenario 2", "scenario 3", "ledger"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				out, err := runDemo(t, mustPSP(t, tt.psp), 1, false)
				var named []string
				for _, line := range strings.Split(fmt.Sprint(err), "\n") {
					what, _, _ := strings.Cut(strings.TrimPrefix(line, "demo: "), " (")
					what, _, _ = strings.Cut(what, ":")
					if !slices.Contains(named, what) {
						named = append(named, what)
					}
				}
				if diff := cmp.Diff(tt.want, named); diff != "" {
					t.Errorf("demo() error names mismatch (-want +got):\n%s\nerror:\n%v", diff, err)
				}
				if strings.Contains(out, "PSP recorded") {
					t.Errorf("output holds the closing line, want none after a failure:\n%s", out)
				}
			})
		})
	}
}

// A PSP that stops answering fails the demo after controlTimeout instead of hanging it.
func TestDemoStopsWhenThePSPHangs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hang := func(http.Handler) http.Handler {
			return http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
		}
		p := mustPSP(t, hang)
		start := time.Now()
		_, err := runDemo(t, p, 1, false)
		if got, want := time.Since(start), controlTimeout+lateBy; !errors.Is(err, context.DeadlineExceeded) || got != want {
			t.Errorf("demo() = %v after %v, want %v after %v (the control timeout, then runDemo's wait)",
				err, got, context.DeadlineExceeded, want)
		}
	})
}
