package psp_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
)

// wantJournal checks what s.Requests(filter) returns: want, in order, and dropped.
func wantJournal(tb testing.TB, s *psp.Server, filter psp.RequestFilter, want []psp.Request, dropped int64) {
	tb.Helper()
	got, gotDropped := s.Requests(filter)
	if diff := cmp.Diff(want, got); diff != "" || gotDropped != dropped {
		tb.Errorf("Requests(%+v) dropped %d, want %d; requests mismatch (-want +got):\n%s", filter, gotDropped, dropped, diff)
	}
}

// posted is the journal's entry of a payment request made by paymentRequest with a plain key,
// answered at once with status, before its payload is filled in.
func posted(seq uint64, at time.Time, key string, status int) psp.Request {
	return psp.Request{Seq: seq, Arrived: at, Method: http.MethodPost, Path: psp.PaymentsPath, Key: key,
		KeyHeader: key, Token: 1, Status: status}
}

// withPayload is r with payload, as a string.
func withPayload(r psp.Request, payload string) psp.Request {
	r.Payload = []byte(payload)
	return r
}

// TestJournalRecordsAPayment: each member of a payment's entry, from a Server whose second
// token it carries.
func TestJournalRecordsAPayment(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t, func(c *psp.Config) {
			c.Tokens, c.ServiceTime = []string{"alpha-secret", "beta-secret"}, 1500*time.Microsecond
		})
		const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
		r := paymentRequest("order-42", validBody)
		r.Header.Set("Authorization", "Bearer beta-secret")
		r.Header.Set("Traceparent", traceparent)
		start := time.Now()
		wantSettled(t, serve(s, r))
		wantJournal(t, s, psp.RequestFilter{}, []psp.Request{{Seq: 1, Arrived: start, Method: "POST",
			Path: "/v1/pix/payments", Key: "order-42", KeyHeader: "order-42", Token: 2, Traceparent: traceparent,
			Payload: []byte(validBody), Status: 201, Elapsed: 1500 * time.Microsecond}}, 0)
	})
}

// TestJournalShowsAReplay: exactly two requests carried the key, the first lost its answer to a
// drop, and the second got the replayed answer.
func TestJournalShowsAReplay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t)
		start := time.Now()
		s.Inject(psp.Drop())
		serveAborted(t, s, paymentRequest("k1", validBody))
		wantSettled(t, pay(s, "k2", validBody))
		pay(s, "k1", validBody)

		dropped := withPayload(posted(1, start, "k1", 0), validBody)
		dropped.Fault = "drop"
		replayed := withPayload(posted(3, start, "k1", 201), validBody)
		replayed.Replayed = true
		wantJournal(t, s, psp.RequestFilter{Key: "k1"}, []psp.Request{dropped, replayed}, 0)
	})
}

// TestJournalShowsARequestInFlight: a request is in the journal from its arrival, in order, and
// is filled in once answered.
func TestJournalShowsARequestInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t)
		start := time.Now()
		s.Inject(psp.Slow(time.Second))
		first := payInBackground(s, "k1")
		synctest.Wait() // k1 in flight
		wantProblem(t, pay(s, "k1", validBody), 409, "idempotency_key_in_use")

		inFlight := posted(1, start, "k1", 0)
		inFlight.InFlight = true
		conflict := withPayload(posted(2, start, "k1", 409), validBody)
		wantJournal(t, s, psp.RequestFilter{}, []psp.Request{inFlight, conflict}, 0)
		wantJournal(t, s, psp.RequestFilter{Status: 409}, []psp.Request{conflict}, 0)

		wantSettled(t, <-first)
		settled := withPayload(posted(1, start, "k1", 201), validBody)
		settled.Fault, settled.Elapsed = "slow", time.Second
		wantJournal(t, s, psp.RequestFilter{}, []psp.Request{settled, conflict}, 0)
	})
}

