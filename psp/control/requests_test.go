package control_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"pixretry/internal/openapitest"
	"pixretry/psp"
	"pixretry/psp/control"
)

// mustSecretBank is a bank whose Server accepts the tokens alpha-secret and beta-secret, and
// takes 1.5 ms to commit a payment.
func mustSecretBank(tb testing.TB) bank {
	tb.Helper()
	cfg := psp.DefaultConfig()
	cfg.Tokens, cfg.ServiceTime = []string{"alpha-secret", "beta-secret"}, 1500*time.Microsecond
	s, err := psp.NewServer(cfg)
	if err != nil {
		tb.Fatalf("NewServer() error = %v", err)
	}
	h, err := control.NewHandler(s, control.Options{})
	if err != nil {
		tb.Fatalf("NewHandler() error = %v", err)
	}
	return bank{s, openapitest.Handler(tb, h, s)}
}

// payWith sends a payment with key and body under the bearer token.
func payWith(h http.Handler, token, key, body string) answer {
	r := paymentRequest(key, body)
	r.Header.Set("Authorization", "Bearer "+token)
	return serve(h, r)
}

// TestControlReadsRequests pins GET RequestsPath byte for byte: each member, a payload that is
// JSON (its whitespace left out, its escapes kept), one that is not and one that is a JSON
// string, a lookup, a path the Server does not serve and a request in flight. No token's text
// is in it.
func TestControlReadsRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustSecretBank(t)
		wantJSON(t, ctl(s, "GET", control.RequestsPath, ""), `{"count":0,"dropped":0,"requests":[]}`)
		r := paymentRequest("k1", validBody)
		r.Header.Set("Authorization", "Bearer beta-secret")
		r.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
		wantSettled(t, serve(s, r))
		payWith(s, "alpha-secret", `"k2"`, "valor=1.00")
		payWith(s, "alpha-secret", "k3", `"hello"`)
		payWith(s, "alpha-secret", "k4", "{ \"valor\": \"1.00\",\n\"chave\": \"caf\\u00e9\" }\n")
		lookup := httptest.NewRequest("GET", psp.PaymentsPath+"?idempotency_key=k1", nil)
		lookup.Header.Set("Authorization", "Bearer beta-secret")
		serve(s, lookup)
		serve(s, httptest.NewRequest("GET", "/nope", nil))
		s.Inject(psp.Slow(time.Second))
		done := make(chan answer)
		go func() { done <- payWith(s, "alpha-secret", "k5", validBody) }()
		synctest.Wait()

		a := ctl(s, "GET", control.RequestsPath, "")
		const at = `"arrived":"2000-01-01T00:00:00.0015Z"`
		wantJSON(t, a, `{"count":7,"dropped":0,"requests":[`+
			`{"seq":1,"arrived":"2000-01-01T00:00:00Z","method":"POST","path":"/v1/pix/payments","idempotencyKey":"k1",`+
			`"idempotencyKeyHeader":"k1","token":2,"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",`+
			`"payload":{"valor":"150.00","chave":"pix@example.com","infoPagador":"rent"},"inFlight":false,"fault":"",`+
			`"status":201,"replayed":false,"elapsedMs":1.5},`+
			`{"seq":2,`+at+`,"method":"POST","path":"/v1/pix/payments","idempotencyKey":"k2",`+
			`"idempotencyKeyHeader":"\"k2\"","token":1,"traceparent":"",`+
			`"payload":"valor=1.00","inFlight":false,"fault":"","status":400,"replayed":false,"elapsedMs":0},`+
			`{"seq":3,`+at+`,"method":"POST","path":"/v1/pix/payments","idempotencyKey":"k3",`+
			`"idempotencyKeyHeader":"k3","token":1,"traceparent":"",`+
			`"payload":"\"hello\"","inFlight":false,"fault":"","status":400,"replayed":false,"elapsedMs":0},`+
			`{"seq":4,`+at+`,"method":"POST","path":"/v1/pix/payments","idempotencyKey":"k4",`+
			`"idempotencyKeyHeader":"k4","token":1,"traceparent":"",`+
			`"payload":{"valor":"1.00","chave":"caf\u00e9"},"inFlight":false,"fault":"","status":400,"replayed":false,"elapsedMs":0},`+
			`{"seq":5,`+at+`,"method":"GET","path":"/v1/pix/payments?idempotency_key=k1","idempotencyKey":"k1",`+
			`"idempotencyKeyHeader":"","token":2,"traceparent":"",`+
			`"payload":"","inFlight":false,"fault":"","status":200,"replayed":false,"elapsedMs":0},`+
			`{"seq":6,`+at+`,"method":"GET","path":"/nope","idempotencyKey":"",`+
			`"idempotencyKeyHeader":"","token":0,"traceparent":"",`+
			`"payload":"","inFlight":false,"fault":"","status":404,"replayed":false,"elapsedMs":0},`+
			`{"seq":7,`+at+`,"method":"POST","path":"/v1/pix/payments","idempotencyKey":"k5",`+
			`"idempotencyKeyHeader":"k5","token":1,"traceparent":"",`+
			`"payload":"","inFlight":true,"fault":"","status":0,"replayed":false,"elapsedMs":0}]}`)
		if strings.Contains(a.body, "secret") {
			t.Errorf("the journal's answer holds a token: %s", a.body)
		}
		wantSettled(t, <-done)
	})
}

