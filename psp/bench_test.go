package psp_test

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"pixretry/psp"
)

// BenchmarkPayment measures a payment over loopback HTTP, beside a bare net/http handler that
// answers a fixed 201: the ratio is what the simulator costs over net/http itself.
func BenchmarkPayment(b *testing.B) {
	s := mustServer(b, func(c *psp.Config) { c.BalanceCents = math.MaxInt64 })
	body := []byte(`{"endToEndId":"E1234567820250101120000000000001","valor":"150.00","chave":"pix@example.com","status":"REALIZADO","horario":"2025-01-01T12:00:00Z"}` + "\n")
	bare := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		w.Write(body)
	})
	b.Run("bare-201", func(b *testing.B) {
		benchmarkPost(b, bare, func(int) string { return "k" })
	})
	var fresh atomic.Int64 // unique across runs of the sub-benchmark
	b.Run("fresh-keys", func(b *testing.B) {
		benchmarkPost(b, s, func(int) string { return "fresh-" + strconv.FormatInt(fresh.Add(1), 10) })
	})
	b.Run("replay", func(b *testing.B) {
		benchmarkPost(b, s, func(int) string { return "replayed" })
	})
}

// benchmarkPost posts a payment to h over loopback b.N times, the i-th with key(i), on one
// kept-alive connection, and fails on any answer other than 201. It reports the share of
// replayed answers as replays/op.
func benchmarkPost(b *testing.B, h http.Handler, key func(int) string) {
	srv := httptest.NewServer(h)
	defer srv.Close()
	client := srv.Client()
	b.ReportAllocs()
	i, replays := 0, 0
	for b.Loop() {
		r, _ := http.NewRequest(http.MethodPost, srv.URL+psp.PaymentsPath, strings.NewReader(validBody))
		r.Header.Set("Authorization", "Bearer "+token)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set(psp.IdempotencyKeyHeader, key(i))
		i++
		resp, err := client.Do(r)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			b.Fatalf("status %d", resp.StatusCode)
		}
		if resp.Header.Get("Idempotent-Replayed") == "true" {
			replays++
		}
	}
	b.ReportMetric(float64(replays)/float64(i), "replays/op")
}

// BenchmarkHandler measures the simulator alone, in process (no sockets): what a payment
// costs on top of net/http.
func BenchmarkHandler(b *testing.B) {
	s := mustServer(b, func(c *psp.Config) { c.BalanceCents = math.MaxInt64 })
	var fresh atomic.Int64
	b.Run("fresh-keys", func(b *testing.B) {
		benchmarkServe(b, s, func() string { return "fresh-" + strconv.FormatInt(fresh.Add(1), 10) })
	})
	b.Run("replay", func(b *testing.B) {
		benchmarkServe(b, s, func() string { return "replayed" })
	})
}

func benchmarkServe(b *testing.B, s *psp.Server, key func() string) {
	b.ReportAllocs()
	for b.Loop() {
		if a := pay(s, key(), validBody); a.status != http.StatusCreated {
			b.Fatalf("status %d", a.status)
		}
	}
}

// BenchmarkStoredKey measures the heap that one completed key costs, its settlement included:
// a typical payment (validBody, a UUID key) stored under storedKeys distinct keys, the heap
// read after a GC before and after. B/key is the figure; ns/op is the time of storedKeys
// payments.
func BenchmarkStoredKey(b *testing.B) {
	const storedKeys = 20_000
	var perKey float64
	for b.Loop() {
		s := mustServer(b, func(c *psp.Config) { c.BalanceCents = math.MaxInt64 })
		before := liveHeap()
		for i := range storedKeys {
			if a := pay(s, uuid(i), validBody); a.status != http.StatusCreated {
				b.Fatalf("status %d", a.status)
			}
		}
		perKey = float64(liveHeap()-before) / storedKeys
		runtime.KeepAlive(s)
	}
	b.ReportMetric(perKey, "B/key")
}

// liveHeap is the heap in use after a garbage collection, in bytes.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// uuid is a lower-case UUID made from i, 36 characters like most clients' keys.
func uuid(i int) string {
	return fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
}

// BenchmarkJournalHeap measures the heap that a full journal holds with the default bounds, 1000
// requests in 1 MiB: 100,000 payment requests, each refused with 400 after its payload was
// read, so that no key is stored. The heap is read after a GC once the Server is made, its
// journal's ring of 8 KB included, and after the requests. heap-B is the figure, to hold
// against the 1 MiB bound; kept is how many requests the journal holds at the end.
func BenchmarkJournalHeap(b *testing.B) {
	for _, size := range []int{100, 4096} {
		b.Run("payload="+itoa(size)+"B", func(b *testing.B) {
			body := `{"valor":"` + strings.Repeat("9", size-12) + `"}`
			var heap, kept int64
			for b.Loop() {
				s := mustServer(b)
				before := liveHeap()
				for i := range 100_000 {
					if a := pay(s, uuid(i), body); a.status != http.StatusBadRequest {
						b.Fatalf("status %d, want 400", a.status)
					}
				}
				heap = liveHeap() - before
				requests, _ := s.Requests(psp.RequestFilter{})
				kept = int64(len(requests))
			}
			b.ReportMetric(float64(heap), "heap-B")
			b.ReportMetric(float64(kept), "kept")
		})
	}
}
