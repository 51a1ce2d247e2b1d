package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"pixretry/psp"
)

// lockedBuffer is a bytes.Buffer safe for concurrent use, a stand-in for stderr.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestLogBufferWritesWithinFlushEvery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var stderr lockedBuffer
		l := newLogBuffer(&stderr)
		defer l.Close()

		l.Write([]byte("one\n"))
		time.Sleep(flushEvery / 2)
		l.Write([]byte("two\n"))
		if got := stderr.String(); got != "" {
			t.Fatalf("stderr = %q before flushEvery, want nothing yet", got)
		}
		time.Sleep(flushEvery / 2)
		synctest.Wait()
		if got, want := stderr.String(), "one\ntwo\n"; got != want {
			t.Errorf("stderr = %q flushEvery after the first record, want %q", got, want)
		}
		l.Write([]byte("three\n"))
		time.Sleep(flushEvery)
		synctest.Wait()
		if got, want := stderr.String(), "one\ntwo\nthree\n"; got != want {
			t.Errorf("stderr = %q flushEvery after the third record, want %q", got, want)
		}
	})
}

func TestLogBufferWritesWhenFull(t *testing.T) {
	var stderr lockedBuffer
	l := newLogBuffer(&stderr)
	defer l.Close()
	record := strings.Repeat("x", 1023) + "\n"

	for range 64 {
		l.Write([]byte(record))
	}
	if got := stderr.String(); got != "" {
		t.Fatalf("stderr holds %d bytes with 64 KiB buffered, want none", len(got))
	}
	l.Write([]byte(record))
	if got, want := len(stderr.String()), 64<<10; got != want {
		t.Errorf("stderr holds %d bytes once the buffer overflowed, want %d", got, want)
	}
}

func TestLogBufferCloseWritesEverything(t *testing.T) {
	var stderr lockedBuffer
	l := newLogBuffer(&stderr)
	l.Write([]byte("held\n"))

	l.Close()
	if got, want := stderr.String(), "held\n"; got != want {
		t.Fatalf("stderr = %q after Close, want %q", got, want)
	}
	l.Write([]byte("late\n"))
	if got, want := stderr.String(), "held\nlate\n"; got != want {
		t.Errorf("stderr = %q after a write past Close, want %q (written through)", got, want)
	}
}

func TestLifecycleRecordsGoOutAtOnceAfterThePaymentsBefore(t *testing.T) {
	var stderr lockedBuffer
	payments, now, done := newLoggers(&stderr, logLevel(slog.LevelInfo))
	defer done()

	payments.Info("psp: payment", "key", "k1")
	now.Info("psp: shutting down")

	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "key=k1") || !strings.Contains(lines[1], "shutting down") {
		t.Errorf("stderr = %q, want the payment then the shutdown, at once", lines)
	}
}

// TestNoRecordIsLostOnShutdown: every payment's record is on stderr once run returns, the
// record of a payment that finished during the shutdown included.
func TestNoRecordIsLostOnShutdown(t *testing.T) {
	var stderr lockedBuffer
	s := startWithStderr(t, &stderr, "-tokens", "smoke", "-balance", "10000.00")
	const payments = 50
	for i := range payments {
		if status, body := s.do(t, "POST", psp.PaymentsPath, "k"+strconv.Itoa(i), strings.NewReader(payment)); status != 201 {
			t.Fatalf("payment %d = %d %s, want 201", i, status, body)
		}
	}
	body, bodyW := io.Pipe()
	answered := make(chan int, 1)
	go func() { answered <- s.post("in-flight", body) }()
	io.WriteString(bodyW, payment[:10]) // returns once the handler is reading the body

	s.cancel()
	waitRefused(t, s.url) // the shutdown has begun
	io.WriteString(bodyW, payment[10:])
	bodyW.Close()
	if got := <-answered; got != 201 {
		t.Errorf("the payment in flight got %d, want 201", got)
	}
	if err := <-s.done; err != nil {
		t.Fatalf("run() = %v, want nil", err)
	}
	log := stderr.String()
	if got := strings.Count(log, `msg="psp: payment"`); got != payments+1 {
		t.Errorf("stderr holds %d payment records, want %d:\n%s", got, payments+1, log)
	}
	if !strings.Contains(log[strings.Index(log, "psp: shutting down"):], "key=in-flight") {
		t.Errorf("stderr has no record of the payment in flight after the shutdown record:\n%s", log)
	}
}

