package psp

import (
	"runtime/debug"
	"slices"
	"strconv"
	"testing"
	"time"
)

// evictionBacklog is how many keys expire at once in BenchmarkEvictionBacklog.
const evictionBacklog = 150_000

// BenchmarkEvictionBacklog measures the key store's work under its lock when evictionBacklog
// keys have expired at once. per-request reserves new keys: each forgets at most maxEvictions
// of the backlog; p99.9-ns and worst-ns are the slowest reservations (on a busy machine the
// worst is a preemption, not work). whole-backlog forgets the backlog in
// one go, what a single request did before eviction was bounded; ns/op is that wait.
func BenchmarkEvictionBacklog(b *testing.B) {
	p := payment{cents: 1, chave: "pix@example.com"}
	b.Run("per-request", func(b *testing.B) {
		bk, now := expiredBacklog(b)
		defer debug.SetGCPercent(debug.SetGCPercent(-1)) // the collector's pauses are not eviction
		var took []time.Duration
		for b.Loop() {
			start := time.Now()
			e, _ := bk.reserve(scope{DefaultToken, "new-" + strconv.Itoa(len(took))}, p, now)
			took = append(took, time.Since(start))
			bk.commit(e, now, defaultISPB, Fault{})
		}
		slices.Sort(took)
		n := len(took)
		b.ReportMetric(float64(took[n*999/1000].Nanoseconds()), "p99.9-ns")
		b.ReportMetric(float64(took[n-1].Nanoseconds()), "worst-ns")
		b.ReportMetric(float64(evictionBacklog+n-len(bk.keys))/float64(n), "evicted/op")
	})
	b.Run("whole-backlog", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			bk, now := expiredBacklog(b)
			b.StartTimer()
			for len(bk.keys) > 0 {
				bk.evict(now)
			}
		}
	})
}

// expiredBacklog is a book holding evictionBacklog keys committed an hour ago with a TTL of an
// hour, and the instant they expire.
func expiredBacklog(tb testing.TB) (*book, time.Time) {
	tb.Helper()
	past := time.Now().UTC()
	bk := newBook(Config{BalanceCents: 1 << 62, MaxKeys: defaultMaxKeys, KeyTTL: time.Hour})
	for i := range evictionBacklog {
		e, _ := bk.reserve(scope{DefaultToken, "old-" + strconv.Itoa(i)}, payment{cents: 1, chave: "pix@example.com"}, past)
		bk.commit(e, past, defaultISPB, Fault{})
	}
	return bk, past.Add(time.Hour)
}
