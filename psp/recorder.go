package psp

import (
	"cmp"
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
}

// Recorder is an http.RoundTripper that records each round trip it passes to Next. Put it in
// the http.Client of the client under test to see what that client sent, rather than trust the
// client's own account. It is safe for concurrent use.
type Recorder struct {
	// Next makes the round trips. Nil means http.DefaultTransport.
	Next http.RoundTripper

	mu    sync.Mutex
	trips []Trip
}

// RoundTrip records req's round trip through Next and returns its result.
func (r *Recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	trip := Trip{Start: time.Now(), Key: req.Header.Get(idempotencyKeyHeader)}
	resp, err := cmp.Or(r.Next, http.DefaultTransport).RoundTrip(req)
	trip.End, trip.Err = time.Now(), err
	if err == nil {
		trip.Status = resp.StatusCode
		trip.RetryAfter = resp.Header.Get("Retry-After")
		trip.Replayed = resp.Header.Get(replayedHeader) == "true"
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
	trips := r.trips
	r.trips = nil
	return trips
}
