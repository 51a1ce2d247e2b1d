package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"pixretry/durable"
	"pixretry/durable/durablesqlite"
	"pixretry/internal/cmdline"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		// A scenario's child process: the test binary runs as pixpay (scenario_test.go), killed
		// at the crash point crashEnv names, if any (webhooks_test.go).
		cmdline.Main(func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
			return runWith(ctx, args, stdout, stderr, crashAt(os.Getenv(crashEnv)))
		})
	}
	goleak.VerifyTestMain(m)
}

// pixpay runs the command line args and returns its stdout, stderr and exit code.
func pixpay(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr strings.Builder
	err := run(context.Background(), args, &stdout, &stderr)
	return stdout.String(), stderr.String(), cmdline.ExitCode(err)
}

// line is one JSON line of add or list.
type line struct {
	ID          string   `json:"id"`
	Key         string   `json:"key"`
	Keys        []string `json:"keys"`
	Status      string   `json:"status"`
	EndToEndID  string   `json:"endToEndId"`
	Resumptions int      `json:"resumptions"`
	FirstSent   string   `json:"firstSent"`
	Error       string   `json:"error"`
	ConsentID   string   `json:"consentId"`
	PaymentID   string   `json:"paymentId"`
}

// listMembers are the members of a line of list, in their order, for the double's own API.
var listMembers = []string{"id", "key", "keys", "status", "endToEndId", "resumptions", "firstSent", "error"}

// jsonMembers returns the names of the members of the JSON object l, in their order.
func jsonMembers(t *testing.T, l string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(l))
	var names []string
	if _, err := dec.Token(); err != nil { // {
		t.Fatalf("line %q: %v", l, err)
	}
	for dec.More() {
		name, err := dec.Token()
		var value json.RawMessage
		if err == nil {
			err = dec.Decode(&value)
		}
		if err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		names = append(names, name.(string))
	}
	return names
}

// lines decodes out, one JSON object a line.
func lines(t *testing.T, out string) []line {
	t.Helper()
	var all []line
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var v line
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		all = append(all, v)
	}
	return all
}

func TestAddListRun(t *testing.T) {
	url, settlements := mustPSP(t)
	db := filepath.Join(t.TempDir(), "pay.db")
	out, _, code := pixpay(t, "-db", db, "add", "-id", "b", "-valor", "150.00", "-chave", "pix@example.com", "-info", "rent")
	b := lines(t, out)
	if code != 0 || len(b) != 1 || b[0].ID != "b" || b[0].Status != "pending" || b[0].Key == "" {
		t.Fatalf("add = %q, exit %d; want one pending line for b", out, code)
	}
	if got, want := jsonMembers(t, out), []string{"id", "key", "status"}; !slices.Equal(got, want) {
		t.Errorf("add's line %s has the members %v, want %v", out, got, want)
	}
	again, _, code := pixpay(t, "-db", db, "add", "-id", "b", "-valor", "150.00", "-chave", "pix@example.com", "-info", "rent")
	if code != 0 || again != out {
		t.Errorf("add again = %q, exit %d; want %q, exit 0", again, code, out)
	}
	pixpay(t, "-db", db, "add", "-id", "a", "-valor", "2000.00", "-chave", "12345678901")
	out, _, _ = pixpay(t, "-db", db, "list")
	if got := lines(t, out); len(got) != 2 || got[1].FirstSent != "" || got[1].Resumptions != 0 {
		t.Errorf("list before run = %q, want b never sent: no firstSent", out)
	}
	_, stderr, code := pixpay(t, "-db", db, "-psp", url, "run", "-until-done")
	if code != 0 {
		t.Fatalf("run -until-done: exit %d, stderr %q", code, stderr)
	}
	if want := "pixpay: run ended; the database holds 1 settled, 1 refused and 0 pending intents\n"; !strings.HasSuffix(stderr, want) {
		t.Errorf("run -until-done: stderr %q, want it to end with the summary %q", stderr, want)
	}
	out, _, code = pixpay(t, "-db", db, "list")
	got := lines(t, out)
	if code != 0 || len(got) != 2 || got[0].ID != "a" || got[1].ID != "b" {
		t.Fatalf("list = %q, exit %d; want a then b", out, code)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if members := jsonMembers(t, l); !slices.Equal(members, listMembers) {
			t.Errorf("list line %s has the members %v, want %v", l, members, listMembers)
		}
	}
	if got[0].Status != "refused" || got[0].Error == "" || got[0].Resumptions != 1 {
		t.Errorf("a = %+v, want refused for insufficient funds", got[0])
	}
	if got[1].Status != "settled" || got[1].EndToEndID == "" || got[1].Key != b[0].Key || settlements()[b[0].Key] != 1 {
		t.Errorf("b = %+v, ledger %v; want settled once under key %s", got[1], settlements(), b[0].Key)
	}
	if _, err := time.Parse(time.RFC3339Nano, got[1].FirstSent); err != nil || !slices.Equal(got[1].Keys, []string{b[0].Key}) {
		t.Errorf("b = %+v; want its one key in keys, and when it first left (%v)", got[1], err)
	}
}

