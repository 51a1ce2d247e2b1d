package main

import (
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// roundTripper is a RoundTripper made of a function.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// The wire records payment requests, and only them, with the key they carried and what came
// back; take hands them over once.
func TestWireRecordsPayments(t *testing.T) {
	errLost := errors.New("lost")
	next := roundTripper(func(r *http.Request) (*http.Response, error) {
		if r.Header.Get("X-Fail") != "" {
			return nil, errLost
		}
		return &http.Response{StatusCode: http.StatusCreated, Body: http.NoBody}, nil
	})
	client, sent := recording(&http.Client{Transport: next})
	send := func(method, path, key string, fail bool) {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), method, "http://psp"+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Idempotency-Key", key)
		if fail {
			req.Header.Set("X-Fail", "1")
		}
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
		}
	}
	send(http.MethodPost, paymentPath, "k1", false)
	send(http.MethodPost, paymentPath, "k1", true)
	send(http.MethodGet, paymentPath, "k2", false)      // not a payment: another method
	send(http.MethodPost, "/_psp/faults", "k3", false)  // not a payment: another path
	send(http.MethodPost, paymentPath+"/x", "k4", true) // not a payment: another path

	got := sent.take()
	want := []wireAttempt{{Key: "k1", Status: http.StatusCreated}, {Key: "k1", Err: errLost}}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
		t.Errorf("take() mismatch (-want +got):\n%s", diff)
	}
	if got := sent.take(); len(got) != 0 {
		t.Errorf("take() again = %v, want nothing", got)
	}
}

// recording leaves the caller's client alone and stands in for net/http's default transport
// when the client has none.
func TestRecordingWrapsACopy(t *testing.T) {
	orig := &http.Client{}
	client, sent := recording(orig)
	if orig.Transport != nil {
		t.Errorf("recording() changed the caller's client: Transport = %v", orig.Transport)
	}
	if client.Transport != sent {
		t.Errorf("client.Transport = %v, want the wire", client.Transport)
	}
	if sent.next != http.DefaultTransport {
		t.Errorf("wire.next = %v, want http.DefaultTransport", sent.next)
	}
}
