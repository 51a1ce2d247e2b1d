package main

import (
	"bufio"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"pixretry/internal/pipenet"
	"pixretry/psp"
)

// mustPSP returns a psp simulator with its control API, as cmd/psp serves it, and the
// default configuration (token "test-token", balance 1000.00).
func mustPSP(tb testing.TB) *psp.Server {
	tb.Helper()
	cfg := psp.DefaultConfig()
	cfg.Control = true
	srv, err := psp.NewServer(cfg)
	if err != nil {
		tb.Fatalf("psp.NewServer() error = %v", err)
	}
	return srv
}

// runDemo runs the demo inside the caller's synctest bubble against h served over pipenet,
// and returns its output and error.
func runDemo(t *testing.T, h http.Handler, seed uint64, external bool) (string, error) {
	t.Helper()
	srv := pipenet.NewServer(h)
	defer srv.Close()
	var out strings.Builder
	err := demo(t.Context(), target{
		BaseURL: srv.URL, Token: psp.DefaultToken, Client: srv.Client(), Seed: seed, Out: &out, External: external,
	})
	// Scenario 3's PSP may still hold its late answer (the client gave up on it): let it
	// finish, at once in virtual time, so that the bubble ends with no goroutine blocked.
	time.Sleep(lateBy)
	return out.String(), err
}

// row is one line of the demo's summary table.
type row struct {
	Scenario, Attempts, Outcome, Key, Replayed string
}

// summaryRows reads the summary table from the demo's output.
func summaryRows(t *testing.T, out string) []row {
	t.Helper()
	_, table, ok := strings.Cut(out, "== Summary\n")
	if !ok {
		t.Fatalf("no summary in the output:\n%s", out)
	}
	lines := strings.Split(table, "\n")
	if got, want := strings.Fields(lines[0]), []string{"scenario", "attempts", "outcome", "key", "replayed"}; !slices.Equal(got, want) {
		t.Fatalf("summary header = %q, want %q", got, want)
	}
	var rows []row
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		if len(f) < 5 {
			break
		}
		n := len(f)
		rows = append(rows, row{f[0], f[1], strings.Join(f[2:n-2], " "), f[n-2], f[n-1]})
	}
	return rows
}

// attempt is one "pix attempt" log line of the demo's output.
type attempt struct {
	Scenario int // the scenario whose title came before it
	Attrs    map[string]string
}

// attemptLines reads the "pix attempt" records from the demo's output, each with the
// scenario it belongs to.
func attemptLines(t *testing.T, out string) []attempt {
	t.Helper()
	var got []attempt
	scenario := 0
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "== Scenario ") {
			scenario++
		}
		if attrs := logAttrs(line); attrs["msg"] == "pix attempt" {
			got = append(got, attempt{Scenario: scenario, Attrs: attrs})
		}
	}
	return got
}

// logAttrs parses a slog text line (key=value, values quoted when they need to be); a line
// that is not one gives an empty map.
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

// lastLine is the output's last non-empty line.
func lastLine(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	return lines[len(lines)-1]
}
