package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"pixretry/psp"
)

// BenchmarkThroughput measures distinct-key payments through cmd/psp, started by run as the
// command starts it, with its log on stderr going to a file. Beside it, in the same run, a bare
// net/http handler answers a fixed 201, and a second cmd/psp runs with -log warn. They serve
// over loopback, to 1, 16 and 64 clients sending at once on kept-alive connections.
//
// Each sub-benchmark sends b.N requests to each server, in alternating rounds. It reports
// cmd/psp's figures per payment as ns/op, B/op and allocs/op (the clients' side included) and
// the bare handler's as bare-ns/op and bare-allocs/op. x-bare is cmd/psp's throughput over the
// bare handler's, x-bare-quiet the same with -log warn. x-bare-cpu is the bare handler's CPU
// time per request over cmd/psp's, the throughput ratio of a machine whose cores are all busy.
// Each ratio is the median of the rounds' ratios, so that a moment when another process took
// the machine skews one round, not the figure.
func BenchmarkThroughput(b *testing.B) {
	pspURL := startForBenchmark(b, "-log", "info")
	quietURL := startForBenchmark(b, "-log", "warn")
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, bareAnswer)
	}))
	defer bare.Close()
	var keys atomic.Int64 // distinct across sub-benchmarks and their runs
	for _, c := range []int{1, 16, 64} {
		b.Run("c="+strconv.Itoa(c), func(b *testing.B) {
			tr := &http.Transport{MaxIdleConnsPerHost: c}
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr}
			urls := [...]string{bare.URL, pspURL, quietURL}
			var bareLoad, pspLoad, quietLoad loaded
			var xBare, xQuiet, xCPU []float64 // one per round
			// The servers alternate, so that a busy moment of the machine hits all alike, and each
			// round starts with the next one, so that none always runs after another.
			for r, sent := 0, 0; sent < b.N; r, sent = r+1, sent+round {
				n := min(round, b.N-sent)
				var m [len(urls)]loaded
				for i := range urls {
					j := (r + i) % len(urls)
					m[j] = load(b, client, urls[j]+psp.PaymentsPath, c, n, &keys)
				}
				b1, p1, q1 := m[0], m[1], m[2]
				bareLoad.add(b1)
				pspLoad.add(p1)
				quietLoad.add(q1)
				xBare = append(xBare, float64(b1.elapsed)/float64(p1.elapsed))
				xQuiet = append(xQuiet, float64(b1.elapsed)/float64(q1.elapsed))
				xCPU = append(xCPU, float64(b1.cpu)/float64(p1.cpu))
			}
			n := float64(b.N)
			b.ReportMetric(float64(pspLoad.elapsed.Nanoseconds())/n, "ns/op")
			b.ReportMetric(float64(pspLoad.bytes)/n, "B/op")
			b.ReportMetric(float64(pspLoad.allocs)/n, "allocs/op")
			b.ReportMetric(float64(bareLoad.elapsed.Nanoseconds())/n, "bare-ns/op")
			b.ReportMetric(float64(bareLoad.allocs)/n, "bare-allocs/op")
			b.ReportMetric(median(xBare), "x-bare")
			b.ReportMetric(median(xQuiet), "x-bare-quiet")
			b.ReportMetric(median(xCPU), "x-bare-cpu")
		})
	}
}

// startForBenchmark starts cmd/psp with args, its stderr a file in b.TempDir(), and returns its
// URL.
func startForBenchmark(b *testing.B, args ...string) string {
	stderr, err := os.CreateTemp(b.TempDir(), "stderr")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stderr.Close() }) // after run has stopped and flushed its log
	return startWithStderr(b, stderr, append([]string{"-tokens", "bench", "-balance", "9999999999.99"}, args...)...).url
}

// bareAnswer is the bare handler's body, a 201 as long as psp's.
const bareAnswer = `{"endToEndId":"E12345678202501011200abcdefghijk","valor":"0.01","chave":"pix@example.com","status":"REALIZADO","horario":"2025-01-01T12:00:00Z"}` + "\n"

// round is how many requests BenchmarkThroughput sends to one server before it turns to the
// next.
const round = 256

// loaded is what load measured: the wall time and the heap allocations of the whole process.
type loaded struct {
	elapsed, cpu  time.Duration
	allocs, bytes uint64
}

func (l *loaded) add(m loaded) {
	l.elapsed, l.cpu, l.allocs, l.bytes = l.elapsed+m.elapsed, l.cpu+m.cpu, l.allocs+m.allocs, l.bytes+m.bytes
}

// load posts n payments of 0.01, each under a new key, from c goroutines at once, and fails on
// any answer other than 201.
func load(b *testing.B, client *http.Client, url string, c, n int, keys *atomic.Int64) loaded {
	var sent atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0 := cpuTime(b)
	start := time.Now()
	for range c {
		wg.Go(func() {
			for sent.Add(1) <= int64(n) {
				if err := postPayment(client, url, "bench-"+strconv.FormatInt(keys.Add(1), 10)); err != nil {
					once.Do(func() { firstErr = err })
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := cpuTime(b) - cpu0
	runtime.ReadMemStats(&after)
	if firstErr != nil {
		b.Fatal(firstErr)
	}
	return loaded{elapsed: elapsed, cpu: cpu, allocs: after.Mallocs - before.Mallocs, bytes: after.TotalAlloc - before.TotalAlloc}
}

func postPayment(client *http.Client, url, key string) error {
	r, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"valor":"0.01","chave":"pix@example.com"}`))
	if err != nil {
		return err
	}
	r.Header.Set("Authorization", "Bearer bench")
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Idempotency-Key", key)
	resp, err := client.Do(r)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		return fmt.Errorf("POST %s = %d, want 201", url, resp.StatusCode)
	}
	return nil
}

// startWithStderr calls run with args plus -addr 127.0.0.1:0, its log going to stderr, and
// waits for the URL it prints. run is stopped when the test ends, if the test has not stopped it.
func startWithStderr(tb testing.TB, stderr io.Writer, args ...string) *started {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	outR, outW := io.Pipe()
	s := &started{cancel: cancel, done: make(chan error, 1)}
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		err := run(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), outW, stderr)
		outW.Close()
		s.done <- err
	}()
	tb.Cleanup(func() {
		cancel()
		<-exited
	})
	s.awaitURL(tb, outR)
	return s
}

// median is the middle of xs, or the mean of the two in the middle.
func median(xs []float64) float64 {
	slices.Sort(xs)
	return (xs[(len(xs)-1)/2] + xs[len(xs)/2]) / 2
}

// cpuTime is the CPU time the process has used so far, user and system.
func cpuTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