// seqsOf decodes the answer of GET RequestsPath: the Seq of each request, and its counts.
func seqsOf(tb testing.TB, a answer) (seqs []uint64, count int, dropped int64) {
	tb.Helper()
	var body struct {
		Count    int   `json:"count"`
		Dropped  int64 `json:"dropped"`
		Requests []struct {
			Seq uint64 `json:"seq"`
		} `json:"requests"`
	}
	if a.status != 200 {
		tb.Fatalf("answer = %d %s, want 200", a.status, a.body)
	}
	if err := json.Unmarshal([]byte(a.body), &body); err != nil {
		tb.Fatalf("decoding %s: %v", a.body, err)
	}
	for _, r := range body.Requests {
		seqs = append(seqs, r.Seq)
	}
	return seqs, body.Count, body.Dropped
}

func TestControlFiltersRequests(t *testing.T) {
	s := mustBank(t)
	wantSettled(t, pay(s, "k1", validBody))                     // 1
	wantProblem(t, pay(s, "k+1", `{}`), 400, "invalid_request") // 2
	pay(s, "k1", validBody)                                     // 3, replayed
	lookUp(s, "k1")                                             // 4, 200
	tests := map[string][]uint64{
		"":                           {1, 2, 3, 4},
		"?key=k1":                    {1, 3, 4},
		"?key=k%2B1":                 {2},
		"?status=201":                {1, 3},
		"?status=100":                nil,
		"?status=599":                nil,
		"?after=2":                   {3, 4},
		"?after=0":                   {1, 2, 3, 4},
		"?key=k1&status=201&after=1": {3},
	}
	for query, want := range tests {
		seqs, count, dropped := seqsOf(t, ctl(s, "GET", control.RequestsPath+query, ""))
		if diff := cmp.Diff(want, seqs); diff != "" || count != len(want) || dropped != 0 {
			t.Errorf("GET %s%s: count %d, dropped %d, want %d and 0; Seqs mismatch (-want +got):\n%s",
				control.RequestsPath, query, count, dropped, len(want), diff)
		}
	}
}

// TestControlCountsDroppedRequests: dropped counts the requests the journal dropped since the
// start or the last reset.
func TestControlCountsDroppedRequests(t *testing.T) {
	cfg := psp.DefaultConfig()
	cfg.JournalMax = 2
	srv, err := psp.NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h, err := control.NewHandler(srv, control.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		pay(h, "k"+string(rune('0'+i)), validBody)
	}
	seqs, count, dropped := seqsOf(t, ctl(h, "GET", control.RequestsPath+"?key=k4", ""))
	if diff := cmp.Diff([]uint64{5}, seqs); diff != "" || count != 1 || dropped != 3 {
		t.Errorf("count %d, dropped %d, want 1 and 3; Seqs mismatch (-want +got):\n%s", count, dropped, diff)
	}
	wantNoContent(t, ctl(h, "POST", control.ResetPath, ""))
	wantJSON(t, ctl(h, "GET", control.RequestsPath, ""), `{"count":0,"dropped":0,"requests":[]}`)
}

func TestControlRejectsBadRequestFilters(t *testing.T) {
	const (
		status = "must be a status from 100 to 599"
		after  = "must be a Seq, a whole number from 0"
		known  = "unknown parameter: the parameters are key, status and after"
	)
	tests := map[string][]psp.Violation{
		"key=":                       {{Field: "key", Reason: "must not be empty"}},
		"key=a&key=b":                {{Field: "key", Reason: "must be given at most once"}},
		"status=abc":                 {{Field: "status", Reason: status}},
		"status=99":                  {{Field: "status", Reason: status}},
		"status=600":                 {{Field: "status", Reason: status}},
		"status=200&status=201":      {{Field: "status", Reason: "must be given at most once"}},
		"after=-1":                   {{Field: "after", Reason: after}},
		"after=1&after=2":            {{Field: "after", Reason: "must be given at most once"}},
		"after=18446744073709551616": {{Field: "after", Reason: after}},
		"Key=k1":                     {{Field: "Key", Reason: known}},
		"=1":                         {{Field: `""`, Reason: known}},
		"%zz":                        {{Field: "query", Reason: `could not be parsed: invalid URL escape "%zz"`}},
		"status=x&key=&after=y&z": {
			{Field: "after", Reason: after}, {Field: "key", Reason: "must not be empty"},
			{Field: "status", Reason: status}, {Field: "z", Reason: known},
		},
	}
	s := mustBank(t)
	pay(s, "k1", validBody)
	for query, want := range tests {
		p := wantProblem(t, ctl(s, "GET", control.RequestsPath+"?"+query, ""), 400, "invalid_request")
		wantViolations(t, p.Violations, want)
	}
}

