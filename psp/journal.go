package psp

import (
	"bytes"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Request is one request the Server received, as its journal keeps it. The journal keeps no
// bearer token, only its position in Config.Tokens.
type Request struct {
	Seq     uint64    // 1 for the Server's first request, one more for each next; Reset does not restart it
	Arrived time.Time // when the Server began to serve it
	Method  string
	Path    string // the request target as received: the path, with the query if any
	// Key is the key as the ledger and lookups know it: what the Idempotency-Key means, so
	// `"abc"` and abc are both abc. A header that means no key (several, a broken quoted
	// string, a character outside 0x21 to 0x7E) is kept as received. Without the header (or
	// with an empty one), Key is the idempotency_key parameter.
	Key         string
	KeyHeader   string // the Idempotency-Key as received, several joined with ", "; "" for none
	Token       int    // the position of its bearer token in Config.Tokens, from 1; 0 for none or an unknown one
	Traceparent string // its traceparent header (W3C Trace Context) as received, cut to 128 bytes; "" if none
	// Payload is the body as far as the Server read it: a payment's, once its token, key and
	// Content-Type passed, at most MaxBodyBytes. It is empty when the Server read none.
	Payload []byte
	// InFlight is true until the Server has answered the request or closed its connection.
	// Fault, Status, Replayed and Elapsed are set then.
	InFlight bool
	Fault    string        // the kind of the fault the request met; "" for none
	Status   int           // the status of its answer; 0 if the Server closed the connection instead
	Replayed bool          // its answer said Idempotent-Replayed: true
	Elapsed  time.Duration // from its arrival to the end of its answer
}

// RequestFilter selects requests from the journal. Its zero value selects them all.
type RequestFilter struct {
	// Key, if not empty, selects only the requests whose Key is the key it means, read as an
	// Idempotency-Key is read (or Key itself, if it means none): `"abc"` and abc both select
	// abc. A key that itself starts with a double quote is written quoted: `"\"abc\""` selects "abc".
	Key    string
	Status int    // if not 0, only the requests answered with Status
	After  uint64 // only the requests whose Seq is greater
}

// Requests returns a copy of the requests in the journal that filter selects, in arrival order,
// and how many the journal has dropped since the Server was made or last Reset. The journal
// keeps the latest requests within Config.JournalMax and Config.JournalBytes. A request is in
// it from its arrival, InFlight until it is answered.
func (s *Server) Requests(filter RequestFilter) (requests []Request, dropped int64) {
	return s.journal.read(filter)
}

// maxTraceparentLen is the longest traceparent the journal keeps, in bytes. Version 00 of W3C
// Trace Context takes 55; a later version may add fields after them.
const maxTraceparentLen = 128

// entryOverhead is what a journal entry costs besides the text it counts, in bytes. Its
// Request takes 192 bytes, a size class of the allocator. The strings it keeps are rounded up
// to size classes, by at most 16 bytes each at a key's or a traceparent's usual length, and the
// path and method keep the protocol of their request line (9 bytes). The key mostly shares the
// bytes of its header, but both are counted.
const entryOverhead = 256

// journal keeps the latest requests a Server received, at most maxEntries of them in at most
// maxBytes bytes (see size). A new request, or a payload recorded, drops the oldest first. Its
// ring holds a pointer per entry it may keep, 8 bytes each. It is safe for concurrent use.
type journal struct {
	maxEntries, maxBytes int

	mu      sync.Mutex
	ring    []*Request // the entries, oldest first, from ring[head] on, wrapping around
	head, n int
	bytes   int    // the size of the n entries
	dropped int64  // entries dropped since the journal was made or reset
	seq     uint64 // the Seq of the latest request; a reset keeps it
}

func newJournal(cfg Config) *journal {
	return &journal{maxEntries: cfg.JournalMax, maxBytes: cfg.JournalBytes, ring: make([]*Request, cfg.JournalMax)}
}

// size is what e counts against the journal's bytes: its text, the payload's capacity (a clone
// rounds it up to the allocation), and entryOverhead.
func (e *Request) size() int {
	return entryOverhead + len(e.Method) + len(e.Path) + len(e.Key) + len(e.KeyHeader) + len(e.Traceparent) +
		cap(e.Payload)
}

// arrival is the entry of r as it arrives, what became of it still unknown.
func (s *Server) arrival(r *http.Request) *Request {
	traceparent := r.Header.Get("Traceparent")
	keys := r.Header.Values(IdempotencyKeyHeader)
	e := &Request{Arrived: time.Now(), Method: r.Method, Path: r.RequestURI,
		KeyHeader:   strings.Join(keys, ", "),
		Token:       s.tokenIndex(r.Header) + 1,
		Traceparent: strings.Clone(traceparent[:min(len(traceparent), maxTraceparentLen)]), // not the long header whole
	}
	if e.Path == "" { // a request made for a client (http.NewRequest), served in process
		e.Path = r.URL.RequestURI()
	}
	e.Key = e.KeyHeader // several headers mean no key
	if len(keys) == 1 {
		e.Key = keyOrAsSent(keys[0])
	}
	if e.Key == "" {
		e.Key = keyOrAsSent(r.URL.Query().Get(LookupParam))
	}
	return e
}

// open adds e to the journal, numbered and in flight, and drops the oldest entries beyond the
// bounds.
func (j *journal) open(e *Request) *Request {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.seq++
	e.Seq, e.InFlight = j.seq, true
	if j.n == j.maxEntries {
		j.dropOldest()
	}
	j.ring[(j.head+j.n)%j.maxEntries] = e
	j.n++
	j.bytes += e.size()
	j.fit()
	return e
}

// close records what became of e, answered or hung up on, unless the journal has dropped e.
// A payload that takes the journal beyond its bytes drops its oldest entries.
func (j *journal) close(e *Request, x *exchange) {
	elapsed := time.Since(e.Arrived)
	payload := bytes.Clone(x.payload) // the body read, not the buffer that read it
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.n == 0 || e.Seq < j.ring[j.head].Seq {
		return // dropped, or forgotten by a Reset
	}
	e.Payload, e.InFlight, e.Fault, e.Status, e.Replayed, e.Elapsed = payload, false, x.fault.Kind, x.status,
		x.replayed, elapsed
	j.bytes += cap(payload)
	j.fit()
}

// fit drops the oldest entries until the journal is within its bytes.
func (j *journal) fit() {
	for j.bytes > j.maxBytes {
		j.dropOldest()
	}
}

// dropOldest drops the oldest entry, and lets it be collected.
func (j *journal) dropOldest() {
	j.bytes -= j.ring[j.head].size()
	j.ring[j.head] = nil
	j.head = (j.head + 1) % j.maxEntries
	j.n--
	j.dropped++
}

// read returns copies of the entries f selects, oldest first, and the dropped count.
func (j *journal) read(f RequestFilter) ([]Request, int64) {
	key := keyOrAsSent(f.Key)
	j.mu.Lock()
	var found []Request
	for i := range j.n {
		e := j.ring[(j.head+i)%j.maxEntries]
		if e.Seq > f.After && (f.Key == "" || e.Key == key) && (f.Status == 0 || e.Status == f.Status) {
			found = append(found, *e)
		}
	}
	dropped := j.dropped
	j.mu.Unlock()
	for i := range found { // a payload never changes once recorded
		found[i].Payload = bytes.Clone(found[i].Payload)
	}
	return found, dropped
}

// reset empties the journal and its dropped count. Entries still in flight are not recorded
// when they end.
func (j *journal) reset() {
	j.mu.Lock()
	defer j.mu.Unlock()
	clear(j.ring)
	j.n, j.bytes, j.dropped = 0, 0, 0
}

// exchange is what the Server did with a request, noted as it serves it, for the journal.
type exchange struct {
	fault    Fault  // the fault it met
	payload  []byte // the body read, if any
	status   int    // the status written; 0 for none
	replayed bool   // the answer written was a replay
}
