package main

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"pixretry/psp"
	"pixretry/psp/control"
	"pixretry/psp/psptest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// mustPSP returns the psp simulator with its control API, as cmd/psp serves it, over in-memory
// pipes, with the default configuration (token "test-token", balance 1000.00). Each of breaks,
// in order, wraps the handler in front of it, to make a PSP that misbehaves. Make it inside
// the synctest bubble that uses it: it closes as the test ends, once every answer it holds is
// out.
func mustPSP(tb testing.TB, breaks ...func(http.Handler) http.Handler) *psptest.Server {
	tb.Helper()
	return mustPSPIn(tb, pixDialect, breaks...)
}

// mustPSPIn is mustPSP speaking dialect d, as cmd/psp -dialect serves it.
func mustPSPIn(tb testing.TB, d *dialect, breaks ...func(http.Handler) http.Handler) *psptest.Server {
	tb.Helper()
	p, err := psptest.NewServerBehind(psp.DefaultConfig(), func(srv *psp.Server) http.Handler {
		payments, err := d.Serve(srv)
		if err != nil {
			tb.Fatalf("dialect %s: Serve() error = %v", d.Name, err)
		}
		h := mustControl(tb, srv, control.Options{Payments: payments})
		for _, b := range breaks {
			h = b(h)
		}
		return h
	})
	if err != nil {
		tb.Fatalf("psptest.NewServerBehind() error = %v", err)
	}
	tb.Cleanup(p.Close)
	return p
}

// mustControl returns srv behind its control API, guarded by opts.
func mustControl(tb testing.TB, srv *psp.Server, opts control.Options) http.Handler {
	tb.Helper()
	h, err := control.NewHandler(srv, opts)
	if err != nil {
		tb.Fatalf("control.NewHandler() error = %v", err)
	}
	return h
}

// runDemo runs the demo in pix's own dialect inside the caller's synctest bubble against p, and
// returns its output and error.
func runDemo(t *testing.T, p *psptest.Server, seed uint64, external bool) (string, error) {
	t.Helper()
	return runDemoIn(t, pixDialect, p, seed, external)
}

// runDemoIn is runDemo in dialect d, which p must speak.
func runDemoIn(t *testing.T, d *dialect, p *psptest.Server, seed uint64, external bool) (string, error) {
	t.Helper()
	var out strings.Builder
	err := demo(t.Context(), &target{
		BaseURL: p.URL, External: external, Dialect: d, Token: p.Token, Seed: seed, Transport: p.Transport(), Out: &out,
	})
	// Scenario 3's PSP may still hold its late answer, which the client gave up on. Wait it
	// out, at once in virtual time, so that the run has left nothing in flight when it returns.
	time.Sleep(lateBy)
	return out.String(), err
}

// attempt is one "pix attempt" log line and the scenario it belongs to.
type attempt struct {
	Scenario int
	Attrs    map[string]string
}

// attemptLines returns the demo's "pix attempt" log lines, in order.
func attemptLines(out string) []attempt {
	var got []attempt
	scenario := 0
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "== Scenario ") {
			scenario++
		}
		if attrs := logAttrs(line); attrs["msg"] == "pix attempt" {
			got = append(got, attempt{Scenario: scenario, Attrs: attrs})
		}
	}
	return got
}

// logAttrs parses a slog text line (key=value, values quoted when they need to be). A line that
// is not one gives an empty map.
func logAttrs(line string) map[string]string {
	attrs := map[string]string{}
	if !strings.HasPrefix(line, "level=") {
		return attrs
	}
	for line != "" {
		key, rest, _ := strings.Cut(line, "=")
		var value string
		if quoted, err := strconv.QuotedPrefix(rest); err == nil {
			value, _ = strconv.Unquote(quoted)
			rest = rest[len(quoted):]
		} else {
			value, rest, _ = strings.Cut(rest, " ")
		}
		attrs[key] = value
		line = strings.TrimPrefix(rest, " ")
	}
	return attrs
}

// linesWithPrefix returns the lines of out that start with one of prefixes.
func linesWithPrefix(out string, prefixes ...string) []string {
	var got []string
	for _, line := range strings.Split(out, "\n") {
		for _, p := range prefixes {
			if strings.HasPrefix(line, p) {
				got = append(got, line)
				break
			}
		}
	}
	return got
}

// lastLine is the output's last non-empty line.
func lastLine(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	return lines[len(lines)-1]
}
