package roundtrip_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"pixretry/internal/roundtrip"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// roundTripper is an http.RoundTripper made of a function.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// inProcess serves each round trip with h, in process.
func inProcess(h http.Handler) roundTripper {
	return func(r *http.Request) (*http.Response, error) {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Result(), nil
	}
}

// answers is a handler that reads each request's body and writes, for each request, the next of a 503 with Retry-After 2, a
// 201 after a virtual second, and a replayed 201; it notes the Round-Trip header it received.
type answers struct {
	n        int
	received []string
}

func (a *answers) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	a.received = append(a.received, r.Header.Get(roundtrip.Header))
	a.n++
	switch a.n {
	case 1:
		w.Header().Set("Retry-After", "2")
		w.WriteHeader(503)
	case 2:
		time.Sleep(time.Second)
		w.WriteHeader(201)
	default:
		w.Header().Set("Idempotent-Replayed", "true")
		w.WriteHeader(201)
	}
}

func request(key string) *http.Request {
	r, _ := http.NewRequest(http.MethodPost, "http://psp.test/v1/pix/payments", strings.NewReader("{}"))
	r.Header.Set("Idempotency-Key", key)
	return r
}

func TestRecorderRecordsEachRoundTrip(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &roundtrip.Recorder{Next: inProcess(&answers{})}
		start := time.Now()
		for range 3 {
			resp, err := rec.RoundTrip(request("k1"))
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body) // to EOF, which is no body error
		}
		got := rec.Take()
		want := []roundtrip.Trip{
			{Start: start, End: start, Method: "POST", Key: "k1", Status: 503, RetryAfter: "2"},
			{Start: start, End: start.Add(time.Second), Method: "POST", Key: "k1", Status: 201},
			{Start: start.Add(time.Second), End: start.Add(time.Second), Method: "POST", Key: "k1", Status: 201,
				Replayed: true},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Take() diff (-want +got):\n%s", diff)
		}
		if got := rec.Take(); len(got) != 0 {
			t.Errorf("Take() again = %v, want nothing: the first Take forgets", got)
		}
	})
}

// Recorders that share Numbers number their round trips apart, send the number in Header, and
// leave the caller's request as it was.
func TestRecordersNumberTheirRoundTrips(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var numbers atomic.Int64
		h := &answers{}
		a := &roundtrip.Recorder{Next: inProcess(h), Numbers: &numbers}
		b := &roundtrip.Recorder{Next: inProcess(h), Numbers: &numbers}
		var sent []*http.Request
		for _, rec := range []*roundtrip.Recorder{a, b, a} {
			r := request("k")
			sent = append(sent, r)
			if _, err := rec.RoundTrip(r); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := h.received, []string{"1", "2", "3"}; !cmp.Equal(got, want) {
			t.Errorf("the handler received Round-Trip %q, want %q", got, want)
		}
		var got []int64
		for _, trip := range append(a.Take(), b.Take()...) {
			got = append(got, trip.Number)
		}
		if want := []int64{1, 3, 2}; !cmp.Equal(got, want) {
			t.Errorf("Trip.Number of a's then b's round trips = %v, want %v", got, want)
		}
		for i, r := range sent {
			if v := r.Header.Get(roundtrip.Header); v != "" {
				t.Errorf("request %d: the caller's header now holds Round-Trip %q, want it untouched", i, v)
			}
		}
	})
}

func TestRecorderRecordsATransportError(t *testing.T) {
	boom := errors.New("boom")
	rec := &roundtrip.Recorder{Next: roundTripper(func(*http.Request) (*http.Response, error) { return nil, boom })}
	if _, err := rec.RoundTrip(request("k1")); err != boom {
		t.Fatalf("RoundTrip() error = %v, want %v as Next returned it", err, boom)
	}
	got := rec.Take()
	if len(got) != 1 || got[0].Key != "k1" || got[0].Err != boom || got[0].Status != 0 || got[0].Replayed {
		t.Errorf("Take() = %+v, want one trip with key k1, error %v and no answer", got, boom)
	}
}

// A body that breaks off is a truncated answer: the trip notes the first error reading it.
func TestRecorderRecordsABodyError(t *testing.T) {
	first, second := errors.New("unexpected EOF"), errors.New("closed")
	reads := []error{nil, first, second}
	body := readerFunc(func(p []byte) (int, error) {
		err := reads[0]
		reads = reads[1:]
		return copy(p, "{"), err
	})
	rec := &roundtrip.Recorder{Next: roundTripper(func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 201, Header: http.Header{}, Body: io.NopCloser(body)}, nil
	})}
	resp, err := rec.RoundTrip(request("k1"))
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		resp.Body.Read(make([]byte, 8))
	}
	if got := rec.Take(); len(got) != 1 || got[0].BodyErr != first || got[0].Status != 201 {
		t.Errorf("Take() = %+v, want one 201 trip with body error %v", got, first)
	}
}

// readerFunc is an io.Reader made of a function.
type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

func TestRecorderWithoutNextUsesTheDefaultTransport(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(201) }))
	t.Cleanup(ts.Close)
	t.Cleanup(http.DefaultTransport.(*http.Transport).CloseIdleConnections)
	rec := &roundtrip.Recorder{}
	resp, err := (&http.Client{Transport: rec}).Post(ts.URL, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := rec.Take(); len(got) != 1 || got[0].Status != 201 {
		t.Errorf("Take() = %+v, want one settled trip", got)
	}
}