// TestJournalRecordsEveryAnswer: refusals, faults, lookups and requests the Server does not
// serve, each as it was answered. Only a payment that passed its token and key shows a payload.
func TestJournalRecordsEveryAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t)
		start := time.Now()
		other := `{"valor":"9.99","chave":"pix@example.com"}`
		badBody := `{"valor":"0.00","chave":"pix@example.com"}`
		wantSettled(t, pay(s, "k1", validBody))
		wantProblem(t, pay(s, "k1", other), 422, "idempotency_key_reused")
		wantProblem(t, pay(s, "k2", badBody), 400, "invalid_request")
		s.Inject(psp.Status(503), psp.ResetConn(), psp.Status(502).ForLookup(), psp.CommitStatus(500))
		wantProblem(t, pay(s, "k3", validBody), 503, "injected_fault")
		serveAborted(t, s, paymentRequest("k3", validBody))
		wantProblem(t, lookUp(s, "k1"), 502, "injected_fault")
		wantProblem(t, pay(s, "k4", validBody), 500, "injected_fault")
		if a := lookUp(s, "k1"); a.status != 200 {
			t.Fatalf("lookup of k1 = %d %s, want 200", a.status, a.body)
		}
		wantProblem(t, lookUp(s, "k9"), 404, "payment_not_found")
		wantProblem(t, serve(s, httptest.NewRequest("GET", "/v1/pix/refunds?x=1", nil)), 404, "not_found")
		wantProblem(t, serve(s, httptest.NewRequest("PUT", psp.PaymentsPath, strings.NewReader(validBody))),
			405, "method_not_allowed")
		unknown := paymentRequest("k5", validBody)
		unknown.Header.Set("Authorization", "Bearer stranger")
		wantProblem(t, serve(s, unknown), 401, "unauthorized")

		lookup := func(seq uint64, key string, status int) psp.Request {
			return psp.Request{Seq: seq, Arrived: start, Method: "GET", Path: psp.PaymentsPath + "?idempotency_key=" + key,
				Key: key, Token: 1, Status: status}
		}
		faulted := func(r psp.Request, kind string) psp.Request {
			r.Fault = kind
			return r
		}
		want := []psp.Request{
			withPayload(posted(1, start, "k1", 201), validBody),
			withPayload(posted(2, start, "k1", 422), other),
			withPayload(posted(3, start, "k2", 400), badBody),
			faulted(posted(4, start, "k3", 503), "status"), // before any processing: no payload read
			faulted(posted(5, start, "k3", 0), "reset"),
			faulted(lookup(6, "k1", 502), "status"),
			faulted(withPayload(posted(7, start, "k4", 500), validBody), "commit_status"),
			lookup(8, "k1", 200),
			lookup(9, "k9", 404),
			{Seq: 10, Arrived: start, Method: "GET", Path: "/v1/pix/refunds?x=1", Status: 404},
			{Seq: 11, Arrived: start, Method: "PUT", Path: psp.PaymentsPath, Status: 405},
			{Seq: 12, Arrived: start, Method: "POST", Path: psp.PaymentsPath, Key: "k5", KeyHeader: "k5", Status: 401},
		}
		wantJournal(t, s, psp.RequestFilter{}, want, 0)
	})
}

// TestJournalKeepsTheKeyAndItsHeader: Key is the key the Idempotency-Key means, else the header
// as received, else a lookup's parameter; KeyHeader is the header as received.
func TestJournalKeepsTheKeyAndItsHeader(t *testing.T) {
	s := mustServer(t)
	pay(s, `"k\"1"`, validBody) // a structured-field string
	twice := paymentRequest("a", validBody)
	twice.Header.Add(psp.IdempotencyKeyHeader, "b")
	serve(s, twice)
	lookUp(s, "k+1") // percent-encoded as k%2B1
	both := lookupRequest("from-query")
	both.Header.Set(psp.IdempotencyKeyHeader, "from-header")
	serve(s, both)
	serve(s, httptest.NewRequest("DELETE", psp.PaymentsPath, nil))
	wantProblem(t, pay(s, `"k1`, validBody), 400, "idempotency_key_invalid")   // a quote not closed
	wantProblem(t, pay(s, `"k\1"`, validBody), 400, "idempotency_key_invalid") // a bad escape
	wantProblem(t, pay(s, `"k 1"`, validBody), 400, "idempotency_key_invalid") // a space in the key

	requests, _ := s.Requests(psp.RequestFilter{})
	var keys [][2]string
	for _, r := range requests {
		keys = append(keys, [2]string{r.Key, r.KeyHeader})
	}
	want := [][2]string{{`k"1`, `"k\"1"`}, {"a, b", "a, b"}, {"k+1", ""}, {"from-header", "from-header"}, {"", ""},
		{`"k1`, `"k1`}, {`"k\1"`, `"k\1"`}, {`"k 1"`, `"k 1"`}}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("{Key, KeyHeader} mismatch (-want +got):\n%s", diff)
	}
	if got, want := requests[2].Path, psp.PaymentsPath+"?idempotency_key=k%2B1"; got != want {
		t.Errorf("path of the lookup = %q, want %q, as received", got, want)
	}
}

