// Package roundtrip records the round trips an HTTP client makes, as its transport sees them
// (Recorder), and the requests a server receives, as its handler sees them (Handler): what a
// client under test sent and what reached the server, rather than their own accounts of it.
package roundtrip

import (
	"cmp"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Header carries a round trip's number on the request, when a Recorder numbers them. A Handler
// reads it to pair the request it receives with the Trip that sent it.
const Header = "Round-Trip"

// Trip is one round trip as a client's transport saw it.
type Trip struct {
	Number     int64 // the number sent in Header; 0 when the Recorder does not number
	Start      time.Time
	End        time.Time // when the answer's header arrived, or the round trip failed
	Method     string
	Key        string // the Idempotency-Key sent, a GET's Recorder.KeyParam, or what Recorder.KeyOf gives
	Status     int    // 0 when the round trip failed
	RetryAfter string // the answer's Retry-After
	Replayed   bool   // the answer carried Idempotent-Replayed: true
	Err        error  // the transport's error
	BodyErr    error  // the first error reading the answer's body, other than EOF: a truncated answer
}

// Recorder is an http.RoundTripper that records each round trip it passes to Next. It is safe
// for concurrent use.
type Recorder struct {
	// Next makes the round trips. Nil means http.DefaultTransport.
	Next http.RoundTripper
	// Numbers, when not nil, numbers the round trips: each takes the next value (1 for the
	// first), records it in Trip.Number and sends it in Header. Recorders that share Numbers
	// number their round trips apart.
	Numbers *atomic.Int64
	// KeyParam, when not empty, is the query parameter that gives a GET its Key, as in
	// Handler.KeyParam.
	KeyParam string
	// KeyOf, when not nil, gives each request its Key instead, as in Handler.KeyOf.
	KeyOf func(*http.Request) string

	mu    sync.Mutex
	trips []*Trip
}

// RoundTrip records req's round trip through Next and returns its result. The answer's body
// notes in the Trip the first error that reading it meets.
func (r *Recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	trip := &Trip{Start: time.Now(), Method: req.Method, Key: keyOf(req, r.KeyParam, r.KeyOf)}
	if r.Numbers != nil {
		trip.Number = r.Numbers.Add(1)
		req = req.Clone(req.Context()) // a RoundTripper must not modify the caller's request
		req.Header.Set(Header, strconv.FormatInt(trip.Number, 10))
	}
	resp, err := cmp.Or(r.Next, http.DefaultTransport).RoundTrip(req)
	trip.End, trip.Err = time.Now(), err
	if err == nil {
		trip.Status = resp.StatusCode
		trip.RetryAfter = resp.Header.Get("Retry-After")
		trip.Replayed = resp.Header.Get("Idempotent-Replayed") == "true"
		resp.Body = &recordedBody{ReadCloser: resp.Body, rec: r, trip: trip}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.trips = append(r.trips, trip)
	return resp, err
}

// Take returns the round trips recorded since the last Take, in order, and forgets them.
func (r *Recorder) Take() []Trip {
	r.mu.Lock()
	defer r.mu.Unlock()
	trips := make([]Trip, len(r.trips))
	for i, t := range r.trips {
		trips[i] = *t
	}
	r.trips = nil
	return trips
}

// recordedBody is an answer's body that notes in trip the first error reading it.
type recordedBody struct {
	io.ReadCloser
	rec  *Recorder
	trip *Trip
}

func (b *recordedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		b.rec.mu.Lock()
		defer b.rec.mu.Unlock()
		b.trip.BodyErr = cmp.Or(b.trip.BodyErr, err)
	}
	return n, err
}

// keyOf is the key r carries: what of gives, if not nil, else a GET's query parameter param, if
// not empty, else its Idempotency-Key.
func keyOf(r *http.Request, param string, of func(*http.Request) string) string {
	switch {
	case of != nil:
		return of(r)
	case param != "" && r.Method == http.MethodGet:
		return r.URL.Query().Get(param)
	}
	return r.Header.Get("Idempotency-Key")
}
