package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"pixretry/internal/cmdline"
	"pixretry/psp"
	"pixretry/psp/control"
)

// Against an external PSP that speaks another dialect than -dialect, the demo stops before it
// resets the PSP or pays, and names both dialects.
func TestDemoRefusesAPSPOfAnotherDialect(t *testing.T) {
	for _, asked := range dialects {
		for _, served := range dialects {
			if asked == served {
				continue
			}
			t.Run(asked.Name+" against "+served.Name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					p := mustPSPIn(t, served)
					p.Inject(psp.Status(503)) // a reset would clear it
					out, err := runDemoIn(t, asked, p, 1, true)
					want := fmt.Sprintf("demo: -dialect %s, but the PSP at %s speaks %s: start it with psp -dialect %[1]s, "+
						"or run the demo with -dialect %[3]s", asked.Name, p.URL, served.Name)
					if got := fmt.Sprint(err); got != want {
						t.Errorf("demo() error = %q, want %q", got, want)
					}
					if st := p.Stats(); out != "" || st.Faults != 1 || st.Requests != 0 || st.Keys != 0 {
						t.Errorf("output %q, PSP stats %+v; want no output, the fault still queued, no payment and no key", out, st)
					}
				})
			})
		}
	}
}

// A PSP whose payment paths answer no DELETE with 405 speaks none of the dialects.
func TestDemoRefusesAPSPOfNoDialect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		deaf := func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodDelete {
					http.NotFound(w, r)
					return
				}
				h.ServeHTTP(w, r)
			})
		}
		p := mustPSP(t, deaf)
		_, err := runDemo(t, p, 1, true)
		want := "demo: -dialect pix, but the PSP at " + p.URL + " speaks none of pix, efi, openfinance: no DELETE of their payment paths answered 405"
		if got := fmt.Sprint(err); got != want {
			t.Errorf("demo() error = %q, want %q", got, want)
		}
	})
}

// The probe of an external PSP that stops answering fails the demo after controlTimeout.
func TestDemoStopsWhenAnExternalPSPHangs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hang := func(http.Handler) http.Handler {
			return http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
		}
		p := mustPSP(t, hang)
		start := time.Now()
		_, err := runDemo(t, p, 1, true)
		if got, want := time.Since(start), controlTimeout+lateBy; !errors.Is(err, context.DeadlineExceeded) || got != want ||
			!strings.HasPrefix(err.Error(), "demo: probing the PSP's dialect: ") {
			t.Errorf("demo() = %v after %v, want the probe's %v after %v", err, got, context.DeadlineExceeded, want)
		}
	})
}

// The mismatch fails the command with exit code 1.
func TestRunReportsADialectMismatch(t *testing.T) {
	srv := must(psp.NewServer(psp.DefaultConfig()))
	ts := httptest.NewServer(mustControl(t, srv, control.Options{Payments: must(efiDialect.Serve(srv))}))
	defer ts.Close()
	var stderr bytes.Buffer
	err := run(t.Context(), []string{"-psp", ts.URL}, &bytes.Buffer{}, &stderr)
	want := "demo FAILED:\ndemo: -dialect pix, but the PSP at " + ts.URL + " speaks efi: "
	if got := cmdline.ExitCode(err); got != 1 || !strings.HasPrefix(stderr.String(), want) {
		t.Errorf("run() exit code %d, stderr %q; want 1 and stderr starting %q", got, stderr.String(), want)
	}
}