// post sends a payment under key with body, announced with Expect: 100-continue so that the
// handler reads the body as it comes, and returns the status (0 if the request failed). The
// clients of mustStart and startWithStderr wait for the 100 Continue.
func (s *started) post(key string, body io.Reader) int {
	r, _ := http.NewRequest("POST", s.url+psp.PaymentsPath, body)
	r.Header.Set("Authorization", "Bearer smoke")
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Idempotency-Key", key)
	r.Header.Set("Expect", "100-continue")
	resp, err := s.client.Do(r)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestLogFlagSetsWhatStderrGets pays once under each -log and reads stderr once run returns.
func TestLogFlagSetsWhatStderrGets(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		payments  int  // records of payments
		lifecycle bool // the start and stop records
	}{
		{nil, 1, true},
		{[]string{"-log", "info"}, 1, true},
		{[]string{"-log", "warn"}, 0, false},
		{[]string{"-log", "off"}, 0, false},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stderr lockedBuffer
			s := startWithStderr(t, &stderr, append([]string{"-tokens", "smoke"}, tc.args...)...)
			if status, body := s.do(t, "POST", psp.PaymentsPath, "k1", strings.NewReader(payment)); status != 201 {
				t.Fatalf("payment = %d %s, want 201", status, body)
			}
			if err := s.stop(); err != nil {
				t.Fatalf("run() = %v, want nil", err)
			}
			log := stderr.String()
			if got := strings.Count(log, `msg="psp: payment"`); got != tc.payments {
				t.Errorf("stderr holds %d payment records, want %d:\n%s", got, tc.payments, log)
			}
			if got := strings.Contains(log, "psp: listening") && strings.Contains(log, "psp: shutting down"); got != tc.lifecycle {
				t.Errorf("stderr has the start and stop records: %t, want %t:\n%s", got, tc.lifecycle, log)
			}
		})
	}
}

func TestLogLevelKeepsWarningsUnlessOff(t *testing.T) {
	for _, tc := range []struct {
		level string
		want  bool
	}{{"info", true}, {"warn", true}, {"off", false}} {
		var level logLevel
		if err := level.Set(tc.level); err != nil {
			t.Fatalf("Set(%q) = %v", tc.level, err)
		}
		var stderr lockedBuffer
		_, now, done := newLoggers(&stderr, level)
		now.Warn("psp: a server warning")
		done()
		if got := strings.Contains(stderr.String(), "a server warning"); got != tc.want {
			t.Errorf("-log %s: the warning written %t, want %t", tc.level, got, tc.want)
		}
		if got := level.String(); got != tc.level {
			t.Errorf("-log %s reads back as %q", tc.level, got)
		}
	}
}

// BenchmarkPaymentRecord measures one payment's log record on its way to a file, as psp writes
// it: through the logBuffer, and straight to the file as a record each.
func BenchmarkPaymentRecord(b *testing.B) {
	record := func(l *slog.Logger) {
		l.LogAttrs(context.Background(), slog.LevelInfo, "psp: payment", slog.Int("status", 201),
			slog.String("key", "bench-123456"), slog.Bool("replayed", false), slog.String("fault", "none"))
	}
	for _, tc := range []struct {
		name   string
		logger func(io.Writer) (*slog.Logger, func())
	}{
		{"buffered", func(w io.Writer) (*slog.Logger, func()) {
			payments, _, done := newLoggers(w, logLevel(slog.LevelInfo))
			return payments, done
		}},
		{"unbuffered", func(w io.Writer) (*slog.Logger, func()) { return slog.New(slog.NewTextHandler(w, nil)), func() {} }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			f, err := os.CreateTemp(b.TempDir(), "stderr")
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			l, done := tc.logger(f)
			defer done()
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					record(l)
				}
			})
		})
	}
}
