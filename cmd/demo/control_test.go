package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"pixretry/internal/pipenet"
	"pixretry/psp"
)

// When the PSP cannot be driven, the demo stops with an error that says which control call
// failed and how; it is not an expectation the PSP broke, and nothing is checked.
func TestDemoStopsWhenThePSPCannotBeDriven(t *testing.T) {
	abort := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", "100")
		fmt.Fprint(w, `{"bala`)
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // the connection closes 94 bytes short
	}
	tests := []struct {
		name string
		psp  func(h http.Handler) http.Handler
		want string // in the error
	}{
		{
			name: "no control API",
			psp: func(http.Handler) http.Handler {
				cfg := psp.DefaultConfig() // Control off
				srv, err := psp.NewServer(cfg)
				if err != nil {
					panic(err)
				}
				return srv
			},
			want: `demo: POST /_psp/reset: status 404, want 204 (is this a cmd/psp with its control API?): {`,
		},
		{
			name: "balance not JSON",
			psp: func(h http.Handler) http.Handler {
				return answering(h, http.MethodGet, "/_psp/balance", func(w http.ResponseWriter, _ *http.Request) {
					fmt.Fprint(w, `{"balance":850}`)
				})
			},
			want: "demo: GET /_psp/balance: decoding the answer: json: cannot unmarshal number",
		},
		{
			name: "balance not an amount",
			psp: func(h http.Handler) http.Handler {
				return answering(h, http.MethodGet, "/_psp/balance", func(w http.ResponseWriter, _ *http.Request) {
					fmt.Fprint(w, `{"balance":"850"}`)
				})
			},
			want: `demo: GET /_psp/balance: demo: amount "850" is not of the form 123.45`,
		},
		{
			name: "balance cut short",
			psp: func(h http.Handler) http.Handler {
				return answering(h, http.MethodGet, "/_psp/balance", abort)
			},
			want: "demo: GET /_psp/balance: reading the answer: unexpected EOF",
		},
		{
			name: "ledger count disagrees with its list",
			psp: func(h http.Handler) http.Handler {
				return answering(h, http.MethodGet, "/_psp/settlements", func(w http.ResponseWriter, _ *http.Request) {
					fmt.Fprint(w, `{"count":2,"settlements":[]}`)
				})
			},
			want: "demo: GET /_psp/settlements: count 2, but 0 settlements listed",
		},
		{
			name: "ledger not JSON",
			psp: func(h http.Handler) http.Handler {
				return answering(h, http.MethodGet, "/_psp/settlements", func(w http.ResponseWriter, _ *http.Request) {
					fmt.Fprint(w, `[]`)
				})
			},
			want: "demo: GET /_psp/settlements: decoding the answer: json: cannot unmarshal array",
		},
		{
			name: "faults refused",
			psp: func(h http.Handler) http.Handler {
				return answering(h, http.MethodPost, "/_psp/faults", func(w http.ResponseWriter, _ *http.Request) {
					http.Error(w, "no faults today", http.StatusBadRequest)
				})
			},
			want: "demo: scenario 2 (two 503 in a row, then success on the third attempt): " +
				"demo: POST /_psp/faults: status 400, want 204 (is this a cmd/psp with its control API?): no faults today",
		},
		{
			name: "faults cannot be cleared",
			psp: func(h http.Handler) http.Handler {
				return answering(h, http.MethodDelete, "/_psp/faults", func(w http.ResponseWriter, _ *http.Request) {
					w.WriteHeader(http.StatusOK)
				})
			},
			want: "demo: scenario 1 (the PSP answers on the first attempt): " +
				"demo: DELETE /_psp/faults: status 200, want 204 (is this a cmd/psp with its control API?): ",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				out, err := runDemo(t, tt.psp(mustPSP(t)), 1, false)
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("demo() error = %v, want one containing %q", err, tt.want)
				}
				if _, ok := errors.AsType[*expectationError](err); ok {
					t.Errorf("demo() error = %v, want no *expectationError: nothing was checked", err)
				}
				if strings.Contains(out, "PSP recorded") {
					t.Errorf("output holds the closing line:\n%s", out)
				}
			})
		})
	}
}

