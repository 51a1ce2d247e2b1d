package main

import (
	"net/http"
	"sync"
)

// requestKind is what a request of the demo's client is, as its dialect sorts it.
type requestKind int

const (
	otherRequest   requestKind = iota // neither of the two below, such as an Open Finance consent
	paymentRequest                    // an attempt to pay
	lookupRequest                     // a lookup of a payment
)

// trip is one request of the demo's client, as its transport saw it.
type trip struct {
	Key    string // the idempotency key it carried, as its dialect carries it; "" for none
	Status int    // the answer's status; 0 when the round trip failed
	Err    error  // the transport's error
}

// recorder is an http.RoundTripper that records the payments and the lookups that it passes
// to Next, sorted by Sort. Other requests pass unrecorded. It is safe for concurrent use.
type recorder struct {
	Next http.RoundTripper
	Sort func(*http.Request) (requestKind, string)

	mu       sync.Mutex
	payments []trip
	lookups  []trip
}

// RoundTrip sends req through Next and records its round trip once it returns.
func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	kind, key := r.Sort(req)
	resp, err := r.Next.RoundTrip(req)
	t := trip{Key: key, Err: err}
	if err == nil {
		t.Status = resp.StatusCode
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch kind {
	case paymentRequest:
		r.payments = append(r.payments, t)
	case lookupRequest:
		r.lookups = append(r.lookups, t)
	}
	return resp, err
}

// take returns the payments and the lookups recorded since the last take, each in the order
// they returned, and forgets them.
func (r *recorder) take() (payments, lookups []trip) {
	r.mu.Lock()
	defer r.mu.Unlock()
	payments, lookups = r.payments, r.lookups
	r.payments, r.lookups = nil, nil
	return payments, lookups
}