// TestControlClientReadsRequests: Client.Requests reads what Server.Requests returns, filters
// included, but JSON payloads without their whitespace.
func TestControlClientReadsRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := mustSecretBank(t)
		c := controlOf(s)
		wantSettled(t, payWith(s, "beta-secret", "k1", validBody))
		payWith(s, "alpha-secret", "a+b&c", "valor=1.00\xff")
		payWith(s, "alpha-secret", "k2", `"hello"`)
		payWith(s, "alpha-secret", "k1", validBody) // another token, another key: settled
		payWith(s, "beta-secret", "k1", validBody)  // replayed
		lookUp(s, "k1")
		filters := []psp.RequestFilter{{}, {Key: "a+b&c"}, {Status: 201}, {After: 2}, {Key: "k1", Status: 201, After: 2}}
		for _, filter := range filters {
			want, wantDropped := s.Requests(filter)
			for i := range want {
				if want[i].Key == "a+b&c" {
					want[i].Payload = []byte("valor=1.00\uFFFD") // JSON text is UTF-8
				}
			}
			got, dropped, err := c.Requests(ctx, filter)
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); err != nil || diff != "" || dropped != wantDropped {
				t.Errorf("Requests(%+v) = %d dropped, %v; want %d dropped; mismatch (-Server +Client):\n%s",
					filter, dropped, err, wantDropped, diff)
			}
		}

		payWith(s, "alpha-secret", "k3", "{ \"valor\" : \"1.00\" }\n")
		got, _, err := c.Requests(ctx, psp.RequestFilter{Key: "k3"})
		if err != nil || len(got) != 1 || string(got[0].Payload) != `{"valor":"1.00"}` {
			t.Errorf("Requests(k3) = %+v, %v; want one whose payload is the JSON without its whitespace", got, err)
		}
	})
}

// TestControlRequestsReplaceInvalidUTF8: a key that is not UTF-8 is written with U+FFFD, and the
// answer stays JSON.
func TestControlRequestsReplaceInvalidUTF8(t *testing.T) {
	s := mustBank(t)
	pay(s, "k\xff", validBody)
	a := ctl(s, "GET", control.RequestsPath, "")
	if seqs, _, _ := seqsOf(t, a); len(seqs) != 1 || !strings.Contains(a.body, `"idempotencyKey":"k`+"\uFFFD"+`"`) {
		t.Errorf("GET %s = %s, want the key with U+FFFD", control.RequestsPath, a.body)
	}
}

// journalKey is a request of GET RequestsPath, as far as its key goes.
type journalKey struct {
	Seq       uint64 `json:"seq"`
	Key       string `json:"idempotencyKey"`
	KeyHeader string `json:"idempotencyKeyHeader"`
}

// journalKeysOf decodes the answer of GET RequestsPath as far as its keys go.
func journalKeysOf(tb testing.TB, a answer) []journalKey {
	tb.Helper()
	var body struct {
		Requests []journalKey `json:"requests"`
	}
	if err := json.Unmarshal([]byte(a.body), &body); a.status != 200 || err != nil {
		tb.Fatalf("GET %s = %d %s (%v), want 200 and the journal", control.RequestsPath, a.status, a.body, err)
	}
	return body.Requests
}

