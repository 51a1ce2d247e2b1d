package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"pixretry/internal/scrape/scrapetest"
)

// pixpay run -metrics in a process of its own serves, while it runs, what its client and River
// did and the intents by status; SIGINT stops it, and the metrics with it.
func TestRunServesMetrics(t *testing.T) {
	t.Parallel() // a child process for about 2 s
	url, _ := mustPSP(t)
	db := sqliteDB(t)
	addIntents(t, db)
	c := startRun(t, "-db", db, "-psp", url, "-poll", "10ms", "-metrics", "127.0.0.1:0", "run")
	metrics, ok := strings.CutPrefix(c.firstLine(t), "pixpay: metrics on ")
	if !ok || !strings.HasPrefix(metrics, "http://127.0.0.1:") || !strings.HasSuffix(metrics, "/metrics") {
		t.Fatalf("run's first line on stderr = %q, want pixpay: metrics on http://127.0.0.1:PORT/metrics", c.firstLine(t))
	}
	awaitSettled(t, db)
	scrapetest.Await(t, metrics, wantRunMetrics...)
	if got := listening(t, c.cmd.Process.Pid); got != 1 {
		t.Errorf("run -metrics listens on %d TCP sockets, want 1: the metrics'", got)
	}
	c.interrupt(t)
	if _, err := http.Get(metrics); err == nil {
		t.Errorf("GET %s after run stopped succeeded, want the connection refused", metrics)
	}
}

// wantRunMetrics are lines that GET /metrics answers once addIntents' intents are worked: the
// client's payments and attempts (pixotel), the intents and the job attempts (durableotel),
// and River's jobs (otelriver).
var wantRunMetrics = []string{
	`pix_payments_total{` + pixScope + `,outcome="settled",pix_call="send_with_key"} 3`,
	`pix_payments_total{` + pixScope + `,outcome="refused",pix_call="send_with_key"} 1`,
	`pix_attempts_total{http_request_method="POST",` + pixScope + `,outcome="settled"} 3`,
	`pix_attempts_total{http_request_method="POST",` + pixScope + `,outcome="refused"} 1`,
	`durable_intents{durable_intent_status="pending",` + durableScope + `} 0`,
	`durable_intents{durable_intent_status="settled",` + durableScope + `} 3`,
	`durable_intents{durable_intent_status="refused",` + durableScope + `} 1`,
	`durable_job_attempts_total{durable_job_outcome="settled",` + durableScope + `} 3`,
	`durable_job_attempts_total{durable_job_outcome="refused",` + durableScope + `} 1`,
	`river_work_count_total{attempt="1",kind="pix_payment",otel_scope_name="github.com/riverqueue/rivercontrib/otelriver",` +
		`otel_scope_schema_url="",otel_scope_version="",priority="1",queue="default",status="ok",tag="[]"} 3`,
}

// The otel_scope_ labels of pixotel's series and of durableotel's.
const (
	pixScope     = `otel_scope_name="pixretry/pix/pixotel",otel_scope_schema_url="https://opentelemetry.io/schemas/1.40.0",otel_scope_version=""`
	durableScope = `otel_scope_name="pixretry/durable/durableotel",otel_scope_schema_url="",otel_scope_version=""`
)

// Without -metrics, run listens on nothing and says nothing of metrics.
func TestRunServesNoMetricsByDefault(t *testing.T) {
	t.Parallel() // a child process for about 2 s
	url, _ := mustPSP(t)
	db := sqliteDB(t)
	addIntents(t, db)
	c := startRun(t, "-db", db, "-psp", url, "-poll", "10ms", "run")
	awaitSettled(t, db)
	if got := listening(t, c.cmd.Process.Pid); got != 0 {
		t.Errorf("run listens on %d TCP sockets without -metrics, want none", got)
	}
	if stderr := c.interrupt(t); strings.Contains(stderr, "metrics") {
		t.Errorf("run's stderr speaks of metrics without -metrics:\n%s", stderr)
	}
}

// addIntents stores three payments the PSP settles and one above its balance, which it refuses.
func addIntents(t *testing.T, db string) {
	t.Helper()
	for _, args := range [][]string{
		{"-id", "a", "-valor", "1.00", "-chave", "pix@example.com"},
		{"-id", "b", "-valor", "2.00", "-chave", "pix@example.com"},
		{"-id", "c", "-valor", "3.00", "-chave", "pix@example.com"},
		{"-id", "d", "-valor", "2000.00", "-chave", "pix@example.com"},
	} {
		if _, stderr, code := pixpay(t, append([]string{"-db", db, "add"}, args...)...); code != 0 {
			t.Fatalf("add %v: exit %d, %s", args, code, stderr)
		}
	}
}