// TestJournalKeepsATokensPositionNeverTheToken: the token is a position in Config.Tokens, from
// 1, and its text is nowhere in an entry.
func TestJournalKeepsATokensPositionNeverTheToken(t *testing.T) {
	s := mustServer(t, func(c *psp.Config) { c.Tokens = []string{"alpha-secret", "beta-secret"} })
	authorizations := map[string]int{
		"Bearer alpha-secret":     1,
		"bearer   beta-secret":    2, // the scheme in any case, spaces before the token
		"Bearer gamma-secret":     0,
		"Basic alpha-secret":      0,
		"Bearer alpha-secret   x": 0,
		"":                        0,
	}
	for authorization, want := range authorizations {
		r := paymentRequest("k1", validBody)
		r.Header.Set("Authorization", authorization)
		serve(s, r)
		got, _ := s.Requests(psp.RequestFilter{})
		if last := got[len(got)-1]; last.Token != want {
			t.Errorf("Authorization %q: Token = %d, want %d", authorization, last.Token, want)
		}
		if text := fmt.Sprintf("%+v", got); strings.Contains(text, "secret") {
			t.Errorf("the journal holds a token: %s", text)
		}
	}
}

func TestJournalCutsTheTraceparent(t *testing.T) {
	long := "00-" + strings.Repeat("a", 300)
	tests := map[string]string{
		"":   "",
		"x":  "x",
		long: long[:128],
	}
	for sent, want := range tests {
		s := mustServer(t)
		r := paymentRequest("k1", validBody)
		if sent != "" {
			r.Header.Set("Traceparent", sent)
		}
		serve(s, r)
		if got, _ := s.Requests(psp.RequestFilter{}); got[0].Traceparent != want {
			t.Errorf("traceparent %q recorded as %q, want %q", sent, got[0].Traceparent, want)
		}
	}
}

func TestJournalFilters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t)
		start := time.Now()
		pay(s, "k1", validBody) // 201
		pay(s, "k2", `{}`)      // 400
		pay(s, "k1", validBody) // 201, replayed
		pay(s, "k2", `{}`)      // 400
		first := withPayload(posted(1, start, "k1", 201), validBody)
		second := withPayload(posted(2, start, "k2", 400), `{}`)
		third := withPayload(posted(3, start, "k1", 201), validBody)
		third.Replayed = true
		fourth := withPayload(posted(4, start, "k2", 400), `{}`)
		tests := []struct {
			filter psp.RequestFilter
			want   []psp.Request
		}{
			{psp.RequestFilter{}, []psp.Request{first, second, third, fourth}},
			{psp.RequestFilter{Key: "k2"}, []psp.Request{second, fourth}},
			{psp.RequestFilter{Key: `"k2"`}, []psp.Request{second, fourth}}, // read as an Idempotency-Key
			{psp.RequestFilter{Status: 201}, []psp.Request{first, third}},
			{psp.RequestFilter{After: 1}, []psp.Request{second, third, fourth}},
			{psp.RequestFilter{Key: "k1", After: 1}, []psp.Request{third}},
			{psp.RequestFilter{Key: "k1", Status: 400}, nil},
			{psp.RequestFilter{After: 4}, nil},
			{psp.RequestFilter{Key: "k"}, nil},
		}
		for _, tt := range tests {
			wantJournal(t, s, tt.filter, tt.want, 0)
		}
	})
}

