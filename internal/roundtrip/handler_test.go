package roundtrip_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/internal/roundtrip"
)

// A Handler behind a numbering Recorder records each request with the number of the round trip
// that sent it, and what the handler answered. A GET's key comes from KeyParam, on both sides.
func TestHandlerPairsEachRequestWithItsTrip(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wire := &roundtrip.Handler{Next: &answers{}, KeyParam: "idempotency_key"}
		rec := &roundtrip.Recorder{Next: inProcess(wire), Numbers: new(atomic.Int64), KeyParam: "idempotency_key"}
		start := time.Now()
		lookup, _ := http.NewRequest(http.MethodGet, "http://psp.test/v1/pix/payments?idempotency_key=k2", http.NoBody)
		for _, r := range []*http.Request{request("k1"), request("k1"), lookup} {
			r.Header.Set("Authorization", "Bearer tok")
			if _, err := rec.RoundTrip(r); err != nil {
				t.Fatal(err)
			}
		}
		header := len("Retry-After: 2\r\n")
		replayed := len("Idempotent-Replayed: true\r\n")
		want := []roundtrip.Exchange{
			{Trip: 1, Arrived: start, Answered: start, Method: "POST", Token: "tok", Key: "k1", Request: []byte("{}"),
				Status: 503, HeaderBytes: header},
			{Trip: 2, Arrived: start, Answered: start.Add(time.Second), Method: "POST", Token: "tok", Key: "k1",
				Request: []byte("{}"), Status: 201},
			{Trip: 3, Arrived: start.Add(time.Second), Answered: start.Add(time.Second), Method: "GET", Token: "tok",
				Key: "k2", Status: 201, Replayed: true, HeaderBytes: replayed},
		}
		if diff := cmp.Diff(want, wire.Exchanges()); diff != "" {
			t.Errorf("Exchanges() diff (-want +got):\n%s", diff)
		}
		var keys []string
		for _, trip := range rec.Take() {
			keys = append(keys, trip.Method+" "+trip.Key)
		}
		if want := []string{"POST k1", "POST k1", "GET k2"}; !cmp.Equal(keys, want) {
			t.Errorf("the Recorder's Trips have methods and keys %q, want %q", keys, want)
		}
	})
}

// A body written without a status is a 200; a handler that takes the connection over to close
// it leaves an Exchange with no status, hijacked.
func TestHandlerRecordsBodiesAndHijacks(t *testing.T) {
	wire := &roundtrip.Handler{Next: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/close" {
			io.Copy(io.Discard, r.Body)
			conn, _, _ := http.NewResponseController(w).Hijack()
			conn.Close()
			return
		}
		io.WriteString(w, "hello")
	})}
	ts := httptest.NewServer(wire)
	defer ts.Close()
	for _, path := range []string{"/hello", "/close"} {
		if resp, err := ts.Client().Post(ts.URL+path, "text/plain", strings.NewReader("body")); err == nil {
			resp.Body.Close()
		}
	}
	ts.Close() // every handler has returned
	got := wire.Exchanges()
	if len(got) != 2 || got[0].Status != 200 || string(got[0].Body) != "hello" || got[0].Hijacked ||
		got[1].Status != 0 || !got[1].Hijacked || string(got[1].Request) != "body" {
		t.Errorf("Exchanges() = %+v, want a 200 saying hello, then a hijacked request without an answer", got)
	}
}

// KeyOf, when set, gives the key on both sides: here the path's last segment, as a dialect
// that carries its key in the path has it, whatever the Idempotency-Key or KeyParam say.
func TestKeyOfGivesTheKeyOnBothSides(t *testing.T) {
	inPath := func(r *http.Request) string { return path.Base(r.URL.Path) }
	wire := &roundtrip.Handler{Next: &answers{}, KeyParam: "idempotency_key", KeyOf: inPath}
	rec := &roundtrip.Recorder{Next: inProcess(wire), KeyParam: "idempotency_key", KeyOf: inPath}
	put, _ := http.NewRequest(http.MethodPut, "http://psp.test/v2/gn/pix/k1", strings.NewReader("{}"))
	put.Header.Set("Idempotency-Key", "other")
	get, _ := http.NewRequest(http.MethodGet, "http://psp.test/v2/gn/pix/enviados/k2?idempotency_key=k3", http.NoBody)
	for _, r := range []*http.Request{put, get} {
		if _, err := rec.RoundTrip(r); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, trip := range rec.Take() {
		got = append(got, "trip "+trip.Key)
	}
	for _, ex := range wire.Exchanges() {
		got = append(got, "exchange "+ex.Key)
	}
	if want := []string{"trip k1", "trip k2", "exchange k1", "exchange k2"}; !cmp.Equal(got, want) {
		t.Errorf("keys = %q, want %q", got, want)
	}
}

// The record holds a request's body as far as the handler read it: none when it answered
// first, as a fault does, and part when it stopped there. The handler reads the body the
// client sent, whole.
func TestHandlerRecordsTheBodyAsItWasRead(t *testing.T) {
	var got []string
	wire := &roundtrip.Handler{Next: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("read"))
		b := make([]byte, n)
		io.ReadFull(r.Body, b)
		var rest []byte
		if r.URL.Query().Get("rest") != "" {
			rest, _ = io.ReadAll(r.Body)
		}
		got = append(got, string(b)+"|"+string(rest))
	})}
	for _, target := range []string{"/?read=0", "/?read=3", "/?read=3&rest=1"} {
		r := httptest.NewRequest(http.MethodPost, target, strings.NewReader("abcdef"))
		wire.ServeHTTP(httptest.NewRecorder(), r)
	}
	var recorded []string
	for _, ex := range wire.Exchanges() {
		recorded = append(recorded, string(ex.Request))
	}
	if want := []string{"", "abc", "abcdef"}; !cmp.Equal(recorded, want) {
		t.Errorf("the recorded bodies are %q, want %q", recorded, want)
	}
	if want := []string{"|", "abc|", "abc|def"}; !cmp.Equal(got, want) {
		t.Errorf("the handler read %q, want %q", got, want)
	}
}