func TestAddRefusesAndStoresNothing(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"same id, other payment", []string{"-id", "a", "-valor", "150.01", "-chave", "pix@example.com"}, 1},
		{"valor without cents", []string{"-id", "n", "-valor", "150", "-chave", "pix@example.com"}, 1},
		{"valor with one decimal", []string{"-id", "n", "-valor", "1.5", "-chave", "pix@example.com"}, 1},
		{"valor not a number", []string{"-id", "n", "-valor", "a.bc", "-chave", "pix@example.com"}, 1},
		{"valor negative", []string{"-id", "n", "-valor", "-1.00", "-chave", "pix@example.com"}, 1},
		{"valor zero", []string{"-id", "n", "-valor", "0.00", "-chave", "pix@example.com"}, 1},
		{"valor too long", []string{"-id", "n", "-valor", "12345678901.00", "-chave", "pix@example.com"}, 1},
		{"bad chave", []string{"-id", "n", "-valor", "1.00", "-chave", "nobody"}, 1},
		{"info too long", []string{"-id", "n", "-valor", "1.00", "-chave", "pix@example.com", "-info", strings.Repeat("x", 141)}, 1},
		{"no id", []string{"-valor", "1.00", "-chave", "pix@example.com"}, 2},
		{"no valor", []string{"-id", "n", "-chave", "pix@example.com"}, 2},
		{"unknown flag", []string{"-id", "n", "-valor", "1.00", "-chave", "pix@example.com", "-x"}, 2},
		{"extra argument", []string{"-id", "n", "-valor", "1.00", "-chave", "pix@example.com", "extra"}, 2},
	}
	db := filepath.Join(t.TempDir(), "pay.db")
	stored, _, _ := pixpay(t, "-db", db, "add", "-id", "a", "-valor", "150.00", "-chave", "pix@example.com")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stderr, code := pixpay(t, append([]string{"-db", db, "add"}, tt.args...)...)
			if code != tt.code || out != "" || stderr == "" {
				t.Errorf("add %v = %q, stderr %q, exit %d; want nothing, a message, exit %d", tt.args, out, stderr, code, tt.code)
			}
			list, _, _ := pixpay(t, "-db", db, "list")
			if got := lines(t, list); len(got) != 1 || got[0].Key != lines(t, stored)[0].Key {
				t.Errorf("list = %q, want only intent a", list)
			}
		})
	}
}

func TestBadCommandLineExits2(t *testing.T) {
	db := filepath.Join(t.TempDir(), "pay.db")
	for _, args := range [][]string{
		{"list"},           // no -db
		{"-db", db},        // no command
		{"-db", db, "pay"}, // unknown command
		{"-db", db, "run"}, // no -psp
		{"-db", db, "-workers", "0", "list"},
		{"-db", db, "-bogus", "list"},
		{"-db", db, "list", "extra"},
		{"-db", db, "-rescue-after", "9s", "list"},  // below JobTimeout, 10 s
		{"-db", db, "-rescue-after", "-1s", "list"}, // negative
		{"-db", db, "-max-age", "-1h", "list"},
		{"-db", db, "-poll", "-1s", "list"},
		{"-db", db, "-outage-max", "-1s", "list"},
		{"-db", db, "-delay-base", "-1s", "list"},
		{"-db", db, "-delay-max", "-1s", "list"},
		{"-db", db, "-delay-base", "1m", "-delay-max", "30s", "list"}, // DelayMax below DelayBase
		{"-db", db, "-poll", "soon", "list"},                          // not a duration
		{"-db", db, "-workers", "-3", "list"},
		{"-db", db, "-workers", "10001", "list"},                    // past River's limit
		{"-db", db, "-poll", "500us", "list"},                       // below River's
		{"-db", db, "-fetch-cooldown", "500us", "list"},             // below River's
		{"-db", db, "-fetch-cooldown", "2s", "-poll", "1s", "list"}, // above -poll
		{"-db", db, "-fetch-cooldown", "-1ms", "list"},
		{"-db", db, "-workers", "many", "list"},
		{"-db", db, "-key-ttl", "0", "list"},
		{"-db", db, "-key-ttl", "-1h", "list"},
		{"-db", db, "-key-ttl", "a day", "list"}, // not a duration
	} {
		if _, stderr, code := pixpay(t, args...); code != 2 || !strings.Contains(stderr, "usage") {
			t.Errorf("pixpay %v: exit %d, stderr %q; want 2 and the usage", args, code, stderr)
		}
	}
	if _, err := os.Stat(db); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused command line left the database behind: %v", err)
	}
}

