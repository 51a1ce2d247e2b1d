package psp_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
)

func TestRecorderRecordsEachRoundTrip(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t)
		s.Inject(psp.StatusRetryAfter(503, 2*time.Second), psp.Slow(time.Second))
		rec := &psp.Recorder{Next: inProcess(s)}
		start := time.Now()
		for range 3 { // 503 with Retry-After, a slow settlement, a replay
			resp, err := rec.RoundTrip(paymentRequest("k1", validBody))
			if err != nil {
				t.Fatal(err)
			}
			readAnswer(t, resp) // to EOF, which is no body error
		}
		got := rec.Take()
		want := []psp.Trip{
			{Start: start, End: start, Key: "k1", Status: 503, RetryAfter: "2"},
			{Start: start, End: start.Add(time.Second), Key: "k1", Status: 201},
			{Start: start.Add(time.Second), End: start.Add(time.Second), Key: "k1", Status: 201, Replayed: true},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Take() diff (-want +got):\n%s", diff)
		}
		if got := rec.Take(); len(got) != 0 {
			t.Errorf("Take() again = %v, want nothing: the first Take forgets", got)
		}
	})
}

func TestRecorderRecordsATransportError(t *testing.T) {
	boom := errors.New("boom")
	rec := &psp.Recorder{Next: roundTripper(func(*http.Request) (*http.Response, error) { return nil, boom })}
	r := paymentRequest("k1", validBody)
	if _, err := rec.RoundTrip(r); err != boom {
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
	rec := &psp.Recorder{Next: roundTripper(func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 201, Header: http.Header{}, Body: io.NopCloser(body)}, nil
	})}
	resp, err := rec.RoundTrip(paymentRequest("k1", validBody))
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
	ts := httptest.NewServer(mustServer(t))
	t.Cleanup(ts.Close)
	t.Cleanup(http.DefaultTransport.(*http.Transport).CloseIdleConnections)
	rec := &psp.Recorder{}
	r, _ := http.NewRequest(http.MethodPost, ts.URL+psp.PaymentsPath, strings.NewReader(validBody))
	r.Header = paymentRequest("k1", validBody).Header
	resp, err := (&http.Client{Transport: rec}).Do(r)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := rec.Take(); len(got) != 1 || got[0].Status != 201 {
		t.Errorf("Take() = %+v, want one settled trip", got)
	}
}
