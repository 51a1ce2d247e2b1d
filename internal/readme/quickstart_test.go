package readme

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// quickstartEnv, set to 1, runs the quickstart: it builds the commands and runs curl, so
// make test leaves it to make quickstart.
const quickstartEnv = "PIXRETRY_QUICKSTART"

// step is one command of the quickstart and the output lines the README shows under it.
type step struct {
	line    int    // its line in README.md
	command string // as the README writes it
	want    []string
}

// quickstart reads the shell block of README.md's section "From a shell": each line that is
// not a comment is a command, and the comment lines that follow it are its output. make lines
// are left out: they are the verbs this test runs under.
func quickstart(t *testing.T, readme string) []step {
	t.Helper()
	f, err := os.Open(readme)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var steps []step
	section, block := false, false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			section = strings.HasPrefix(line, "## From a shell")
		case !section:
		case line == "```sh":
			block = true
		case line == "```":
			block = false
		case !block, strings.HasPrefix(line, "make "):
		case strings.HasPrefix(line, "# "):
			if len(steps) == 0 {
				t.Fatalf("README.md:%d: an output line before any command", n)
			}
			steps[len(steps)-1].want = append(steps[len(steps)-1].want, strings.TrimPrefix(line, "# "))
		default:
			steps = append(steps, step{line: n, command: line})
		}
	}
	if len(steps) < 5 {
		t.Fatalf("README.md: %d commands in the quickstart, want it found", len(steps))
	}
	return steps
}

// variable matches what differs from run to run: keys (UUIDs), endToEndIds and times.
var variable = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}` +
	`|E[0-9]{20}[0-9a-z]{11}|[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z`)

// pattern is the regular expression of a line the README shows: as written, but any key,
// endToEndId or time stands for any other, and … for anything.
func pattern(want string) *regexp.Regexp {
	var b strings.Builder
	last := 0
	for _, m := range variable.FindAllStringIndex(want, -1) {
		b.WriteString(regexp.QuoteMeta(want[last:m[0]]))
		b.WriteString("(?:" + variable.String() + ")")
		last = m[1]
	}
	b.WriteString(regexp.QuoteMeta(want[last:]))
	return regexp.MustCompile("^" + strings.ReplaceAll(b.String(), "…", ".*") + "$")
}

func TestQuickstartPrintsWhatTheREADMEShows(t *testing.T) {
	if os.Getenv(quickstartEnv) != "1" {
		t.Skipf("the quickstart builds the commands and needs curl: make quickstart runs it (%s=1)", quickstartEnv)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	steps := quickstart(t, filepath.Join(root, "README.md"))
	bin := t.TempDir()
	for _, cmd := range []string{"psp", "pixpay", "demo"} {
		build := exec.Command("go", "build", "-o", filepath.Join(bin, cmd), "./cmd/"+cmd)
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build ./cmd/%s: %v\n%s", cmd, err, out)
		}
	}
	port := freePort(t)
	script, outputs := runScript(t, steps, bin, port)
	for i, s := range steps {
		got := outputs[i]
		if got.exit != 0 {
			t.Errorf("README.md:%d: %s\nexit %d, output:\n%s", s.line, s.command, got.exit, strings.Join(got.lines, "\n"))
			continue
		}
		if s.want == nil {
			continue
		}
		ok := len(got.lines) == len(s.want)
		for j := 0; ok && j < len(s.want); j++ {
			ok = pattern(strings.ReplaceAll(s.want[j], "8080", port)).MatchString(got.lines[j])
		}
		if !ok {
			t.Errorf("README.md:%d: %s\nprinted:\n%s\nthe README shows:\n%s", s.line, s.command,
				strings.Join(got.lines, "\n"), strings.Join(s.want, "\n"))
		}
	}
	if t.Failed() {
		t.Logf("the script run:\n%s", script)
	}
}

// output is what one step printed, stdout and stderr together, and its exit status.
type output struct {
	lines []string
	exit  int
}

// runScript runs the steps in one bash, in a folder of their own, with go run ./cmd/X as the
// binary built in bin and the port 8080 as port, psp's default -addr included. A command run in the background is waited
// for until it prints its first line. It returns the script and each step's output.
func runScript(t *testing.T, steps []step, bin, port string) (string, []output) {
	t.Helper()
	const mark = "@@quickstart-step-ended"
	var b strings.Builder
	b.WriteString("set -u\ntrap 'kill $(jobs -p) 2>/dev/null; wait' EXIT\n")
	for i, s := range steps {
		c := strings.ReplaceAll(strings.ReplaceAll(s.command, "go run ./cmd/", bin+"/"), "8080", port)
		c = strings.Replace(c, bin+"/psp ", bin+"/psp -addr 127.0.0.1:"+port+" ", 1) // its default is 8080
		if strings.HasSuffix(strings.TrimSpace(strings.Split(c, " #")[0]), "&") {
			c = strings.TrimSpace(strings.Split(c, " #")[0])
			c = strings.TrimSuffix(c, "&") + fmt.Sprintf(">bg%d.out 2>&1 &\n", i) +
				fmt.Sprintf("for _ in $(seq 600); do [ -s bg%d.out ] && break; sleep 0.1; done; head -1 bg%[1]d.out", i)
		}
		fmt.Fprintf(&b, "%s\necho %s $?\n", c, mark)
	}
	cmd := exec.Command("bash", "-c", b.String())
	cmd.Dir = t.TempDir()
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatalf("the quickstart still ran after 3 minutes; it printed:\n%s", out)
	}
	if err != nil {
		t.Fatalf("the quickstart's shell: %v\n%s", err, out)
	}
	var outputs []output
	var cur []string
	for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if status, ok := strings.CutPrefix(l, mark+" "); ok {
			var exit int
			fmt.Sscan(status, &exit)
			outputs = append(outputs, output{cur, exit})
			cur = nil
			continue
		}
		cur = append(cur, strings.TrimRight(l, "\r"))
	}
	if len(outputs) != len(steps) {
		t.Fatalf("the quickstart ended after %d of %d steps; it printed:\n%s", len(outputs), len(steps), out)
	}
	return b.String(), outputs
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}
