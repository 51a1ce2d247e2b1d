package psp

import (
	"math/rand/v2"
	"sync/atomic"
	"time"
)

// endToEndSeq numbers endToEndIds for the life of the process, across Servers and Resets.
// It starts at a random point so that two runs of cmd/psp are unlikely to repeat each other.
var endToEndSeq atomic.Uint64

func init() { endToEndSeq.Store(rand.Uint64()) }

// newEndToEndID returns a fresh endToEndId settled at t: "E", the 8-digit ISPB, t in UTC as
// yyyyMMddHHmm and 11 base-36 characters of a process-wide sequence, 32 characters in all. The
// sequence makes it unique within the process (it would repeat after 36^11 ids).
func newEndToEndID(ispb string, t time.Time) string {
	return "E" + ispb + t.UTC().Format("200601021504") + base36(endToEndSeq.Add(1))
}

// base36 is the low 11 base-36 digits of n, zero-padded.
func base36(n uint64) string {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	var b [11]byte
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = digits[n%36]
		n /= 36
	}
	return string(b[:])
}
