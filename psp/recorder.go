package psp

import (
	"cmp"
	"io"
	"net/http"
	"sync"
	"time"
)

// Trip is one round trip as a client's transport saw it.
type Trip struct {
	Start      time.Time
	End        time.Time // when the answer's header arrived, or the round trip failed
	Key        string    // the Idempotency-Key sent
	Status     int       // 0 when the round trip failed
	RetryAfter string    // the answer's Retry-After
	Replayed   bool      // the answer carried Idempotent-Replayed: true
	Err        error     // the transport's error
	BodyErr    error     // the first error reading the answer's body, other than EOF: a truncated answer
}

// Recorder is an http.RoundTripper that records each round trip it passes to Next. Put it in
// the http.Client of the client under test to see what that client sent, rather than trust the
// client's own account. It is safe for concurrent use.
type Recorder struct {
	// Next makes the round trips. Nil means http.DefaultTransport.
	Next http.RoundTripper

	mu    sync.Mutex
	trips []*Trip
}

// RoundTrip records req's round trip through Next and returns its result. The answer's body
// notes in the Trip the first error that reading it meets.
func (r *Recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	trip := &Trip{Start: time.Now(), Key: req.Header.Get(idempotencyKeyHeader)}
	resp, err := cmp.Or(r.Next, http.DefaultTransport).RoundTrip(req)
	trip.End, trip.Err = time.Now(), err
	if err == nil {
		trip.Status = resp.StatusCode
		trip.RetryAfter = resp.Header.Get("Retry-After")
		trip.Replayed = resp.Header.Get(replayedHeader) == "true"
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