func TestBadMetricsAddressExits2(t *testing.T) {
	db := filepath.Join(t.TempDir(), "pay.db")
	_, stderr, code := pixpay(t, "-db", db, "-psp", "http://127.0.0.1:1", "-metrics", "nonsense", "run")
	want := "pixpay: -metrics nonsense: listen tcp: address nonsense: missing port in address\nusage:"
	if code != 2 || !strings.HasPrefix(stderr, want) {
		t.Errorf("run -metrics nonsense: exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
	if _, err := os.Stat(db); err == nil {
		t.Errorf("a refused -metrics left the database behind")
	}
}

// add and list end before a scraper would come: they ignore -metrics, as they ignore -psp.
func TestAddAndListIgnoreMetrics(t *testing.T) {
	db := filepath.Join(t.TempDir(), "pay.db")
	for _, args := range [][]string{
		{"-db", db, "-metrics", "nonsense", "add", "-id", "a", "-valor", "1.00", "-chave", "pix@example.com"},
		{"-db", db, "-metrics", "127.0.0.1:0", "list"},
	} {
		if out, stderr, code := pixpay(t, args...); code != 0 || stderr != "" || len(lines(t, out)) != 1 {
			t.Errorf("pixpay %v: exit %d, stdout %q, stderr %q; want one line, exit 0, nothing on stderr", args, code, out, stderr)
		}
	}
}

// runChild is pixpay run in a process of its own, with its stderr read line by line.
type runChild struct {
	cmd       *exec.Cmd
	firstSeen chan struct{} // closed once the child wrote its first line on stderr, or closed it
	first     string        // that line, if any
	done      chan struct{} // closed once it has exited, and err and lines are set
	err       error
	lines     []string // its stderr
}

// startRun starts pixpay with args in a child process, killed at the end of the test if it
// still runs.
func startRun(t *testing.T, args ...string) *runChild {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &runChild{cmd: cmd, firstSeen: make(chan struct{}), done: make(chan struct{})}
	go c.read(stderr)
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-c.done
	})
	return c
}

// read keeps the lines of stderr until it ends, then waits for the child to exit.
func (c *runChild) read(stderr io.Reader) {
	defer close(c.done)
	for sc := bufio.NewScanner(stderr); sc.Scan(); {
		if c.lines = append(c.lines, sc.Text()); len(c.lines) == 1 {
			c.first = sc.Text()
			close(c.firstSeen)
		}
	}
	if len(c.lines) == 0 {
		close(c.firstSeen)
	}
	c.err = c.cmd.Wait()
}

// firstLine is the child's first line on stderr. It fails t if none comes within 10 s.
func (c *runChild) firstLine(t *testing.T) string {
	t.Helper()
	select {
	case <-c.firstSeen:
		return c.first
	case <-time.After(10 * time.Second):
		t.Fatal("run wrote nothing on stderr for 10 s")
		return ""
	}
}

// interrupt sends SIGINT to the child, waits up to 30 s for it to exit, and fails t unless it
// exited 0. It returns the child's stderr.
func (c *runChild) interrupt(t *testing.T) string {
	t.Helper()
	if err := c.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.done:
	case <-time.After(30 * time.Second):
		t.Fatal("run still runs 30 s after SIGINT")
	}
	stderr := strings.Join(c.lines, "\n")
	if c.err != nil {
		t.Errorf("run after SIGINT: %v, want exit 0; its stderr:\n%s", c.err, stderr)
	}
	return stderr
}

// listening counts the TCP sockets process pid listens on: those of its file descriptors that
// /proc/net/tcp and tcp6 list in state 0A (LISTEN). It skips the test off Linux.
func listening(t *testing.T, pid int) int {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("counting a process's listening sockets reads /proc, which only Linux has")
	}
	listeners := map[string]bool{} // socket inodes in state LISTEN
	for _, table := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "net", table))
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range strings.Split(string(b), "\n")[1:] {
			// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
			if f := strings.Fields(row); len(f) > 9 && f[3] == "0A" {
				listeners[f[9]] = true
			}
		}
	}
	fds, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "fd"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "fd", fd.Name()))
		inode, ok := strings.CutPrefix(link, "socket:[")
		if err == nil && ok && listeners[strings.TrimSuffix(inode, "]")] {
			n++
		}
	}
	return n
}
