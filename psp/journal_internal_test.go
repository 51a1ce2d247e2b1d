package psp

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"
	"weak"
)

// checkJournal checks the journal's accounting: its bytes are the sizes of its entries, within
// both bounds.
func checkJournal(tb testing.TB, j *journal) {
	tb.Helper()
	j.mu.Lock()
	defer j.mu.Unlock()
	sum := 0
	for i := range j.n {
		sum += j.ring[(j.head+i)%j.maxEntries].size()
	}
	if j.bytes != sum || j.bytes > j.maxBytes || j.n > j.maxEntries {
		tb.Errorf("journal of %d entries counts %d bytes, its entries take %d; want those equal, within %d entries and %d bytes",
			j.n, j.bytes, sum, j.maxEntries, j.maxBytes)
	}
}

func TestRequestSize(t *testing.T) {
	e := Request{Method: "POST", Path: "/v1/pix/payments", Key: "k1", KeyHeader: `"k1"`, Traceparent: "00-1",
		Payload: make([]byte, 5, 8)}
	if got, want := e.size(), 256+4+16+2+4+4+8; got != want {
		t.Errorf("size() = %d, want %d: entryOverhead, the text and the payload's capacity", got, want)
	}
}

// TestEntryOverheadCoversARequest: a Request takes at most 192 bytes, a size class, and
// entryOverhead leaves room for 16 bytes of rounding on each of the three texts it allocates
// (the request line, the key's header and the traceparent) and for the request line's protocol.
func TestEntryOverheadCoversARequest(t *testing.T) {
	if size := unsafe.Sizeof(Request{}); size > 192 || entryOverhead < 192+3*16+len(" HTTP/1.1") {
		t.Errorf("a Request takes %d bytes, entryOverhead is %d; want at most 192 and room for the rest", size, entryOverhead)
	}
}

// TestJournalFilledExactly: entries whose sizes add up to maxBytes all stay.
func TestJournalFilledExactly(t *testing.T) {
	e := Request{Method: "GET", Path: "/"}
	j := newJournal(Config{JournalMax: 10, JournalBytes: 3*e.size() + 8})
	for range 3 {
		j.open(&Request{Method: "GET", Path: "/"})
	}
	last := j.open(&Request{Method: "GET", Path: "/"})
	if j.n != 3 || j.dropped != 1 {
		t.Fatalf("journal holds %d entries and dropped %d, want 3 and 1", j.n, j.dropped)
	}
	j.close(last, &exchange{payload: make([]byte, 8)}) // a clone of 8 bytes has a capacity of 8
	if j.n != 3 || j.dropped != 1 || j.bytes != j.maxBytes {
		t.Errorf("journal holds %d entries in %d bytes and dropped %d, want 3 in %d and 1", j.n, j.bytes, j.dropped, j.maxBytes)
	}
	checkJournal(t, j)
}

// TestJournalClosesOnlyItsEntries: an entry dropped, or emptied by a reset, while in flight adds
// nothing when it closes.
func TestJournalClosesOnlyItsEntries(t *testing.T) {
	j := newJournal(Config{JournalMax: 1, JournalBytes: 1 << 20})
	first := j.open(&Request{Method: "POST", Path: "/"})
	j.open(&Request{Method: "POST", Path: "/"})
	j.close(first, &exchange{payload: make([]byte, 100), status: 201})
	checkJournal(t, j)
	if got, _ := j.read(RequestFilter{}); len(got) != 1 || got[0].Seq != 2 || !got[0].InFlight {
		t.Errorf("read() = %+v, want the second entry alone, in flight", got)
	}

	j = newJournal(Config{JournalMax: 4, JournalBytes: 1 << 20})
	first = j.open(&Request{Method: "POST", Path: "/"})
	j.reset()
	j.close(first, &exchange{payload: make([]byte, 100), status: 201})
	checkJournal(t, j)
	if j.n != 0 || j.bytes != 0 {
		t.Errorf("after a reset the journal holds %d entries in %d bytes, want none", j.n, j.bytes)
	}
}

// fill opens and closes an entry per payload length and returns a weak pointer to each.
func fill(j *journal, payloads ...int) []weak.Pointer[Request] {
	var refs []weak.Pointer[Request]
	for _, n := range payloads {
		e := j.open(&Request{Method: "GET", Path: "/"})
		j.close(e, &exchange{payload: make([]byte, n)})
		refs = append(refs, weak.Make(e))
	}
	return refs
}

// TestJournalLetsItsDroppedEntriesGo: an entry dropped for bytes, or by a reset, is collected,
// though its slot in the ring is not reused yet. Else the journal would hold more than it counts.
func TestJournalLetsItsDroppedEntriesGo(t *testing.T) {
	j := newJournal(Config{JournalMax: 8, JournalBytes: 2000})
	refs := fill(j, 0, 0, 1500) // the third one's payload drops the first two
	runtime.GC()
	if refs[0].Value() != nil || refs[1].Value() != nil || refs[2].Value() == nil {
		t.Errorf("after a GC, the entries left are %v, %v, %v; want only the third", refs[0].Value(), refs[1].Value(), refs[2].Value())
	}
	j.reset()
	runtime.GC()
	if refs[2].Value() != nil {
		t.Errorf("after a reset and a GC, the third entry is left")
	}
	runtime.KeepAlive(j) // its ring, not the journal, must let the entries go
}

// TestJournalStaysWithinItsBytesUnderLoad: many concurrent requests with large payloads, and
// readers, keep the journal's accounting exact and within its bounds after every request.
func TestJournalStaysWithinItsBytesUnderLoad(t *testing.T) {
	s, err := NewServer(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	const workers, each = 8, 25
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				n := 1000 + (w*each+i)*7919%(MaxBodyBytes-1000) // 1 KB to 64 KiB, spread
				body := `{"valor":"` + strings.Repeat("9", n) + `"}`
				r := httptest.NewRequest(http.MethodPost, PaymentsPath, strings.NewReader(body))
				r.Header.Set("Authorization", "Bearer "+DefaultToken)
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set(IdempotencyKeyHeader, "k"+strconv.Itoa(w)+"-"+strconv.Itoa(i))
				s.ServeHTTP(httptest.NewRecorder(), r)
				checkJournal(t, s.journal)
			}
		})
	}
	wg.Go(func() {
		for range workers * each {
			s.Requests(RequestFilter{Status: http.StatusBadRequest})
		}
	})
	wg.Wait()
	requests, dropped := s.Requests(RequestFilter{})
	if got := int64(len(requests)) + dropped; got != workers*each || dropped == 0 {
		t.Errorf("%d requests kept and %d dropped, want %d in all, some dropped", len(requests), dropped, workers*each)
	}
}