// TestJournalFilterReadsAKeyAsAHeader: the filter's Key means what it would mean as an
// Idempotency-Key, so a key that itself holds quotes is selected by its quoted form only.
func TestJournalFilterReadsAKeyAsAHeader(t *testing.T) {
	s := mustServer(t)
	wantSettled(t, pay(s, `"\"k\""`, validBody)) // the key "k", quotes included
	wantSettled(t, pay(s, "k", validBody))
	tests := map[string][]uint64{"k": {2}, `"k"`: {2}, `"\"k\""`: {1}, `\"k\"`: nil}
	for key, want := range tests {
		requests, _ := s.Requests(psp.RequestFilter{Key: key})
		var seqs []uint64
		for _, r := range requests {
			seqs = append(seqs, r.Seq)
		}
		if diff := cmp.Diff(want, seqs); diff != "" {
			t.Errorf("Requests(Key %s): Seqs mismatch (-want +got):\n%s", key, diff)
		}
	}
	if ledger := s.Settlements(); len(ledger) != 2 || ledger[0].IdempotencyKey != `"k"` || ledger[1].IdempotencyKey != "k" {
		t.Errorf("ledger = %+v, want the keys \"k\" and k", ledger)
	}
}

// TestJournalKeepsTheLatestJournalMax: the oldest requests go first, counted as dropped.
func TestJournalKeepsTheLatestJournalMax(t *testing.T) {
	s := mustServer(t, func(c *psp.Config) { c.JournalMax = 3 })
	for i := range 5 {
		pay(s, "k"+itoa(i), `{}`)
	}
	wantSeqs(t, s, []uint64{3, 4, 5}, 2)
	for i := range 2 {
		pay(s, "again"+itoa(i), `{}`)
	}
	wantSeqs(t, s, []uint64{5, 6, 7}, 4)
	if got, _ := s.Requests(psp.RequestFilter{}); got[2].Key != "again1" {
		t.Errorf("the latest entry has key %q, want again1", got[2].Key)
	}
}

// wantSeqs checks the Seq of each entry of s's journal, and its dropped count.
func wantSeqs(tb testing.TB, s *psp.Server, want []uint64, dropped int64) {
	tb.Helper()
	requests, gotDropped := s.Requests(psp.RequestFilter{})
	var got []uint64
	for _, r := range requests {
		got = append(got, r.Seq)
	}
	if diff := cmp.Diff(want, got); diff != "" || gotDropped != dropped {
		tb.Errorf("journal dropped %d, want %d; Seqs mismatch (-want +got):\n%s", gotDropped, dropped, diff)
	}
}

// TestJournalKeepsWithinJournalBytes: payloads of 10000 bytes, two of which fit in 25000 bytes
// but not three, whatever the rounding of each entry's size. A payload larger than the bound
// empties the journal.
func TestJournalKeepsWithinJournalBytes(t *testing.T) {
	s := mustServer(t, func(c *psp.Config) { c.JournalBytes = 25000 })
	big := func(n int) string { return `{"valor":"` + strings.Repeat("1", n-12) + `"}` }
	for i := range 3 {
		wantProblem(t, pay(s, "big"+itoa(i), big(10000)), 400, "invalid_request")
	}
	wantSeqs(t, s, []uint64{2, 3}, 1)
	pay(s, "small", `{}`)
	wantSeqs(t, s, []uint64{2, 3, 4}, 1)
	if got, _ := s.Requests(psp.RequestFilter{Key: "big2"}); len(got) != 1 || string(got[0].Payload) != big(10000) {
		t.Errorf("Requests(big2) = %d entries, want one with its payload whole", len(got))
	}
	pay(s, "huge", big(30000))
	wantSeqs(t, s, nil, 5)
	pay(s, "after", `{}`)
	wantSeqs(t, s, []uint64{6}, 5)
}

// TestResetEmptiesTheJournal: Reset empties the journal and its dropped count; Seq goes on.
func TestResetEmptiesTheJournal(t *testing.T) {
	s := mustServer(t, func(c *psp.Config) { c.JournalMax = 2 })
	for i := range 3 {
		pay(s, "k"+itoa(i), validBody)
	}
	s.Reset()
	wantSeqs(t, s, nil, 0)
	pay(s, "k9", validBody)
	wantSeqs(t, s, []uint64{4}, 0)
}