// Every control call checks the status it gets, whichever it is: a 204 where a body is due
// (or the reverse) is refused.
func TestControlChecksEachStatus(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := pipenet.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				w.WriteHeader(http.StatusNoContent)
				return
			}
			fmt.Fprint(w, `{}`) // 200 where 204 is due
		}))
		defer srv.Close()
		c := control{baseURL: srv.URL, token: "t", client: srv.Client()}
		ctx := t.Context()
		if _, err := c.balanceCents(ctx); err == nil {
			t.Error("balanceCents() error = nil, want one for a 204")
		}
		if _, err := c.settlements(ctx); err == nil {
			t.Error("settlements() error = nil, want one for a 204")
		}
		for name, call := range map[string]func(context.Context) error{
			"reset": c.reset, "clearFaults": c.clearFaults,
			"inject": func(ctx context.Context) error { return c.inject(ctx, fault{Kind: "drop"}) },
		} {
			if err := call(ctx); err == nil {
				t.Errorf("%s() error = nil, want one for a 200", name)
			}
		}
	})
}

// Control calls carry the token, and a JSON body only when they send one.
func TestControlRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var got []string
		srv := pipenet.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			buf := new(strings.Builder)
			fmt.Fprintf(buf, "%s %s auth=%q type=%q len=%d", r.Method, r.URL.Path,
				r.Header.Get("Authorization"), r.Header.Get("Content-Type"), r.ContentLength)
			got = append(got, buf.String())
			w.WriteHeader(http.StatusNoContent)
		}))
		defer srv.Close()
		c := control{baseURL: srv.URL, token: "secret", client: srv.Client()}
		if err := c.inject(t.Context(), fault{Kind: "status", Status: 503}, fault{Kind: "late", DelayMS: 600}); err != nil {
			t.Fatalf("inject() error = %v", err)
		}
		if err := c.reset(t.Context()); err != nil {
			t.Fatalf("reset() error = %v", err)
		}
		body := `{"faults":[{"kind":"status","status":503},{"kind":"late","delay_ms":600}]}`
		want := []string{
			fmt.Sprintf(`POST /_psp/faults auth="Bearer secret" type="application/json" len=%d`, len(body)),
			`POST /_psp/reset auth="Bearer secret" type="" len=0`,
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("requests =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

// A PSP that stops answering fails the control call after controlTimeout (5 s) instead of
// hanging the demo.
func TestControlCallsTimeOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		srv := pipenet.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			<-release
		}))
		defer srv.Close()
		defer close(release)
		c := control{baseURL: srv.URL, token: "t", client: srv.Client()}
		start := time.Now()
		err := c.reset(t.Context())
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("reset() error = %v, want one wrapping context.DeadlineExceeded", err)
		}
		if got, want := time.Since(start), 5*time.Second; got != want {
			t.Errorf("reset() gave up after %v, want %v", got, want)
		}
	})
}

// A PSP that cannot be reached, or a base URL that cannot make a request, stops the demo at
// its first control call.
func TestDemoStopsWhenThePSPIsUnreachable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := pipenet.NewServer(http.NotFoundHandler())
		srv.Close()
		var out strings.Builder
		err := demo(t.Context(), target{BaseURL: srv.URL, Token: "t", Client: srv.Client(), Seed: 1, Out: &out})
		if !errors.Is(err, pipenet.ErrClosed) {
			t.Errorf("demo() error = %v, want one wrapping pipenet.ErrClosed", err)
		}
		err = demo(t.Context(), target{BaseURL: "http://[::1", Token: "t", Client: srv.Client(), Seed: 1, Out: &out})
		if want := `demo: POST /_psp/reset: parse "http://[::1/_psp/reset"`; err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("demo() error = %v, want one starting %q", err, want)
		}
		if out.Len() != 0 {
			t.Errorf("output = %q, want nothing", out.String())
		}
	})
}

// The caller's cancellation (Ctrl-C) stops the demo mid-scenario with the context's error,
// not with a verdict on the PSP.
func TestDemoStopsWhenInterrupted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := pipenet.NewServer(mustPSP(t))
		defer srv.Close()
		// Scenario 3's first attempt runs into this deadline before its own 300 ms timeout.
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel()
		var out strings.Builder
		err := demo(ctx, target{BaseURL: srv.URL, Token: psp.DefaultToken, Client: srv.Client(), Seed: 1, Out: &out})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("demo() error = %v, want one wrapping context.DeadlineExceeded", err)
		}
		if want := "demo: scenario 3 ("; !strings.HasPrefix(err.Error(), want) {
			t.Errorf("demo() error = %v, want it to start %q", err, want)
		}
		if _, ok := errors.AsType[*expectationError](err); ok {
			t.Errorf("demo() error = %v, want no *expectationError", err)
		}
		time.Sleep(lateBy) // let the PSP's held answer finish inside the bubble
	})
}