// TestControlAgreesOnOneFormOfAKey: a key sent as "abc" (a structured-field string) and as abc
// is one key to the key store, the ledger, a lookup, the journal's idempotencyKey and its
// filter in either form, over HTTP and through the Client; idempotencyKeyHeader keeps the header
// as received. A lookup's parameter is the key itself: "abc" there is the key with its quotes,
// under which nothing was paid.
func TestControlAgreesOnOneFormOfAKey(t *testing.T) {
	s := mustBank(t)
	abc := pay(s, `"abc"`, validBody) // 1
	xyz := pay(s, "xyz", validBody)   // 2
	wantSettled(t, abc)
	wantSettled(t, xyz)
	answers := []struct {
		what     string
		got      answer
		status   int
		replayed string // its Idempotent-Replayed
		body     string
	}{
		{"payment under abc", pay(s, "abc", validBody), 201, "true", abc.body},     // 3
		{`payment under "xyz"`, pay(s, `"xyz"`, validBody), 201, "true", xyz.body}, // 4
		{"lookup of abc", lookUp(s, "abc"), 200, "", abc.body},                     // 5
		{"lookup of xyz", lookUp(s, "xyz"), 200, "", xyz.body},                     // 6
	}
	for _, a := range answers {
		if replayed := a.got.header.Get("Idempotent-Replayed"); a.got.status != a.status || replayed != a.replayed ||
			a.got.body != a.body {
			t.Errorf("%s = %d, Idempotent-Replayed %q, %s; want %d, %q, %s", a.what, a.got.status, replayed, a.got.body,
				a.status, a.replayed, a.body)
		}
	}
	if a := lookUp(s, `"abc"`); a.status != 200 || a.body != abc.body { // 7
		t.Errorf(`lookup of "abc" = %d %s, want 200 and abc's payment: a lookup reads the key as the header does`, a.status, a.body)
	}
	var ledger []string
	for _, st := range s.Settlements() {
		ledger = append(ledger, st.IdempotencyKey)
	}
	if diff := cmp.Diff([]string{"abc", "xyz"}, ledger); diff != "" {
		t.Errorf("the ledger's keys mismatch (-want +got):\n%s", diff)
	}

	want := []journalKey{{1, "abc", `"abc"`}, {2, "xyz", "xyz"}, {3, "abc", "abc"}, {4, "xyz", `"xyz"`},
		{5, "abc", ""}, {6, "xyz", ""}, {7, "abc", ""}}
	if diff := cmp.Diff(want, journalKeysOf(t, ctl(s, "GET", control.RequestsPath, ""))); diff != "" {
		t.Errorf("the journal's keys mismatch (-want +got):\n%s", diff)
	}
	filters := map[string][]uint64{
		"abc": {1, 3, 5, 7}, `"abc"`: {1, 3, 5, 7},
		"xyz": {2, 4, 6}, `"xyz"`: {2, 4, 6},
		`"\"abc\""`: nil,
	}
	c := controlOf(s)
	for key, want := range filters {
		query := url.Values{"key": {key}}.Encode()
		if seqs, _, _ := seqsOf(t, ctl(s, "GET", control.RequestsPath+"?"+query, "")); !slices.Equal(seqs, want) {
			t.Errorf("GET %s?%s: Seqs %v, want %v", control.RequestsPath, query, seqs, want)
		}
		fromServer, _ := s.Requests(psp.RequestFilter{Key: key})
		fromClient, _, err := c.Requests(t.Context(), psp.RequestFilter{Key: key})
		diff := cmp.Diff(fromServer, fromClient, cmpopts.EquateEmpty())
		if err != nil || diff != "" || len(fromServer) != len(want) {
			t.Errorf("Requests(%s): %d from the Server, want %d; the Client's error %v; mismatch (-Server +Client):\n%s",
				key, len(fromServer), len(want), err, diff)
		}
	}
}

// TestControlShowsABrokenKeyAsReceived: a quoted key that does not parse gets its 400, pays
// nothing, and shows in the journal as received, where the same text selects it.
func TestControlShowsABrokenKeyAsReceived(t *testing.T) {
	s := mustBank(t)
	broken := []string{`"abc`, `"a\x"`, `"abc"x`}
	for _, key := range broken {
		wantProblem(t, pay(s, key, validBody), 400, "idempotency_key_invalid")
	}
	if n := len(s.Settlements()); n != 0 {
		t.Errorf("%d settlements, want none", n)
	}
	want := []journalKey{{1, broken[0], broken[0]}, {2, broken[1], broken[1]}, {3, broken[2], broken[2]}}
	if diff := cmp.Diff(want, journalKeysOf(t, ctl(s, "GET", control.RequestsPath, ""))); diff != "" {
		t.Errorf("the journal's keys mismatch (-want +got):\n%s", diff)
	}
	filters := map[string][]uint64{broken[0]: {1}, broken[1]: {2}, broken[2]: {3}, "abc": nil, `"abc"`: nil}
	for key, want := range filters {
		query := url.Values{"key": {key}}.Encode()
		if seqs, _, _ := seqsOf(t, ctl(s, "GET", control.RequestsPath+"?"+query, "")); !slices.Equal(seqs, want) {
			t.Errorf("GET %s?%s: Seqs %v, want %v", control.RequestsPath, query, seqs, want)
		}
	}
}