// TestJournalForgetsWhatEndsAfterItsEntryIsGone: a request in flight whose entry was dropped,
// or emptied by a Reset, is not recorded when it ends, and leaves the others as they are.
func TestJournalForgetsWhatEndsAfterItsEntryIsGone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t, func(c *psp.Config) { c.JournalMax = 2 })
		start := time.Now()
		s.Inject(psp.Slow(time.Second))
		first := payInBackground(s, "k1")
		synctest.Wait()
		pay(s, "k2", `{}`)
		pay(s, "k3", `{}`)
		wantSettled(t, <-first)
		wantJournal(t, s, psp.RequestFilter{}, []psp.Request{
			withPayload(posted(2, start, "k2", 400), `{}`),
			withPayload(posted(3, start, "k3", 400), `{}`),
		}, 1)

		s.Inject(psp.Slow(time.Second))
		second := payInBackground(s, "k4")
		synctest.Wait()
		s.Reset()
		wantSettled(t, <-second)
		wantSeqs(t, s, nil, 0)

		s.Inject(psp.Slow(time.Second))
		third := payInBackground(s, "k5")
		synctest.Wait()
		s.Reset()
		pay(s, "k6", `{}`)
		wantSettled(t, <-third)
		wantJournal(t, s, psp.RequestFilter{}, []psp.Request{withPayload(posted(6, start.Add(2*time.Second), "k6", 400), `{}`)}, 0)
	})
}

// TestJournalPayloadIsACopy: changing a payload Requests returned changes not the journal.
func TestJournalPayloadIsACopy(t *testing.T) {
	s := mustServer(t)
	pay(s, "k1", validBody)
	got, _ := s.Requests(psp.RequestFilter{})
	got[0].Payload[0] = 'X'
	if again, _ := s.Requests(psp.RequestFilter{}); string(again[0].Payload) != validBody {
		t.Errorf("payload = %s after a change to a copy, want %s", again[0].Payload, validBody)
	}
}

// TestJournalRecordsAConnectionClosed: over a real connection, a drop commits and closes it, and
// its entry shows the fault and no status.
func TestJournalRecordsAConnectionClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t)
		p := mustPipe(t, s)
		start := time.Now()
		s.Inject(psp.Drop(), psp.ResetConn())
		wantClosed(t, p.client, p.URL, "k1")
		if _, err := post(t.Context(), p.client, p.URL, "k2", validBody); err == nil {
			t.Fatal("POST with a reset fault answered, want the connection closed")
		}
		synctest.Wait() // the handlers return after they hang up
		requests, _ := s.Requests(psp.RequestFilter{})
		if len(requests) != 2 {
			t.Fatalf("the journal holds %d requests, want 2", len(requests))
		}
		for i, want := range []string{"drop", "reset"} {
			if got := requests[i]; got.Fault != want || got.Status != 0 || got.InFlight || !got.Arrived.Equal(start) {
				t.Errorf("request %d = %+v, want fault %s, status 0, answered", i, got, want)
			}
		}
		if n := len(s.Settlements()); n != 1 {
			t.Errorf("%d settlements, want the dropped one's", n)
		}
	})
}

// TestJournalKeepsThePathAsReceived: the request target as the client sent it, in absolute form
// too, or as a request made for a client would send it.
func TestJournalKeepsThePathAsReceived(t *testing.T) {
	s := mustServer(t)
	serve(s, httptest.NewRequest("GET", "http://psp.test/nope?x=1", nil))
	forClient, _ := http.NewRequest("GET", "http://psp.test/v1/pix/payments?idempotency_key=k1", nil)
	serve(s, forClient)
	requests, _ := s.Requests(psp.RequestFilter{})
	var paths []string
	for _, r := range requests {
		paths = append(paths, r.Path)
	}
	if diff := cmp.Diff([]string{"http://psp.test/nope?x=1", "/v1/pix/payments?idempotency_key=k1"}, paths); diff != "" {
		t.Errorf("paths mismatch (-want +got):\n%s", diff)
	}
}