// -key-ttl is the Payer's KeyTTL and its Client's, and shortens the attempts of a short one.
func TestKeyTTLOption(t *testing.T) {
	for _, tt := range []struct {
		args    []string
		ttl     time.Duration
		attempt time.Duration
	}{
		{nil, 24 * time.Hour, 3 * time.Second},
		{[]string{"-key-ttl", "1h"}, time.Hour, 3 * time.Second},
		{[]string{"-key-ttl", "2s"}, 2 * time.Second, 500 * time.Millisecond},
	} {
		args := append([]string{"-db", "pay.db", "-psp", "http://127.0.0.1:1"}, tt.args...)
		o, _, _, err := commandLine(append(args, "list"), io.Discard)
		if err != nil {
			t.Fatalf("commandLine(%v) error = %v", args, err)
		}
		if c := o.cfg.Client; o.cfg.KeyTTL != tt.ttl || c.KeyTTL != tt.ttl || c.AttemptTimeout != tt.attempt {
			t.Errorf("pixpay %v: KeyTTL %v, Client's %v, AttemptTimeout %v; want %v, %v, %v", args, o.cfg.KeyTTL,
				c.KeyTTL, c.AttemptTimeout, tt.ttl, tt.ttl, tt.attempt)
		}
	}
}

func TestPasswordNeverShown(t *testing.T) {
	out, stderr, code := pixpay(t, "-db", "postgres://payer:s3cr3t-pw@127.0.0.1:1/pix?connect_timeout=1", "list")
	if code != 1 || stderr == "" || strings.Contains(out+stderr, "s3cr3t-pw") {
		t.Errorf("list on an unreachable Postgres: exit %d, output %q %q; want 1, a message, no password", code, out, stderr)
	}
}

func TestRedact(t *testing.T) {
	dsn := "postgres://u:pw@h/db"
	if got, want := redact("cannot parse "+dsn+": pw", dsn), "cannot parse postgres://u:xxxxx@h/db: xxxxx"; got != want {
		t.Errorf("redact() = %q, want %q", got, want)
	}
	if got := redact("no secret here", "pay.db"); got != "no secret here" {
		t.Errorf("redact() of a file path = %q", got)
	}
}

func TestRunStopsOnInterruptAndExits0(t *testing.T) {
	url, settlements := mustPSP(t)
	db := filepath.Join(t.TempDir(), "pay.db")
	out, _, _ := pixpay(t, "-db", db, "add", "-id", "a", "-valor", "1.00", "-chave", "pix@example.com")
	key := lines(t, out)[0].Key
	ctx, interrupt := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-db", db, "-psp", url, "-poll", "10ms", "run"}, io.Discard, io.Discard)
	}()
	awaitSettled(t, db)
	interrupt()
	if err := <-done; cmdline.ExitCode(err) != 0 {
		t.Errorf("run after an interrupt: %v, want exit 0", err)
	}
	if n := settlements()[key]; n != 1 {
		t.Errorf("the ledger has %d settlements under the intent's key, want 1", n)
	}
}

// awaitSettled waits, through a Payer of its own on the file, until no intent is pending.
func awaitSettled(t *testing.T, path string) {
	t.Helper()
	db, err := durablesqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p, err := durable.New(context.Background(), durablesqlite.New(db), durable.Config{PollInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := p.Wait(ctx); err != nil {
		t.Fatalf("Wait() error = %v", err)
	}
}
